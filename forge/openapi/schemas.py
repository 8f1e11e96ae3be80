"""OpenAPI Schema Objects (2.0, 3.0, 3.1) -> JSON Schema 2020-12, compact and finite.

- `$ref`s are inlined through a memo: each (reference, depth budget) is converted once
  per document, so GitHub's thousands of references cost one conversion each.
- Recursion ends in a marked placeholder (`(recursive: #/components/schemas/Node)`),
  and references nested deeper than the budget in an abbreviated one: both accept any
  value, so a placeholder can never make a valid value invalid.
- 3.0 `nullable` and 2.0 `x-nullable` become type unions; boolean exclusive bounds become
  numbers; keywords that are not JSON Schema (`xml`, `discriminator`, `example`, ...)
  are dropped, and values that would make the schema invalid (a bad regex, a negative
  length) are left out, so every result passes the 2020-12 meta-schema.
- In request bodies `readOnly` properties are dropped; in responses `writeOnly` ones.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from forge.openapi.refs import RefError, Resolver
from forge.openapi.values import json_value, small

__all__ = ["Converter", "Mode"]

Mode = Literal["input", "output"]

_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})
_NUMBERS = ("minimum", "maximum")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
_BOUND_KEYS = frozenset(
    ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern", *_COUNTS)
)
_DESCRIPTION_LIMIT = 1_000
INPUT_LIMIT = 40_000  # characters of one argument's schema
OUTPUT_LIMIT = 40_000
_FEW_REFS = 8  # fewer references than this cannot blow a schema up: skip measuring it


def _regex_ok(pattern: Any) -> bool:
    if not isinstance(pattern, str):
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a pattern Python only warns about is dropped too
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError, Warning):
            return False
    return True


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def describe(text: Any, limit: int = _DESCRIPTION_LIMIT) -> str | None:
    if not isinstance(text, str) or not text.strip():
        return None
    clean: str = text.strip()
    return clean if len(clean) <= limit else clean[: limit - 1].rstrip() + "…"


@dataclass(frozen=True, slots=True)
class _Ctx:
    mode: Mode
    budget: int
    descriptions: bool


class Converter:
    """Converts schemas of one document. Results are shared between tools: never mutate them."""

    def __init__(self, resolver: Resolver, version: str, *, input_depth: int = 8, output_depth: int = 1) -> None:
        self.resolver = resolver
        self.nullable_key = "x-nullable" if version.startswith("2") else "nullable"
        self.v31 = version.startswith("3.1")
        self.input_depth = input_depth
        self.output_depth = output_depth
        self._memo: dict[tuple[str, _Ctx], tuple[dict[str, Any], int]] = {}
        self._sizes: dict[int, tuple[Any, int]] = {}
        self._expanded = 0
        self._stack: list[str] = []
        self._cut = 1 << 30

    def input(self, node: Any) -> dict[str, Any]:
        """A schema for an argument (raises RefError for a remote or missing reference).

        References nest up to `input_depth` deep; a schema that would still be larger than
        INPUT_LIMIT characters (shared definitions inlined many times over, as in DocuSign's
        or Microsoft Graph's documents) is converted again with shallower references.
        """
        out: dict[str, Any] = {}
        for depth in dict.fromkeys((self.input_depth, 4, 2, 1, 0)):
            out = self._convert(node, _Ctx("input", depth, True))
            if self._expanded < _FEW_REFS or self.size(out) <= INPUT_LIMIT:
                break
        return out

    def output(self, node: Any) -> dict[str, Any]:
        """A schema for a response body: references nest at most `output_depth` deep, no descriptions."""
        out = self._convert(node, _Ctx("output", self.output_depth, False))
        if self.output_depth > 0 and self._expanded >= _FEW_REFS and self.size(out) > OUTPUT_LIMIT:
            out = self._convert(node, _Ctx("output", 0, False))
        return out

    def size(self, node: Any) -> int:
        """About how many characters `node` serializes to, without serializing it.

        Converted schemas share subtrees, so sizes are memoized per object (which the memo
        keeps alive, so an id is never reused while it is a key).
        """
        if isinstance(node, str):
            return len(node) + 2
        if not isinstance(node, (dict, list)):
            return 6
        found = self._sizes.get(id(node))
        if found is not None:
            return found[1]
        if isinstance(node, dict):
            total = 2 + sum(len(k) + 4 + self.size(v) for k, v in node.items())
        else:
            total = 2 + sum(self.size(v) + 1 for v in node)
        self._sizes[id(node)] = (node, total)
        return total

    def _convert(self, node: Any, ctx: _Ctx) -> dict[str, Any]:
        self._expanded = 0
        self._stack.clear()
        self._cut = 1 << 30
        return self._schema(node, ctx)

    def _ref(self, ref: str, ctx: _Ctx) -> dict[str, Any]:
        if ref in self._stack:
            self._cut = min(self._cut, self._stack.index(ref))
            return {"description": f"(recursive: {ref})"}
        target = self.resolver.lookup(ref)  # RefError propagates: remote or missing
        if ctx.budget <= 0:
            return {"description": f"(abbreviated: {ref})"}
        key = (ref, ctx)
        memo = self._memo.get(key)
        if memo is not None:
            self._expanded += memo[1]
            return memo[0]
        level = len(self._stack)
        outer_cut, self._cut = self._cut, 1 << 30
        outer_expanded, self._expanded = self._expanded, 1
        self._stack.append(ref)
        try:
            out = self._schema(target, _Ctx(ctx.mode, ctx.budget - 1, ctx.descriptions))
        finally:
            self._stack.pop()
        if self._cut >= level:  # no cut to a reference outside this one: context-free
            self._memo[key] = (out, self._expanded)
        self._cut = min(outer_cut, self._cut)
        self._expanded += outer_expanded
        return out

    def _schema(self, node: Any, ctx: _Ctx) -> dict[str, Any]:
        if not isinstance(node, dict):
            return {} if node is not False else {"not": {}}
        ref = node.get("$ref")
        if isinstance(ref, str):
            out = self._ref(ref, ctx)
            desc = describe(node.get("description")) if ctx.descriptions else None
            return {**out, "description": desc} if desc and desc != out.get("description") else out
        if ref is not None:
            raise RefError(str(ref), "is not a string")
        return self._object(node, ctx)

    def _part(self, node: Any, ctx: _Ctx) -> dict[str, Any]:
        """An `allOf` member: composition at the same level, so a reference costs no depth."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            return self._schema(node, _Ctx(ctx.mode, ctx.budget + 1, ctx.descriptions))
        return self._schema(node, ctx)

    def _object(self, node: Mapping[str, Any], ctx: _Ctx) -> dict[str, Any]:
        out: dict[str, Any] = {}
        nullable = node.get(self.nullable_key) is True
        kind = node.get("type")
        if kind == "file":
            out["type"] = "string"
            out["format"] = "binary"
        elif isinstance(kind, str) and kind in _TYPES:
            out["type"] = kind
        elif isinstance(kind, list):
            kinds = [k for k in dict.fromkeys(kind) if isinstance(k, str) and k in _TYPES]
            if kinds:
                out["type"] = kinds[0] if len(kinds) == 1 else kinds
        if ctx.descriptions:
            desc = describe(node.get("description")) or describe(node.get("title"), 200)
            if desc:
                out["description"] = desc
        fmt = node.get("format")
        if isinstance(fmt, str) and "format" not in out:
            out["format"] = fmt
        enum = node.get("enum")
        if isinstance(enum, list) and enum:
            out["enum"] = json_value(enum)
        for key in ("const", "default"):
            if key in node:
                out[key] = json_value(node[key])
        if ctx.mode == "input":
            self._examples(node, out)
        self._bounds(node, out)
        if node.get("uniqueItems") is True:
            out["uniqueItems"] = True
        if node.get("deprecated") is True:
            out["deprecated"] = True
        self._children(node, out, ctx)
        if nullable:
            out = _nullable(out)
        return out

    def _examples(self, node: Mapping[str, Any], out: dict[str, Any]) -> None:
        examples = node.get("examples")
        if isinstance(examples, list) and examples:
            kept = [json_value(e) for e in examples[:3] if small(e)]
            if kept:
                out["examples"] = kept
        elif "example" in node and small(node["example"]):
            out["examples"] = [json_value(node["example"])]

    def _bounds(self, node: Mapping[str, Any], out: dict[str, Any]) -> None:
        if _BOUND_KEYS.isdisjoint(node):
            return
        for key in _NUMBERS:
            if _number(node.get(key)):
                out[key] = node[key]
        for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            value = node.get(key)
            if value is True and bound in out:
                out[key] = out.pop(bound)
            elif _number(value):
                out[key] = value
        if _number(node.get("multipleOf")) and node["multipleOf"] > 0:
            out["multipleOf"] = node["multipleOf"]
        for key in _COUNTS:
            if _count(node.get(key)):
                out[key] = node[key]
        if _regex_ok(node.get("pattern")):
            out["pattern"] = node["pattern"]

    def _children(self, node: Mapping[str, Any], out: dict[str, Any], ctx: _Ctx) -> None:
        props = node.get("properties")
        dropped: set[str] = set()
        if isinstance(props, dict) and props:
            hidden = "readOnly" if ctx.mode == "input" else "writeOnly"
            converted: dict[str, Any] = {}
            for name, sub in props.items():
                if isinstance(sub, dict) and sub.get(hidden) is True:
                    dropped.add(str(name))
                    continue
                converted[str(name)] = self._schema(sub, ctx)
            out["properties"] = converted
        required = node.get("required")
        if isinstance(required, list):
            names = [r for r in dict.fromkeys(required) if isinstance(r, str) and r not in dropped]
            if names:
                out["required"] = names
        extra = node.get("additionalProperties")
        if isinstance(extra, bool):
            out["additionalProperties"] = extra
        elif isinstance(extra, dict):
            out["additionalProperties"] = self._schema(extra, ctx)
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict):
            kept = {str(k): self._schema(v, ctx) for k, v in patterns.items() if _regex_ok(k)}
            if kept:
                out["patternProperties"] = kept
        items = node.get("items")
        if isinstance(items, dict):
            out["items"] = self._schema(items, ctx)
        elif isinstance(items, list) and items:
            out["prefixItems"] = [self._schema(i, ctx) for i in items]
        for key in ("allOf", "anyOf", "oneOf"):
            subs = node.get(key)
            if isinstance(subs, list) and subs:
                out[key] = [self._part(s, ctx) if key == "allOf" else self._schema(s, ctx) for s in subs]
        if isinstance(node.get("not"), dict):
            out["not"] = self._schema(node["not"], ctx)


def _nullable(out: dict[str, Any]) -> dict[str, Any]:
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"] if kind != "null" else "null"
    elif isinstance(kind, list):
        if "null" not in kind:
            out["type"] = [*kind, "null"]
    else:
        return {"anyOf": [out, {"type": "null"}]}
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def conform_top(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop a top-level `default` or `enum` values that the schema itself rejects.

    Documents get these wrong (`type: integer, default: "10"`); forge checks them, so an
    argument keeps only the values that validate.
    """
    if "default" not in schema and "enum" not in schema:
        return schema
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator({k: v for k, v in schema.items() if k != "default"})
    out = dict(schema)
    if "default" in out and not validator.is_valid(out["default"]):
        del out["default"]
    if "enum" in out:
        bare = Draft202012Validator({k: v for k, v in schema.items() if k not in ("default", "enum")})
        kept = [v for v in out["enum"] if bare.is_valid(v)]
        if kept:
            out["enum"] = kept
        else:
            del out["enum"]
            out.pop("default", None)
    return out
