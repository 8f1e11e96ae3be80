"""The compiled model: what every input format produces and every consumer reads.

Raw JSON stops at the loaders (`forge.loading`, `forge.openapi`); everything downstream
(checks, schemas, rendering, the gate, the server, the CLI, the pytest plugin) sees these
frozen values. Stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "DEFAULT_MAX_RESPONSE_CHARS",
    "DEFAULT_TIMEOUT",
    "PATH_PLACEHOLDER",
    "WRITE_METHODS",
    "Annotations",
    "Auth",
    "AuthKind",
    "Binding",
    "BodyEncoding",
    "ConfirmMode",
    "GraphQLOperation",
    "Param",
    "RestRequest",
    "Skipped",
    "Spec",
    "Tool",
    "Transport",
]

PATH_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")  # `{name}` in a path template
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})  # HTTP methods that can change data

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE_CHARS = 20_000

AuthKind = Literal["bearer", "basic", "header", "query", "cookie"]
BodyEncoding = Literal["json", "form", "multipart"]
ConfirmMode = Literal["token", "elicit"]


@dataclass(frozen=True, slots=True)
class Param:
    """One argument of a tool.

    `schema` is the argument's JSON Schema (type, description, enum, default, items, ...),
    exactly as it appears under the tool's input schema `properties`. `send_default`
    says whether forge sends the default when the argument is absent (a forge spec's
    default is forge's choice; an OpenAPI default describes what the server already does).
    """

    name: str
    schema: Mapping[str, Any]
    required: bool = False
    send_default: bool = True

    @property
    def type(self) -> str | None:
        kind = self.schema.get("type")
        return kind if isinstance(kind, str) else None

    @property
    def description(self) -> str:
        text = self.schema.get("description")
        return text if isinstance(text, str) else ""


@dataclass(frozen=True, slots=True)
class Binding:
    """Where one argument goes in a REST request.

    `field` is the API's name (path placeholder, query key, header, cookie or body field);
    `param` the argument's name. `style`/`explode` follow OpenAPI's serialization rules
    (https://spec.openapis.org/oas/v3.1.0#style-values).
    """

    field: str
    param: str
    style: str = "form"
    explode: bool = True


@dataclass(frozen=True, slots=True)
class RestRequest:
    """A REST request template.

    `body` maps API field names to arguments; `body_param` instead names one argument that
    is the whole body (OpenAPI request bodies). `body_encoding` says how it is sent.
    """

    method: str
    path: str
    path_params: tuple[Binding, ...] = ()
    query: tuple[Binding, ...] = ()
    headers: tuple[Binding, ...] = ()
    cookies: tuple[Binding, ...] = ()
    body: tuple[Binding, ...] = ()
    body_param: str | None = None
    body_encoding: BodyEncoding = "json"
    indexed_arrays: bool = False  # form bodies: `tags[0]=a` (deepObject APIs such as Stripe), not `tags=a`

    def placeholders(self) -> list[str]:
        """The `{name}` placeholders of `path`, in order."""
        return PATH_PLACEHOLDER.findall(self.path)

    def bindings(self) -> tuple[Binding, ...]:
        return self.path_params + self.query + self.headers + self.cookies + self.body

    @property
    def changes_data(self) -> bool:
        return self.method in WRITE_METHODS


@dataclass(frozen=True, slots=True)
class GraphQLOperation:
    """One GraphQL operation, sent as POST {"query", "variables", "operationName"}."""

    document: str
    variables: tuple[str, ...]
    operation_name: str | None = None
    operation_type: str = "query"

    @property
    def changes_data(self) -> bool:
        return self.operation_type == "mutation"


@dataclass(frozen=True, slots=True)
class Annotations:
    """MCP tool annotations (hints to clients, not guarantees)."""

    read_only: bool
    destructive: bool
    idempotent: bool = False
    open_world: bool = True


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """One MCP tool: its arguments and the request it renders.

    Attributes:
        write: held by the gate until confirmed.
        response_schema: the JSON Schema the API documents for a successful response body,
            or None; responses are checked against it and drift is reported, not failed.
        examples: argument sets for recorded contract tests.
        origin: where it came from, for messages (`GET /pets/{id}` of an OpenAPI document).
        auth: credentials for this tool, overriding the transport's (None: the transport's;
            empty: none, as for public reads of an API whose writes need a key).

    Tools compare and hash by identity, so per-tool caches (validators) can key on them.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    request: RestRequest | GraphQLOperation
    write: bool = False
    annotations: Annotations | None = None
    response_schema: Mapping[str, Any] | None = None
    examples: tuple[Mapping[str, Any], ...] = ()
    origin: str | None = None
    auth: tuple[Auth, ...] | None = None

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def auth_from(self, transport: Transport) -> tuple[Auth, ...]:
        """The credentials this tool sends: its own override, else the transport's."""
        return transport.auth if self.auth is None else self.auth

    @property
    def hints(self) -> Annotations:
        if self.annotations is not None:
            return self.annotations
        return Annotations(read_only=not self.write, destructive=self.write)


@dataclass(frozen=True, slots=True)
class Auth:
    """One credential, read from the environment at call time, never stored.

    `env` holds the token, key or user name; `password_env` the optional basic-auth
    password (empty when unset); `name` the header, query parameter or cookie name.
    """

    kind: AuthKind
    env: str
    password_env: str | None = None
    name: str | None = None

    def variables(self) -> tuple[str, ...]:
        return (self.env,) if self.password_env is None else (self.env, self.password_env)


@dataclass(frozen=True, slots=True)
class Transport:
    """How to reach the API."""

    kind: Literal["rest", "graphql"]
    url: str
    auth: tuple[Auth, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    schema: Path | None = None
    max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS


@dataclass(frozen=True, slots=True)
class Skipped:
    """An operation of a source document that did not become a tool, and why."""

    operation: str
    reason: str


@dataclass(frozen=True, slots=True)
class Spec:
    """A loaded, compiled spec: one MCP server's worth of tools.

    Attributes:
        path: the file it was loaded from (as the user named it), for messages.
        openapi: the OpenAPI document the tools came from, if any (drift checks use it).
        skipped: source operations that did not become tools.
        credential_passthrough: (request header, variable) pairs: when served over HTTP,
            the variable is taken from the caller's request header instead of the server's
            environment (per-request credentials). Empty: off.
        confirm: how writes are confirmed when served (`token` or `elicit`); None leaves
            it to the server's setting.
    """

    name: str
    transport: Transport
    tools: tuple[Tool, ...]
    instructions: str | None = None
    path: Path | None = None
    openapi: Path | None = None
    skipped: tuple[Skipped, ...] = field(default=())
    credential_passthrough: tuple[tuple[str, str], ...] = ()
    confirm: ConfirmMode | None = None

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    @property
    def label(self) -> str:
        return str(self.path) if self.path is not None else self.name
