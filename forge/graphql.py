"""Pure GraphQL checks (graphql-core): parsing, variable agreement, schema validation.

See https://spec.graphql.org/October2021/#sec-All-Variables-Used and
https://spec.graphql.org/October2021/#sec-All-Variable-Uses-Defined.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from graphql import (
    ExecutableDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    GraphQLSyntaxError,
    IntrospectionQuery,
    NonNullTypeNode,
    OperationDefinitionNode,
    Visitor,
    build_client_schema,
    build_schema,
    parse,
    print_ast,
    validate,
    validate_schema,
    visit,
)

__all__ = ["OperationInfo", "VariableInfo", "load_schema", "operation_info", "parse_problems", "schema_problems"]


@dataclass(frozen=True, slots=True)
class VariableInfo:
    name: str
    type: str
    non_null: bool
    has_default: bool


@dataclass(frozen=True, slots=True)
class OperationInfo:
    """What a one-operation document declares and uses."""

    name: str | None
    kind: str
    declared: tuple[VariableInfo, ...]
    used: frozenset[str]
    operation_count: int


class _Uses(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.used: set[str] = set()

    def enter_variable_definition(self, *_: Any) -> Any:
        return self.SKIP  # a definition's own Variable node is not a use

    def enter_variable(self, node: Any, *_: Any) -> None:
        self.used.add(node.name.value)


def parse_problems(document: str) -> list[str]:
    """Syntax problems and operation count, as readable lines (empty when fine)."""
    try:
        doc = parse(document)
    except GraphQLSyntaxError as exc:
        where = f" at line {exc.locations[0].line}, column {exc.locations[0].column}" if exc.locations else ""
        return [f"query does not parse: {exc.message}{where}"]
    problems = [
        f"query holds a type-system definition ({d.kind.replace('_', ' ')}), which cannot be sent: "
        "only an operation and its fragments can"
        for d in doc.definitions
        if not isinstance(d, ExecutableDefinitionNode)
    ]
    ops = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    if len(ops) != 1:
        problems.append(f"query must hold exactly one operation, found {len(ops)}")
    return problems


def operation_info(document: str) -> OperationInfo | None:
    """The single operation's name, kind and variables; None when it does not parse."""
    try:
        doc = parse(document)
    except GraphQLSyntaxError:
        return None
    ops = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    if not ops:
        return None
    op = ops[0]
    declared = tuple(
        VariableInfo(
            name=v.variable.name.value,
            type=print_ast(v.type),
            non_null=isinstance(v.type, NonNullTypeNode),
            has_default=v.default_value is not None,
        )
        for v in op.variable_definitions or ()
    )
    uses = _Uses()
    visit(doc, uses)
    return OperationInfo(
        name=op.name.value if op.name else None,
        kind=op.operation.value,
        declared=declared,
        used=frozenset(uses.used),
        operation_count=len(ops),
    )


@lru_cache(maxsize=16)
def _load_schema(path: Path, mtime: float) -> GraphQLSchema:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json" or text.lstrip().startswith("{"):
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("data"), dict):
            data = data["data"]
        if not isinstance(data, dict) or "__schema" not in data:
            raise ValueError('introspection JSON must be {"data": {"__schema": ...}} or {"__schema": ...}')
        schema = build_client_schema(cast(IntrospectionQuery, data))
    else:
        schema = build_schema(text)
    # validate() refuses an invalid schema by raising TypeError; say so here, once, instead.
    errors = validate_schema(schema)
    if errors:
        raise ValueError("not a valid schema: " + "; ".join(error.message for error in errors))
    return schema


def load_schema(path: Path) -> GraphQLSchema:
    """A schema from SDL or introspection JSON (`{"data": {"__schema": ...}}` or `{"__schema": ...}`).

    Raises:
        OSError, ValueError, GraphQLError: the file is missing or not a schema.
    """
    return _load_schema(path, path.stat().st_mtime)


def schema_problems(schema: GraphQLSchema, document: str) -> list[str]:
    """Validation of the document against the schema: field names, arguments, types."""
    try:
        doc = parse(document)
    except GraphQLSyntaxError:
        return []  # reported by parse_problems
    errors: list[GraphQLError] = validate(schema, doc)
    lines = []
    for error in errors:
        where = f" (line {error.locations[0].line})" if error.locations else ""
        lines.append(f"query does not validate against the schema: {error.message}{where}")
    return lines
