"""Pure: valid argument values for a tool, and a different valid value per parameter.

Gate checks need an argument set (a tool's first example, or one generated from the
parameter schemas) and, for each parameter, another valid value that changes the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge.spec import Param, RestRequest, Tool

__all__ = ["UNCHANGEABLE", "arguments_for", "identity_params", "other_value", "sample_value"]


class _Unchangeable:
    def __repr__(self) -> str:
        return "UNCHANGEABLE"


UNCHANGEABLE: Any = _Unchangeable()


def sample_value(schema: Mapping[str, Any]) -> Any:
    """A valid value for `schema` (the default or first enum value when there is one)."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        value = max(1, int(schema.get("minimum", 1)))
        return value if kind == "integer" else value + 0.5
    if kind == "array":
        return [sample_value(schema.get("items") or {"type": "string"})]
    if kind == "object":
        properties = schema.get("properties")
        if isinstance(properties, Mapping) and properties:
            return {name: sample_value(sub) for name, sub in properties.items()}
        return {"forge_field": "a"}
    fmt = schema.get("format")
    if fmt == "email":
        return "first@example.com"
    if fmt == "date":
        return "2024-01-02"
    if fmt == "date-time":
        return "2024-01-02T03:04:05Z"
    return "forge-sample"


def other_value(schema: Mapping[str, Any], current: Any) -> Any:
    """A valid value for `schema` that differs from `current`, or UNCHANGEABLE."""
    if schema.get("enum"):
        return next((v for v in schema["enum"] if v != current), UNCHANGEABLE)
    kind = schema.get("type")
    if kind == "boolean":
        return not current
    if kind in ("integer", "number") and isinstance(current, (int, float)):
        maximum = schema.get("maximum")
        return current - 1 if maximum is not None and current + 1 > maximum else current + 1
    if kind == "array":
        items = schema.get("items") or {"type": "string"}
        if isinstance(current, list) and current:
            changed = other_value(items, current[0])
            return UNCHANGEABLE if changed is UNCHANGEABLE else [changed, *current[1:]]
        return [sample_value(items)]
    if kind == "object" and isinstance(current, Mapping):
        if not current:
            return {"forge_field": "a"}
        key = next(iter(current))
        properties = schema.get("properties") or {}
        sub = properties.get(key) if isinstance(properties, Mapping) else None
        changed = other_value(sub or {"type": "string"}, current[key])
        return UNCHANGEABLE if changed is UNCHANGEABLE else {**current, key: changed}
    fmt = schema.get("format")
    if fmt == "email":
        return "second@example.com" if current != "second@example.com" else "third@example.com"
    if fmt == "date":
        return "2024-03-04" if current != "2024-03-04" else "2024-05-06"
    if fmt == "date-time":
        return "2024-03-04T05:06:07Z" if current != "2024-03-04T05:06:07Z" else "2024-05-06T07:08:09Z"
    return f"{current}-changed" if isinstance(current, str) else "forge-other"


def arguments_for(tool: Tool) -> dict[str, Any]:
    """The tool's first example, with every other parameter filled, so each one can be varied."""
    arguments: dict[str, Any] = dict(tool.examples[0]) if tool.examples else {}
    for param in tool.params:
        if param.name not in arguments:
            arguments[param.name] = sample_value(param.schema)
    return arguments


def identity_params(tool: Tool) -> list[Param]:
    """The parameters that pick a record: path parameters first, then required ones."""
    in_path: list[Param] = []
    if isinstance(tool.request, RestRequest):
        names = {b.param for b in tool.request.path_params}
        in_path = [p for p in tool.params if p.name in names]
    ordered = in_path + [p for p in tool.params if p.required] + list(tool.params)
    return [p for i, p in enumerate(ordered) if p.name not in {q.name for q in ordered[:i]}]
