"""Pure: which generated checks each spec and tool gets.

A contract is one (tool, check) pair; the collector turns each into one test item with
the id `<spec file>::<tool>::<check>` (`<spec file>::load` for the spec as a whole).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from forge.check import checks_for
from forge.spec import GraphQLOperation, RestRequest, Spec, Tool

__all__ = [
    "GATE_CHECKS",
    "READ_METHODS",
    "Contract",
    "ContractFailure",
    "Kind",
    "contracts_for",
    "is_read",
]

Kind = Literal["load", "static", "schema", "gate", "example", "drift"]

GATE_CHECKS = (
    "gate-first-call-sends-nothing",
    "gate-preview-redacted",
    "gate-argument-change",
    "gate-other-record",
    "gate-single-use",
    "gate-expiry",
    "gate-confirm-sends-preview",
)
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class ContractFailure(AssertionError):
    """A generated check found the spec (or the API) wrong; the message says where."""


@dataclass(frozen=True, slots=True)
class Contract:
    """One generated check: `tool` is None for the spec-level `load` check.

    `example` is the 1-based example number (cassette `<n>.yaml`) for `example-<n>`.
    """

    kind: Kind
    check: str
    tool: str | None = None
    example: int | None = None

    @property
    def name(self) -> str:
        return self.check if self.tool is None else f"{self.tool}::{self.check}"


def is_read(tool: Tool) -> bool:
    """True for tools that only read (GraphQL queries, REST GET/HEAD/OPTIONS of a non-write tool)."""
    if tool.write:
        return False
    if isinstance(tool.request, GraphQLOperation):
        return tool.request.operation_type == "query"
    return isinstance(tool.request, RestRequest) and tool.request.method in READ_METHODS


def contracts_for(spec: Spec, *, has_graphql_schema: bool) -> list[Contract]:
    """Every generated check of `spec`, in a stable order (drift is planned separately)."""
    planned = [Contract("load", "load")]
    for tool in spec.tools:
        planned += [Contract("static", name, tool.name) for name in checks_for(tool, has_graphql_schema)]
        planned.append(Contract("schema", "input-schema", tool.name))
        if tool.response_schema is not None:
            planned.append(Contract("schema", "output-schema", tool.name))
        if tool.write:
            planned += [Contract("gate", name, tool.name) for name in GATE_CHECKS]
        planned += [Contract("example", f"example-{n}", tool.name, example=n) for n in range(1, len(tool.examples) + 1)]
    return planned
