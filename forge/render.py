"""Pure rendering: (transport, tool, arguments, environment) -> the exact HTTP request.

One builder serves every API, REST and GraphQL, from forge specs and OpenAPI documents.
The gate binds tokens to what this returns, and the client sends exactly it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from forge.auth import resolve_credentials
from forge.errors import MissingVariable, RenderError
from forge.serialize import flatten_form, scalar_text, serialize_path, serialize_query
from forge.spec import PATH_PLACEHOLDER, GraphQLOperation, RestRequest, Tool, Transport

__all__ = ["REDACTED", "SPREAD", "RenderedRequest", "expand_url", "redact", "render"]

REDACTED = "[REDACTED]"
SPREAD = "*"  # a body field named "*" merges an object argument's keys into the body
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class RenderedRequest:
    """An HTTP request ready to send, byte for byte.

    `secrets` holds every credential value used (in all its encodings), so that anything
    shown to a person can be passed through `redact` first.
    """

    method: str
    url: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    secrets: frozenset[str] = frozenset()

    def fingerprint(self) -> bytes:
        """Canonical bytes of the whole request, header values included (for the gate)."""
        digest = hashlib.sha256(self.body or b"").hexdigest()
        canonical = [self.method, self.url, sorted(self.headers), digest]
        return json.dumps(canonical, separators=(",", ":")).encode()

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    @property
    def header_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.headers)

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers if k.lower() == lowered), None)


def redact(text: str, secrets: frozenset[str]) -> str:
    """Replace every secret in `text`, longest first so encodings do not leave parts."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def expand_url(url: str, env: Mapping[str, str]) -> str:
    """Expand `${VAR}` references; an unset variable raises MissingVariable."""

    def expand(match: re.Match[str]) -> str:
        name = match.group(1)
        value = env.get(name)
        if value is None or value == "":
            raise MissingVariable(name, "used in the transport URL")
        return value

    return _ENV_REF.sub(expand, url)


def _join(base: str, path: str) -> str:
    if not path:
        return base
    return base.rstrip("/") + "/" + path.lstrip("/")


def _with_defaults(tool: Tool, arguments: Mapping[str, Any]) -> dict[str, Any]:
    merged = {k: v for k, v in arguments.items() if v is not None}
    for param in tool.params:
        if param.send_default and param.name not in merged and "default" in param.schema:
            merged[param.name] = param.schema["default"]
    return merged


def render(transport: Transport, tool: Tool, arguments: Mapping[str, Any], env: Mapping[str, str]) -> RenderedRequest:
    """Build the request `tool` makes with `arguments`.

    Raises:
        MissingVariable: a credential or URL variable is not set.
        RenderError: a path parameter has no value.
    """
    credentials = resolve_credentials(tool.auth_from(transport), env)
    base = expand_url(transport.url, env)
    args = _with_defaults(tool, arguments)
    headers: list[tuple[str, str]] = list(transport.headers)
    query: list[tuple[str, str]] = []
    cookies: list[tuple[str, str]] = []
    body: bytes | None = None

    if isinstance(tool.request, GraphQLOperation):
        method, url = "POST", base
        op = tool.request
        payload: dict[str, Any] = {
            "query": op.document,
            "variables": {name: args[name] for name in op.variables if name in args},
        }
        if op.operation_name:
            payload["operationName"] = op.operation_name
        body = json.dumps(payload, ensure_ascii=False).encode()
        headers.append(("Content-Type", "application/json"))
    else:
        method, url, body, content_type = _render_rest(tool.request, args, base, query, headers, cookies)
        if content_type:
            headers.append(("Content-Type", content_type))

    headers.extend(credentials.headers)
    query.extend(credentials.query)
    cookies.extend(credentials.cookies)
    if cookies:
        headers.append(("Cookie", "; ".join(f"{k}={v}" for k, v in cookies)))
    if not any(name.lower() == "accept" for name, _ in headers):
        headers.append(("Accept", "application/json"))
    if query:
        url += ("&" if "?" in url else "?") + urlencode(query, doseq=False)
    return RenderedRequest(method, url, tuple(headers), body, credentials.secrets)


def _render_rest(
    request: RestRequest,
    args: Mapping[str, Any],
    base: str,
    query: list[tuple[str, str]],
    headers: list[tuple[str, str]],
    cookies: list[tuple[str, str]],
) -> tuple[str, str, bytes | None, str | None]:
    by_field = {b.field: b for b in request.path_params}

    def fill(match: re.Match[str]) -> str:
        placeholder = match.group(1)
        binding = by_field.get(placeholder)
        param = binding.param if binding else placeholder
        if param not in args:
            raise RenderError(f"path parameter {param!r} has no value; nothing was sent")
        style = binding.style if binding else "simple"
        explode = binding.explode if binding else False
        return serialize_path(placeholder, args[param], style, explode)

    path = PATH_PLACEHOLDER.sub(fill, request.path)
    for binding in request.query:
        if binding.param in args:
            query.extend(serialize_query(binding.field, args[binding.param], binding.style, binding.explode))
    for binding in request.headers:
        if binding.param in args:
            value = args[binding.param]
            if isinstance(value, (list, tuple)):
                headers.append((binding.field, ",".join(scalar_text(v) for v in value)))
            else:
                headers.append((binding.field, scalar_text(value)))
    for binding in request.cookies:
        if binding.param in args:
            cookies.extend(serialize_query(binding.field, args[binding.param], "form", binding.explode))

    content: Any = None
    if request.body_param is not None and request.body_param in args:
        content = args[request.body_param]
    elif request.body:
        fields: dict[str, Any] = {}
        for binding in request.body:
            if binding.param not in args:
                continue
            value = args[binding.param]
            if binding.field == SPREAD and isinstance(value, Mapping):
                fields.update(value)
            else:
                fields[binding.field] = value
        content = fields if fields or request.method in ("POST", "PUT", "PATCH") else None
    body, content_type = _encode_body(content, request.body_encoding, request.indexed_arrays)
    return request.method, _join(base, path), body, content_type


def _encode_body(content: Any, encoding: str, indexed: bool) -> tuple[bytes | None, str | None]:
    if content is None:
        return None, None
    if encoding == "form":
        if not isinstance(content, Mapping):
            raise RenderError("a form body must be an object; nothing was sent")
        return urlencode(flatten_form(content, indexed_arrays=indexed)).encode(), "application/x-www-form-urlencoded"
    if encoding == "multipart":
        if not isinstance(content, Mapping):
            raise RenderError("a multipart body must be an object; nothing was sent")
        return _multipart(flatten_form(content, indexed_arrays=indexed))
    return json.dumps(content, ensure_ascii=False).encode(), "application/json"


def _multipart(fields: list[tuple[str, str]]) -> tuple[bytes, str]:
    # The boundary is derived from the content, so rendering twice gives the same bytes
    # (the gate compares renderings) while still never occurring inside the content.
    digest = hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:32]
    boundary = f"forge-{digest}"
    parts = []
    for name, value in fields:
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{quoted}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"
