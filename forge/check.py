"""Pure static checks of a compiled Spec: everything `forge check` proves.

Each check has a stable name (the `check` of the issues it returns) so the pytest plugin
can turn every (check, tool) pair into its own test.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from forge.issues import Issue
from forge.schema import CONFIRM, meta_schema_problem
from forge.spec import GraphQLOperation, RestRequest, Spec, Tool

if TYPE_CHECKING:
    from graphql import GraphQLSchema

# graphql-core is imported inside the GraphQL checks only: REST and OpenAPI specs (GitHub's
# 1,223 operations) start without paying for it.

__all__ = ["MISSING_SCHEMA", "TOOL_CHECKS", "check_spec", "check_tool", "checks_for", "load_graphql_schema"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

ToolCheck = Callable[[Spec, Tool, "GraphQLSchema | None"], Iterator[str]]


def _path_placeholders(spec: Spec, tool: Tool, schema: GraphQLSchema | None) -> Iterator[str]:
    if not isinstance(tool.request, RestRequest):
        return
    bound = {b.field: b.param for b in tool.request.path_params}
    for placeholder in tool.request.placeholders():
        param = bound.get(placeholder, placeholder)
        found = tool.param(param)
        if found is None:
            yield f"path uses {{{placeholder}}}, which is not a parameter"
        elif not found.required:
            yield f"parameter {param!r} is in the path, so it must be required"


def _mappings(spec: Spec, tool: Tool, schema: GraphQLSchema | None) -> Iterator[str]:
    request = tool.request
    if not isinstance(request, RestRequest):
        return
    for where, bindings in (("query", request.query), ("body", request.body), ("headers", request.headers)):
        for binding in bindings:
            if tool.param(binding.param) is None:
                yield f"{where} field {binding.field!r} maps to {binding.param!r}, which is not a parameter"
    if request.body_param is not None and tool.param(request.body_param) is None:
        yield f"body maps to {request.body_param!r}, which is not a parameter"
    used = {b.param for b in request.bindings()} | {request.body_param}
    used |= {b.field for b in request.path_params} | set(request.placeholders())
    for param in tool.params:
        if param.name not in used:
            yield f"parameter {param.name!r} is not used by the request (not in path, query, headers or body)"


def _graphql_document(spec: Spec, tool: Tool, schema: GraphQLSchema | None) -> Iterator[str]:
    if isinstance(tool.request, GraphQLOperation):
        from forge.graphql import parse_problems

        yield from parse_problems(tool.request.document)


def _graphql_variables(spec: Spec, tool: Tool, schema: GraphQLSchema | None) -> Iterator[str]:
    if not isinstance(tool.request, GraphQLOperation):
        return
    from forge.graphql import operation_info

    info = operation_info(tool.request.document)
    if info is None or info.operation_count != 1:
        return
    declared = {v.name for v in info.declared}
    listed = set(tool.request.variables)
    for name in sorted(info.used - declared):
        yield f"query uses ${name}, which the operation does not declare"
    for name in sorted(declared - info.used):
        yield f"query declares ${name} but never uses it"
    for name in sorted(declared - listed):
        yield f"query declares ${name}, which is not listed in variables"
    for name in sorted(listed - declared):
        yield f"variables lists {name!r}, which the query does not declare"
    for name in sorted(listed):
        if tool.param(name) is None:
            yield f"variables lists {name!r}, which is not a parameter"
    for var in info.declared:
        param = tool.param(var.name)
        if var.non_null and not var.has_default and param is not None and not param.required:
            yield f"parameter {var.name!r} is required: ${var.name} is {var.type} with no default"
    for param in tool.params:
        if param.name not in listed:
            yield f"parameter {param.name!r} is not passed as a variable"


def _graphql_schema(spec: Spec, tool: Tool, schema: GraphQLSchema | None) -> Iterator[str]:
    if schema is not None and isinstance(tool.request, GraphQLOperation):
        from forge.graphql import schema_problems

        yield from schema_problems(schema, tool.request.document)


def _defaults(spec: Spec, tool: Tool, schema: GraphQLSchema | None) -> Iterator[str]:
    from jsonschema import Draft202012Validator

    for param in tool.params:
        problem = meta_schema_problem({k: v for k, v in param.schema.items() if k != "default"})
        if problem is not None:
            yield f"parameter {param.name!r}: invalid schema: {problem}"
            continue
        validator = Draft202012Validator(param.schema)
        if "default" in param.schema:
            for error in validator.iter_errors(param.schema["default"]):
                yield f"parameter {param.name!r}: default {param.schema['default']!r} does not match: {error.message}"
        for value in param.schema.get("enum", ()):
            for error in validator.iter_errors(value):
                yield f"parameter {param.name!r}: enum value {value!r} does not match: {error.message}"
        if tool.write and param.name == CONFIRM:
            yield f"parameter {CONFIRM!r} is reserved for the write gate's token"


TOOL_CHECKS: dict[str, ToolCheck] = {
    "path-placeholders": _path_placeholders,
    "mappings": _mappings,
    "graphql-document": _graphql_document,
    "graphql-variables": _graphql_variables,
    "graphql-schema": _graphql_schema,
    "params": _defaults,
}


def checks_for(tool: Tool, has_schema: bool) -> list[str]:
    """The names of the checks that apply to `tool`."""
    if isinstance(tool.request, GraphQLOperation):
        names = ["graphql-document", "graphql-variables", "params"]
        return names + (["graphql-schema"] if has_schema else [])
    return ["path-placeholders", "mappings", "params"]


def check_tool(spec: Spec, tool: Tool, name: str, schema: GraphQLSchema | None = None) -> list[Issue]:
    """Run one named check on one tool."""
    return [Issue(spec.label, message, tool.name, name) for message in TOOL_CHECKS[name](spec, tool, schema)]


def _names(spec: Spec) -> Iterator[Issue]:
    counts = Counter(t.name for t in spec.tools)
    for tool in spec.tools:
        if not _NAME.match(tool.name):
            yield Issue(spec.label, f"name {tool.name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$", tool.name, "names")
    for name, count in counts.items():
        if count > 1:
            yield Issue(spec.label, f"name {name!r} is used by {count} tools", name, "names")


MISSING_SCHEMA = "graphql-schema-file"  # a named schema file is absent: checks cannot validate against it


def load_graphql_schema(spec: Spec, override: Path | None = None) -> tuple[GraphQLSchema | None, list[Issue]]:
    """The GraphQL schema the spec names (or `override`), with an issue if it cannot be read."""
    path = override or spec.transport.schema
    if path is None:
        return None, []
    from graphql import GraphQLError

    from forge.graphql import load_schema

    field = "--schema" if override is not None else "transport.schema"
    try:
        return load_schema(path), []
    except FileNotFoundError:
        where = "" if override is not None else " (the path is relative to the spec file)"
        hint = "" if override is not None else "; pass --schema PATH to validate against a copy elsewhere"
        message = f"{field}: GraphQL schema file {str(path)!r} does not exist{where}{hint}"
        return None, [Issue(spec.label, message, None, MISSING_SCHEMA)]
    except OSError as exc:
        message = f"{field}: cannot read GraphQL schema {str(path)!r}: {exc.strerror or exc}"
    except (ValueError, GraphQLError, TypeError, KeyError) as exc:
        message = f"{field}: {str(path)!r} is not a GraphQL schema (SDL or introspection JSON): {exc}"
    return None, [Issue(spec.label, message, None, "graphql-schema")]


def check_spec(spec: Spec, schema_override: Path | None = None) -> list[Issue]:
    """Every static problem in `spec` (empty when it is valid)."""
    issues = list(_names(spec))
    schema: GraphQLSchema | None = None
    schema_issues: list[Issue] = []
    if spec.transport.kind == "graphql" or schema_override is not None:
        schema, schema_issues = load_graphql_schema(spec, schema_override)
    issues += schema_issues
    for tool in spec.tools:
        if spec.transport.kind == "rest" and isinstance(tool.request, GraphQLOperation):
            issues.append(Issue(spec.label, "a GraphQL 'query' needs transport.kind 'graphql'", tool.name, "format"))
            continue
        if spec.transport.kind == "graphql" and isinstance(tool.request, RestRequest):
            issues.append(Issue(spec.label, "a REST 'request' needs transport.kind 'rest'", tool.name, "format"))
            continue
        for name in checks_for(tool, schema is not None):
            issues += check_tool(spec, tool, name, schema)
    return issues
