"""Pure: a forge spec document (already parsed JSON) -> Spec, or the issues that stop it.

Shape problems are found by validating against `SPEC_SCHEMA` and reported as the file,
the tool and the field; only a document that passes is compiled.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge.issues import Issue
from forge.spec import (
    DEFAULT_MAX_RESPONSE_CHARS,
    DEFAULT_TIMEOUT,
    PATH_PLACEHOLDER,
    Auth,
    Binding,
    GraphQLOperation,
    Param,
    RestRequest,
    Spec,
    Tool,
    Transport,
)
from forge.spec_format import SPEC_SCHEMA

if TYPE_CHECKING:  # jsonschema loads when a spec file is first checked
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = ["compile_spec", "compile_transport", "serving_fields", "shape_issues", "undeclared_writes"]


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(SPEC_SCHEMA)


def _tool_label(raw: Mapping[str, Any], path: list[Any]) -> str | None:
    if len(path) >= 2 and path[0] == "tools" and isinstance(path[1], int):
        tools = raw.get("tools")
        if isinstance(tools, list) and path[1] < len(tools):
            entry = tools[path[1]]
            name = entry.get("name") or entry.get("operation") if isinstance(entry, dict) else None
            return str(name) if name else f"#{path[1] + 1}"
    return None


def _field(path: list[Any]) -> str:
    parts = path[2:] if len(path) >= 2 and path[0] == "tools" else path
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _leaf_errors(error: ValidationError) -> list[ValidationError]:
    # oneOf/anyOf errors carry their alternatives as context; the deepest ones say most.
    if error.context:
        best = max(error.context, key=lambda e: len(e.absolute_path))
        if len(best.absolute_path) > len(error.absolute_path):
            return _leaf_errors(best)
    return [error]


def _describe(error: ValidationError) -> str:
    field = _field(list(error.absolute_path))
    if error.validator == "additionalProperties":
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        known = sorted(schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(known)) if isinstance(error.instance, dict) else []
        lines = []
        for key in extra:
            hint = difflib.get_close_matches(key, known, n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else f" (expected one of: {', '.join(known)})"
            lines.append(f"unknown key {key!r}" + (f" in {field}" if field else "") + suggestion)
        return "; ".join(lines)
    if error.validator == "oneOf" and isinstance(error.instance, dict) and "kind" in error.instance:
        return f"{field}: unsupported or incomplete auth {error.instance.get('kind')!r}"
    if error.validator == "oneOf" and field == "":
        return "a tool needs exactly one of 'request' (REST) or 'query' (GraphQL)"
    if error.validator == "required":
        return (f"{field}: " if field else "") + error.message.replace("is a required property", "is required")
    return (f"{field}: " if field else "") + error.message


def shape_issues(raw: Any, file: str) -> list[Issue]:
    """Problems with the document's shape, each naming the file, the tool and the field."""
    if not isinstance(raw, dict):
        return [Issue(file, "a spec must be a JSON object")]
    issues = []
    for error in sorted(_validator().iter_errors(raw), key=lambda e: list(map(str, e.absolute_path))):
        for leaf in _leaf_errors(error):
            issues.append(Issue(file, _describe(leaf), _tool_label(raw, list(leaf.absolute_path))))
    return list(dict.fromkeys(issues))


def undeclared_writes(raw: Mapping[str, Any], spec: Spec, file: str) -> list[Issue]:
    """Tools of a compiled forge spec whose request can change data but whose entry in the
    document (`raw`) does not say whether they are writes.

    `write` defaults to false, and a tool that is not a write is sent on its first call, so
    a request that can change data (POST, PUT, PATCH, DELETE, a GraphQL mutation) must say
    either way: a forgotten flag must not skip the gate.
    """
    return [
        Issue(
            file,
            f"{_what(tool.request)} can change data: say whether this tool is a write "
            '("write": true holds each call until it is confirmed; "write": false sends it at once)',
            tool.name,
            "write-declared",
        )
        for entry, tool in zip(raw["tools"], spec.tools, strict=True)
        if "write" not in entry and tool.request.changes_data
    ]


