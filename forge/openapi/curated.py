"""A forge spec that names an OpenAPI document (`"openapi": "api.yaml"`) and picks operations.

Each entry of `tools` names an operation (operationId or `METHOD /path`) and may override
the tool's name, description, parameter descriptions, write flag and examples. An entry
naming an operation the document lacks is an issue naming the spec file and the tool,
with the closest operation as a hint. `transport` (optional) overrides the document's
URL, auth, headers and timeout.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forge.issues import Issue
from forge.openapi.document import Compiled, detect_version
from forge.openapi.operations import Operation
from forge.openapi.options import OpenAPIOptions
from forge.openapi.params import Unsupported
from forge.spec import DEFAULT_MAX_RESPONSE_CHARS, DEFAULT_TIMEOUT, Annotations, Param, Spec, Tool, Transport
from forge.specfile import compile_transport, serving_fields

__all__ = ["compile_curated", "operation_key"]


def operation_key(operation: Operation) -> str:
    """How a curated spec names an operation: its operationId, else `METHOD /path`."""
    return operation.operation_id or operation.label


def _normal(key: str) -> str:
    method, _, path = key.strip().partition(" ")
    return f"{method.upper()} {path.strip()}" if path else key.strip()


def _transport(raw: Mapping[str, Any] | None, compiled: Compiled, base: Path) -> Transport:
    document = compiled.transport()
    if not raw:
        return document
    given = compile_transport(raw, base)
    return dataclasses.replace(
        document,
        url=given.url or document.url,
        auth=given.auth if "auth" in raw else document.auth,
        headers=given.headers if "headers" in raw else document.headers,
        timeout=given.timeout if "timeout" in raw else DEFAULT_TIMEOUT,
        max_response_chars=given.max_response_chars if "max_response_chars" in raw else DEFAULT_MAX_RESPONSE_CHARS,
    )


def _override(tool: Tool, entry: Mapping[str, Any], file: str, label: str, issues: list[Issue]) -> Tool:
    params = list(tool.params)
    for key, text in (entry.get("params") or {}).items():
        index = next((i for i, p in enumerate(params) if p.name == key), None)
        if index is None and tool.request is not None and hasattr(tool.request, "bindings"):
            by_field = {b.field: b.param for b in tool.request.bindings()}
            index = next((i for i, p in enumerate(params) if p.name == by_field.get(key)), None)
        if index is None:
            names = [p.name for p in params]
            hint = difflib.get_close_matches(key, names, n=1)
            extra = f"; did you mean {hint[0]!r}?" if hint else f"; it has: {', '.join(names) or 'no parameters'}"
            issues.append(Issue(file, f"params: {key!r} is not a parameter of this operation{extra}", label, "openapi"))
            continue
        param = params[index]
        params[index] = Param(param.name, {**param.schema, "description": text}, param.required, param.send_default)
    write = entry.get("write", tool.write)
    hints = tool.hints
    return dataclasses.replace(
        tool,
        name=entry.get("name", tool.name),
        description=entry.get("description", tool.description),
        params=tuple(params),
        write=write,
        annotations=Annotations(hints.read_only and not write, write, hints.idempotent, hints.open_world),
        examples=tuple(entry.get("examples", ())),
    )


def compile_curated(
    raw: Mapping[str, Any], document: Mapping[str, Any], *, path: Path, document_path: Path, options: OpenAPIOptions
) -> tuple[Spec, list[Issue]]:
    """The spec `raw` describes, its tools built from `document`'s operations."""
    file = str(path)
    name = str(raw["name"])
    empty = Spec(name=name, transport=Transport("rest", ""), tools=(), path=path, openapi=document_path)
    if not isinstance(document, Mapping) or detect_version(document) is None:
        return empty, [Issue(file, f"openapi: {str(document_path)!r} is not an OpenAPI 2.0/3.0/3.1 document")]
    raw_transport = raw.get("transport")
    url = raw_transport.get("url") if isinstance(raw_transport, Mapping) else None
    doc_options = dataclasses.replace(options, base_url=url or options.base_url, name=name, include=(), exclude=())
    try:
        compiled = Compiled(document, document_path, doc_options, name)
    except Unsupported as exc:
        return empty, [Issue(file, f"openapi: {exc}")]
    issues = list(compiled.issues)
    index: dict[str, tuple[Operation, str]] = {}
    for operation, tool_name in compiled.operations:
        index.setdefault(operation.label, (operation, tool_name))
        if operation.operation_id:
            index.setdefault(operation.operation_id, (operation, tool_name))
    tools: list[Tool] = []
    names: set[str] = set()
    for number, entry in enumerate(raw["tools"], 1):
        key = str(entry["operation"])
        label = str(entry.get("name") or key or f"#{number}")
        found = index.get(key) or index.get(_normal(key))
        if found is None:
            hint = difflib.get_close_matches(key, list(index), n=1)
            extra = f"; did you mean {hint[0]!r}?" if hint else ""
            issues.append(Issue(file, f"operation {key!r} is not in {document_path}{extra}", label, "openapi"))
            continue
        operation, default_name = found
        result = compiled.build(operation, default_name)
        if not isinstance(result, Tool):
            issues.append(Issue(file, f"operation {key!r} cannot be served: {result.reason}", label, "openapi"))
            continue
        tool = _override(result, entry, file, label, issues)
        if tool.name in names:
            issues.append(Issue(file, f"name {tool.name!r} is used by more than one tool", label, "openapi"))
            continue
        names.add(tool.name)
        tools.append(tool)
    transport = _transport(raw_transport if isinstance(raw_transport, Mapping) else None, compiled, path.parent)
    if isinstance(raw_transport, Mapping) and "auth" in raw_transport:
        tools = [t if not t.auth else dataclasses.replace(t, auth=None) for t in tools]
    spec = Spec(
        name=name,
        transport=transport,
        tools=tuple(tools),
        instructions=raw.get("instructions"),
        path=path,
        openapi=document_path,
        **serving_fields(raw),
    )
    return spec, issues
