"""Pure: a tool's JSON Schemas (input and output) and argument validation.

See https://modelcontextprotocol.io/specification/2025-11-25/server/tools for the
shape MCP requires (an object input schema; an object output schema).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema loads on the first validation, not at startup
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

from forge.spec import Tool

__all__ = [
    "CONFIRM",
    "input_schema",
    "meta_schema_problem",
    "output_schema",
    "validate_arguments",
    "validate_response",
]

CONFIRM = "confirm"
_CONFIRM_SCHEMA = {
    "type": "string",
    "description": (
        "Leave out on the first call: nothing is sent and a preview with a token is returned. "
        "To send, call again with the same arguments and confirm set to that token."
    ),
}


def input_schema(tool: Tool) -> dict[str, Any]:
    """The tool's MCP `inputSchema`: its params, plus `confirm` for writes."""
    properties: dict[str, Any] = {p.name: dict(p.schema) for p in tool.params}
    if tool.write:
        properties[CONFIRM] = _CONFIRM_SCHEMA
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [p.name for p in tool.params if p.required]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def output_schema(tool: Tool) -> dict[str, Any] | None:
    """The tool's MCP `outputSchema`, or None when the API documents no JSON response.

    The documented body goes under `result`. A body that drifts from the document goes
    under `unvalidated` with a `drift` list instead, so the structured content always
    conforms to what is declared and a validating client accepts it: drift is reported,
    never turned into a failed call.
    """
    if tool.response_schema is None:
        return None
    return {
        "type": "object",
        "properties": {
            "result": dict(tool.response_schema),
            "unvalidated": {"description": "The response body, when it does not match the documented schema."},
            "drift": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Where the response differs from the API's documented schema.",
            },
            "note": {"type": "string", "description": "Why there is no response: a held write, a dry run."},
        },
    }


@lru_cache(maxsize=4096)
def _validator_for(tool: Tool) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(input_schema(tool))


def _location(error: ValidationError) -> str:
    return "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")


def validate_arguments(tool: Tool, arguments: Mapping[str, Any]) -> list[str]:
    """Every problem with `arguments`, one readable line each (empty when valid)."""
    problems = []
    for error in sorted(_validator_for(tool).iter_errors(dict(arguments)), key=lambda e: list(e.absolute_path)):
        where = _location(error)
        if error.validator == "required":
            missing = error.message.split("'")[1] if "'" in error.message else error.message
            problems.append(f"missing required argument {missing!r}")
        elif error.validator == "additionalProperties" and not where:
            extras = sorted(set(arguments) - set(error.schema.get("properties", {})))
            problems.append(
                f"unknown argument {', '.join(repr(e) for e in extras)}; "
                f"expected one of: {', '.join(sorted(error.schema.get('properties', {})))}"
            )
        else:
            problems.append(f"argument {where!r}: {error.message}" if where else error.message)
    return problems


@lru_cache(maxsize=4096)
def _response_validator(tool: Tool) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(dict(tool.response_schema or {}))


def validate_response(tool: Tool, body: Any, limit: int = 10) -> list[str]:
    """Where `body` differs from the tool's documented response schema (empty when it conforms)."""
    if tool.response_schema is None:
        return []
    drift = []
    for error in _response_validator(tool).iter_errors(body):
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        drift.append(f"{path}: {error.message}")
        if len(drift) >= limit:
            break
    return drift


_META = "https://json-schema.org/draft/2020-12/"
_META_SKIP = frozenset({"$schema", "$id", "$vocabulary", "$dynamicAnchor", "$comment", "title"})


def _static(node: Any) -> Any:
    """A meta-schema fragment with `$dynamicRef: #meta` bound to the top (`$ref: #`)."""
    if isinstance(node, dict):
        return {
            ("$ref" if k == "$dynamicRef" else k): ("#" if k == "$dynamicRef" else _static(v))
            for k, v in node.items()
            if k not in _META_SKIP
        }
    return [_static(v) for v in node] if isinstance(node, list) else node


@lru_cache(maxsize=1)
def _meta_validator() -> Draft202012Validator:
    """Draft 2020-12's meta-schema with its vocabularies merged into one schema.

    The standard meta-schema is an `allOf` of seven vocabulary schemas that recurse through
    `$dynamicRef`, which jsonschema resolves slowly (about 12 ms per parameter schema of
    GitHub's document). Nothing here extends the meta-schema, so every `$dynamicRef` resolves
    to the top and a static `$ref: #` is equivalent: the same errors, several times faster.
    """
    from jsonschema import Draft202012Validator
    from jsonschema_specifications import REGISTRY

    top = REGISTRY.contents(_META + "schema")
    merged: dict[str, Any] = {"type": ["object", "boolean"], "properties": {}, "$defs": {}}
    for part in top["allOf"]:
        vocabulary = _static(REGISTRY.contents(_META + part["$ref"]))
        merged["properties"].update(vocabulary.get("properties", {}))
        merged["$defs"].update(vocabulary.get("$defs", {}))
    for key, value in _static(top.get("properties", {})).items():
        merged["properties"].setdefault(key, value)
    return Draft202012Validator(merged, format_checker=Draft202012Validator.FORMAT_CHECKER)


@lru_cache(maxsize=8192)
def _meta_problem(canonical: str) -> str | None:
    error = next(iter(_meta_validator().iter_errors(json.loads(canonical))), None)
    return None if error is None else error.message


def meta_schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON Schema (draft 2020-12, formats checked), or None.

    Equivalent to `Draft202012Validator.check_schema`; identical schemas (OpenAPI documents
    repeat their parameters) are checked once.
    """
    return _meta_problem(json.dumps(schema, sort_keys=True, default=str))