def _what(request: RestRequest | GraphQLOperation) -> str:
    return request.method if isinstance(request, RestRequest) else "a GraphQL mutation"


def _auth(raw: Mapping[str, Any] | None) -> tuple[Auth, ...]:
    if not raw or raw.get("kind") == "none":
        return ()
    kind = raw["kind"]
    name = raw.get("header") or raw.get("param")
    return (Auth(kind=kind, env=raw["env"], password_env=raw.get("password_env"), name=name),)


def compile_transport(raw: Mapping[str, Any], base: Path | None) -> Transport:
    schema = raw.get("schema")
    return Transport(
        kind=raw.get("kind", "rest"),
        url=raw.get("url", ""),
        auth=_auth(raw.get("auth")),
        headers=tuple((str(k), str(v)) for k, v in (raw.get("headers") or {}).items()),
        timeout=float(raw.get("timeout", DEFAULT_TIMEOUT)),
        schema=(base / schema if base is not None else Path(schema)) if schema else None,
        max_response_chars=int(raw.get("max_response_chars", DEFAULT_MAX_RESPONSE_CHARS)),
    )


def _param(raw: Mapping[str, Any]) -> Param:
    schema: dict[str, Any] = {"type": raw["type"]}
    for key in ("description", "enum", "default", "items", "format"):
        if key in raw:
            schema[key] = raw[key]
    return Param(name=raw["name"], schema=schema, required=bool(raw.get("required", False)))


def _bindings(mapping: Mapping[str, str] | None) -> tuple[Binding, ...]:
    return tuple(Binding(field=f, param=p) for f, p in (mapping or {}).items())


def _request(raw: Mapping[str, Any]) -> RestRequest:
    path = raw["path"]
    placeholders = PATH_PLACEHOLDER.findall(path)
    return RestRequest(
        method=raw["method"],
        path=path,
        path_params=tuple(Binding(field=p, param=p, style="simple", explode=False) for p in placeholders),
        query=_bindings(raw.get("query")),
        headers=_bindings(raw.get("headers")),
        body=_bindings(raw.get("body")),
        body_encoding=raw.get("encoding", "json"),
    )


def _tool(raw: Mapping[str, Any]) -> Tool:
    request: RestRequest | GraphQLOperation
    if "request" in raw:
        request = _request(raw["request"])
    else:
        from forge.graphql import operation_info  # graphql-core only for GraphQL specs

        info = operation_info(raw["query"])
        request = GraphQLOperation(
            document=raw["query"],
            variables=tuple(raw.get("variables", ())),
            operation_name=info.name if info else None,
            operation_type=info.kind if info else "query",
        )
    return Tool(
        name=raw["name"],
        description=raw["description"],
        params=tuple(_param(p) for p in raw.get("params", ())),
        request=request,
        write=bool(raw.get("write", False)),
        examples=tuple(raw.get("examples", ())),
        auth=_auth(raw["auth"]) if "auth" in raw else None,
    )


def serving_fields(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The spec-level serving settings (`credential_passthrough`, `confirm`) as Spec keyword arguments.

    Shared by every compiler of spec documents (curated OpenAPI specs too), so the fields
    mean the same wherever they appear.
    """
    passthrough = raw.get("credential_passthrough") or {}
    return {
        "credential_passthrough": tuple((str(h), str(v)) for h, v in passthrough.items()),
        "confirm": raw.get("confirm"),
    }


def compile_spec(raw: Mapping[str, Any], path: Path | None) -> Spec:
    """Compile a shape-valid forge spec (no `openapi` source) into a Spec."""
    base = path.parent if path is not None else None
    return Spec(
        name=raw["name"],
        instructions=raw.get("instructions"),
        transport=compile_transport(raw["transport"], base),
        tools=tuple(_tool(t) for t in raw["tools"]),
        path=path,
        **serving_fields(raw),
    )
