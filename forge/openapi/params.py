"""Path, query, header and cookie parameters -> arguments and their bindings.

Arguments are named after the API's parameter names (made legal); a location prefix
(`path_id`, `query_id`) is added only where two locations share a name. Path parameters
are always required. OpenAPI defaults describe what the server does, so they are shown
but never sent. Headers that OpenAPI says to ignore (Accept, Content-Type, Authorization)
are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from forge.openapi.naming import argument_name
from forge.openapi.refs import RefError, Resolver
from forge.openapi.schemas import Converter, conform_top, describe
from forge.openapi.values import json_value, small
from forge.spec import PATH_PLACEHOLDER, Binding, Param

__all__ = ["ApiParam", "Unsupported", "assign_names", "collect"]

LOCATIONS = ("path", "query", "header", "cookie")
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_COLLECTION = {
    "csv": ("form", False),
    "ssv": ("spaceDelimited", False),
    "pipes": ("pipeDelimited", False),
    "tsv": ("form", False),
    "multi": ("form", True),
}


class Unsupported(Exception):
    """An operation that cannot become a tool; the message says why."""


@dataclass(frozen=True, slots=True)
class ApiParam:
    """One API parameter, converted: where it goes and its argument schema."""

    name: str
    location: str
    schema: Mapping[str, Any]
    required: bool
    style: str
    explode: bool


def _merged(path_item: Mapping[str, Any], operation: Mapping[str, Any], resolver: Resolver) -> list[Any]:
    by_key: dict[tuple[str, str], Any] = {}
    for source in (path_item.get("parameters"), operation.get("parameters")):
        if not isinstance(source, list):
            continue
        for raw in source:
            param = resolver.deref(raw)
            if isinstance(param, Mapping) and isinstance(param.get("name"), str):
                by_key[(param["name"], str(param.get("in")))] = param
    return list(by_key.values())


def all_parameters(path_item: Mapping[str, Any], operation: Mapping[str, Any], resolver: Resolver) -> list[Any]:
    """Path-level and operation-level parameters, dereferenced (the operation's win)."""
    return _merged(path_item, operation, resolver)


class ParamConverter:
    """Converts parameter objects once each (GitHub shares `owner`, `repo`, ... everywhere)."""

    def __init__(self, converter: Converter, swagger2: bool) -> None:
        self.converter = converter
        self.swagger2 = swagger2
        self._memo: dict[int, ApiParam] = {}

    def convert(self, param: Mapping[str, Any]) -> ApiParam:
        key = id(param)
        if key not in self._memo:
            self._memo[key] = self._convert(param)
        return self._memo[key]

    def _convert(self, param: Mapping[str, Any]) -> ApiParam:
        location = str(param.get("in"))
        if self.swagger2:
            schema = dict(self.converter.input({k: v for k, v in param.items() if k not in ("name", "in")}))
            style, explode = _COLLECTION.get(str(param.get("collectionFormat", "csv")), ("form", False))
            if location in ("path", "header"):
                style = "simple"
        else:
            schema = dict(self.converter.input(_schema_of(param)))
            given = param.get("style")
            style = given if isinstance(given, str) else ("form" if location in ("query", "cookie") else "simple")
            explode = param["explode"] if isinstance(param.get("explode"), bool) else style == "form"
        desc = describe(param.get("description"))
        if desc:
            schema["description"] = desc
        examples = _examples(param)
        if examples:
            schema["examples"] = examples
        if param.get("deprecated") is True:
            schema["deprecated"] = True
        required = location == "path" or param.get("required") is True
        name = str(param["name"])
        if style == "deepObject" and schema.get("type") == "array":
            # deepObject is defined for objects only; for arrays, APIs (Stripe's `expand`)
            # read the bracket convention: expand[]=a&expand[]=b.
            name, style, explode = (name if name.endswith("[]") else name + "[]"), "form", True
        return ApiParam(name, location, conform_top(schema), required, style, explode)


def _schema_of(param: Mapping[str, Any]) -> Any:
    if "schema" in param:
        return param["schema"]
    content = param.get("content")
    if isinstance(content, Mapping):
        for media in content.values():
            if isinstance(media, Mapping) and "schema" in media:
                return media["schema"]
    return {"type": "string"}


def _examples(param: Mapping[str, Any]) -> list[Any]:
    if "example" in param and small(param["example"]):
        return [json_value(param["example"])]
    found = param.get("examples")
    if isinstance(found, Mapping):
        values = [e["value"] for e in found.values() if isinstance(e, Mapping) and "value" in e]
        return [json_value(v) for v in values[:3] if small(v)]
    return []


def collect(raw_params: Iterable[Any], path: str, converter: ParamConverter) -> list[ApiParam]:
    """Converted path/query/header/cookie parameters, plus any undeclared path placeholder."""
    params: list[ApiParam] = []
    placeholders = PATH_PLACEHOLDER.findall(path)
    for raw in raw_params:
        location = raw.get("in")
        if location not in LOCATIONS:
            continue
        if location == "header" and str(raw["name"]).lower() in _IGNORED_HEADERS:
            continue
        if location == "path" and raw["name"] not in placeholders:
            continue
        try:
            params.append(converter.convert(raw))
        except RefError:
            raise
        except (TypeError, ValueError, KeyError) as exc:
            raise Unsupported(f"parameter {raw.get('name')!r} cannot be read: {exc}") from None
    declared = {p.name for p in params if p.location == "path"}
    for name in placeholders:
        if name not in declared:
            params.append(ApiParam(name, "path", {"type": "string"}, True, "simple", False))
            declared.add(name)
    return params


def assign_names(params: list[ApiParam], reserved: set[str]) -> list[tuple[ApiParam, str]]:
    """Each parameter with its argument name: prefixed by location only where names clash."""
    counts: dict[str, int] = {}
    for p in params:
        base = argument_name(p.name)
        counts[base] = counts.get(base, 0) + 1
    taken = set(reserved)
    named: list[tuple[ApiParam, str]] = []
    for p in params:
        base = argument_name(p.name)
        name = base if counts[base] == 1 and base not in reserved else argument_name(f"{p.location}_{p.name}")
        suffix = 2
        candidate = name
        while candidate in taken:
            candidate = f"{name}_{suffix}"
            suffix += 1
        taken.add(candidate)
        named.append((p, candidate))
    return named


def to_model(p: ApiParam, argument: str) -> tuple[Param, Binding]:
    return (
        Param(argument, p.schema, required=p.required, send_default=False),
        Binding(field=p.name, param=argument, style=p.style, explode=p.explode),
    )
