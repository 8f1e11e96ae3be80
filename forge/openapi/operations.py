"""One OpenAPI operation -> one `Tool` (or `Unsupported`, saying why not)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from forge.openapi.bodies import Body, request_body, swagger_body
from forge.openapi.params import (
    ApiParam,
    ParamConverter,
    all_parameters,
    assign_names,
    collect,
    to_model,
)
from forge.openapi.refs import RefError, Resolver
from forge.openapi.schemas import Converter, describe
from forge.openapi.security import SecurityMap
from forge.spec import WRITE_METHODS, Annotations, Binding, BodyEncoding, Param, RestRequest, Tool

__all__ = ["METHODS", "Operation", "ToolBuilder", "iter_operations"]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"})
_TOOL_DESCRIPTION_LIMIT = 1_200


@dataclass(frozen=True, slots=True)
class Operation:
    method: str
    path: str
    item: Mapping[str, Any]
    op: Mapping[str, Any]

    @property
    def operation_id(self) -> str | None:
        found = self.op.get("operationId")
        return found if isinstance(found, str) and found.strip() else None

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def tags(self) -> list[str]:
        tags = self.op.get("tags")
        return [str(t) for t in tags] if isinstance(tags, list) else []


def iter_operations(document: Mapping[str, Any], resolver: Resolver) -> Iterator[Operation | tuple[str, str]]:
    """Every operation in document order; a (label, reason) pair for an unreadable path item."""
    paths = document.get("paths")
    if not isinstance(paths, Mapping):
        return
    for path, raw_item in paths.items():
        path = str(path)
        try:
            item = resolver.deref(raw_item)
        except RefError as exc:
            yield f"* {path}", str(exc)
            continue
        if not isinstance(item, Mapping):
            continue
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, Mapping):
                yield Operation(method.upper(), path, item, op)


class ToolBuilder:
    """Builds tools for one document; conversions are shared between its operations."""

    def __init__(self, document: Mapping[str, Any], resolver: Resolver, security: SecurityMap, version: str) -> None:
        self.document = document
        self.resolver = resolver
        self.swagger2 = version.startswith("2")
        self.converter = Converter(resolver, version)
        self.params = ParamConverter(self.converter, self.swagger2)
        self.security = security

    def build(self, operation: Operation, name: str) -> Tool:
        """The tool for `operation`. Raises Unsupported or RefError."""
        op = operation.op
        raw_params = all_parameters(operation.item, op, self.resolver)
        api_params = collect(raw_params, operation.path, self.params)
        body: Body | None
        encoding: BodyEncoding = "json"
        if self.swagger2:
            body, fields, encoding = swagger_body(raw_params, op, self.document, self.converter)
            api_params += [ApiParam(f.name, "form", f.schema, f.required, "form", True) for f in fields]
            if body is not None:
                encoding = "json"
        else:
            body = request_body(op, self.resolver, self.converter)
            if body is not None:
                encoding = body.encoding
        flag = op.get("x-forge-write")
        write = flag if isinstance(flag, bool) else operation.method in WRITE_METHODS
        reserved = {"confirm"} if write else set()
        body_arg = None
        if body is not None:
            taken = {p.name for p in api_params}
            body_arg = next(n for n in ("body", "request_body", "body_") if n not in taken)
            reserved.add(body_arg)
        params: list[Param] = []
        groups: dict[str, list[Binding]] = {"path": [], "query": [], "header": [], "cookie": [], "form": []}
        for api, argument in assign_names(api_params, reserved):
            param, binding = to_model(api, argument)
            params.append(param)
            groups[api.location].append(binding)
        if body is not None and body_arg is not None:
            params.append(Param(body_arg, body.schema, required=body.required, send_default=False))
        request = RestRequest(
            method=operation.method,
            path=operation.path,
            path_params=tuple(groups["path"]),
            query=tuple(groups["query"]),
            headers=tuple(groups["header"]),
            cookies=tuple(groups["cookie"]),
            body=tuple(groups["form"]),
            body_param=body_arg,
            body_encoding=encoding,
            indexed_arrays=body.indexed_arrays if body is not None else False,
        )
        return Tool(
            name=name,
            description=self._description(operation),
            params=tuple(params),
            request=request,
            write=write,
            annotations=Annotations(
                read_only=operation.method in ("GET", "HEAD"),
                destructive=write,
                idempotent=operation.method in IDEMPOTENT,
            ),
            response_schema=self._response(op),
            origin=operation.label,
            auth=self.security.for_operation(op),
        )

    def _description(self, operation: Operation) -> str:
        op = operation.op
        parts = [describe(op.get("summary"), 300), describe(op.get("description"), _TOOL_DESCRIPTION_LIMIT)]
        text = "\n\n".join(dict.fromkeys(p for p in parts if p))
        if len(text) > _TOOL_DESCRIPTION_LIMIT:
            text = text[: _TOOL_DESCRIPTION_LIMIT - 1].rstrip() + "…"
        if op.get("deprecated") is True:
            text = "(deprecated) " + text
        return text or operation.label

    def _response(self, op: Mapping[str, Any]) -> Mapping[str, Any] | None:
        responses = op.get("responses")
        if not isinstance(responses, Mapping):
            return None
        codes = sorted(str(c) for c in responses if str(c)[:1] == "2" and len(str(c)) == 3)
        if not codes:
            return None
        try:
            response = self.resolver.deref(responses[codes[0]] if codes[0] in responses else responses[int(codes[0])])
            schema = self._json_schema(response, op)
            return None if schema is None else self.converter.output(schema)
        except (RefError, ValueError, KeyError):
            return None

    def _json_schema(self, response: Any, op: Mapping[str, Any]) -> Any:
        if not isinstance(response, Mapping):
            return None
        if self.swagger2:
            produces = op.get("produces", self.document.get("produces"))
            if isinstance(produces, list) and produces and not any("json" in str(p) for p in produces):
                return None
            return response.get("schema")
        content = response.get("content")
        if not isinstance(content, Mapping):
            return None
        for media, entry in content.items():
            base = str(media).split(";")[0].strip().lower()
            if (base == "application/json" or base.endswith("+json")) and isinstance(entry, Mapping):
                return entry.get("schema")
        return None
