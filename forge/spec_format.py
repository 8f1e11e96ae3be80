"""The JSON Schema of forge's spec format (`forge schema` prints it).

Editors validate spec files that carry `"$schema"` against it; the loader validates
every spec with it before compiling, so shape errors never reach the compiler.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCHEMA_ID", "SPEC_SCHEMA"]

SCHEMA_ID = "https://forge.dev/schema/spec-1.json"

_NAME = {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"}
_ENV = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "description": "An environment variable name."}
_MAPPING = {
    "type": "object",
    "description": "API field name -> parameter name.",
    "additionalProperties": {"type": "string"},
}


def _auth(kind: str, required: list[str], **extra: Any) -> dict[str, Any]:
    props: dict[str, Any] = {"kind": {"const": kind}, **extra}
    return {"type": "object", "properties": props, "required": ["kind", *required], "additionalProperties": False}


SPEC_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "forge spec",
    "description": "An HTTP API described as MCP tools. See forge's README for the reference.",
    "type": "object",
    "properties": {
        "$schema": {"type": "string"},
        "name": {**_NAME, "description": "The server's name; also the namespace of its tools."},
        "description": {"type": "string"},
        "instructions": {"type": "string", "description": "Handed to clients as the server's instructions."},
        "openapi": {
            "type": "string",
            "description": "An OpenAPI document (path relative to this spec) the tools are chosen from.",
        },
        "transport": {"$ref": "#/$defs/transport"},
        "tools": {"type": "array", "items": {"type": "object"}},
        "credential_passthrough": {
            "type": "object",
            "description": (
                "Request header -> credential variable. When served over HTTP, the variable is "
                "taken from the caller's request header (each caller acts with their own "
                "credential) instead of the server's environment. Off when absent."
            ),
            "propertyNames": {"pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$"},
            "additionalProperties": _ENV,
            "minProperties": 1,
        },
        "confirm": {
            "enum": ["token", "elicit"],
            "description": (
                "How writes are confirmed when served: a token (default) or by asking the person "
                "through elicitation, falling back to the token where the client cannot be asked."
            ),
        },
    },
    "required": ["name", "tools"],
    "additionalProperties": False,
    "if": {"required": ["openapi"]},
    "then": {"properties": {"tools": {"items": {"$ref": "#/$defs/curated_tool"}}}},
    "else": {
        "required": ["transport"],
        "properties": {"tools": {"items": {"$ref": "#/$defs/tool"}}},
    },
    "$defs": {
        "auth": {
            "description": "Credentials, read from environment variables at call time.",
            "oneOf": [
                _auth("none", []),
                _auth("bearer", ["env"], env=_ENV),
                _auth("basic", ["env"], env=_ENV, password_env=_ENV),
                _auth("header", ["header", "env"], header={"type": "string", "minLength": 1}, env=_ENV),
                _auth("query", ["param", "env"], param={"type": "string", "minLength": 1}, env=_ENV),
            ],
        },
        "transport": {
            "type": "object",
            "properties": {
                "kind": {"enum": ["rest", "graphql"]},
                "url": {"type": "string", "description": "Base URL; may contain ${ENV_VAR}, expanded at call time."},
                "auth": {"$ref": "#/$defs/auth"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "timeout": {"type": "number", "exclusiveMinimum": 0},
                "max_response_chars": {"type": "integer", "minimum": 100},
                "schema": {
                    "type": "string",
                    "description": "GraphQL schema (SDL or introspection JSON), relative path.",
                },
            },
            "required": ["kind", "url"],
            "additionalProperties": False,
        },
        "param": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "pattern": "^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$"},
                "type": {"enum": ["string", "integer", "number", "boolean", "array", "object"]},
                "description": {"type": "string"},
                "required": {"type": "boolean"},
                "default": {},
                "enum": {"type": "array", "minItems": 1},
                "items": {"type": "object", "description": "JSON Schema of array items."},
                "format": {"type": "string"},
            },
            "required": ["name", "type"],
            "additionalProperties": False,
        },
        "request": {
            "type": "object",
            "properties": {
                "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]},
                "path": {"type": "string"},
                "query": _MAPPING,
                "body": _MAPPING,
                "headers": _MAPPING,
                "encoding": {"enum": ["json", "form", "multipart"]},
            },
            "required": ["method", "path"],
            "additionalProperties": False,
        },
        "examples": {"type": "array", "items": {"type": "object"}},
        "tool": {
            "type": "object",
            "properties": {
                "name": _NAME,
                "description": {"type": "string", "minLength": 1},
                "params": {"type": "array", "items": {"$ref": "#/$defs/param"}},
                "write": {
                    "type": "boolean",
                    "description": (
                        "Held until confirmed when true. Required (true or false) when the request can "
                        "change data: a method other than GET, HEAD or OPTIONS, or a GraphQL mutation."
                    ),
                },
                "request": {"$ref": "#/$defs/request"},
                "query": {"type": "string", "description": "A GraphQL document holding one operation."},
                "variables": {"type": "array", "items": {"type": "string"}},
                "examples": {"$ref": "#/$defs/examples"},
                "auth": {"$ref": "#/$defs/auth", "description": "Overrides the transport's auth for this tool."},
            },
            "required": ["name", "description"],
            "oneOf": [{"required": ["request"]}, {"required": ["query"]}],
            "additionalProperties": False,
        },
        "curated_tool": {
            "type": "object",
            "properties": {
                "operation": {"type": "string", "description": "operationId, or 'METHOD /path'."},
                "name": _NAME,
                "description": {"type": "string", "minLength": 1},
                "params": {
                    "type": "object",
                    "description": "Parameter name -> description override.",
                    "additionalProperties": {"type": "string"},
                },
                "write": {"type": "boolean"},
                "examples": {"$ref": "#/$defs/examples"},
            },
            "required": ["operation"],
            "additionalProperties": False,
        },
    },
}
