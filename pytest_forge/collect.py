"""Spec files -> test items with readable ids: `specs/acme.json::cancel_appointment::gate-single-use`.

A spec file is a `pytest.File`; each tool is a collector under it, and each generated
check an item under that. A spec that does not load is one failing `load` item.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from forge.auth import resolve_credentials
from forge.check import MISSING_SCHEMA, check_tool, load_graphql_schema
from forge.errors import MissingVariable
from forge.issues import Issue
from forge.loading import inspect_spec
from forge.schema import input_schema, output_schema
from forge.spec import Spec, Tool
from pytest_forge import cassettes, drift
from pytest_forge.contracts import Contract, ContractFailure, contracts_for
from pytest_forge.gate_checks import run_gate_check
from pytest_forge.options import OPTIONS, ForgeOptions

__all__ = ["ForgeItem", "SpecFile", "ToolNode"]


def _shown(path: Path, here: Path) -> Path:
    """The path as messages show it: relative to where pytest was started, when inside it."""
    return path.relative_to(here) if path.is_relative_to(here) else path


class SpecFile(pytest.File):
    """One forge spec or OpenAPI document."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        options = self.config.stash[OPTIONS]
        spec, issues = inspect_spec(_shown(self.path, self.config.invocation_params.dir))
        document = drift.openapi_source(self.path, spec)
        if spec is None:
            yield ForgeItem.from_parent(
                self, name="load", spec=None, tool=None, contract=Contract("load", "load"), issues=issues
            )
        else:
            graphql_schema = None
            if spec.transport.kind == "graphql" and spec.transport.schema is not None:
                graphql_schema, _ = load_graphql_schema(spec)
            planned = contracts_for(spec, has_graphql_schema=graphql_schema is not None)
            covered = {(c.tool, c.check) for c in planned if c.kind == "static"}
            # A named GraphQL schema file that is absent (e.g. kept outside the repository)
            # skips validation against it, saying so; it does not fail loading.
            missing = [i for i in issues if i.check == MISSING_SCHEMA]
            spec_issues = [i for i in issues if (i.tool, i.check) not in covered and i.check != MISSING_SCHEMA]
            yield ForgeItem.from_parent(
                self, name="load", spec=spec, tool=None, contract=planned[0], issues=spec_issues
            )
            if missing:
                skipped = ForgeItem.from_parent(
                    self,
                    name="graphql-schema",
                    spec=spec,
                    tool=None,
                    contract=Contract("static", "graphql-schema"),
                    issues=[],
                )
                skipped.skip_reason = str(missing[0])
                yield skipped
            for tool in spec.tools:
                mine = [c for c in planned if c.tool == tool.name]
                yield ToolNode.from_parent(self, name=tool.name, spec=spec, tool=tool, contracts=mine)
        if options.drift and document is not None:
            for target in drift.drift_targets(document, spec):
                contract = Contract("drift", "drift", target.name)
                owner = spec.tool(target.name) if spec is not None else None
                item = ForgeItem.from_parent(
                    self, name=f"{target.name}::drift", spec=spec, tool=owner, contract=contract, issues=[]
                )
                item.drift_target, item.document = target, document
                yield item


class ToolNode(pytest.Collector):
    """One tool of a spec; its items are the checks it gets."""

    def __init__(self, *, spec: Spec, tool: Tool, contracts: list[Contract], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec, self.tool, self.contracts = spec, tool, contracts

    def collect(self) -> Iterator[pytest.Item]:
        for contract in self.contracts:
            yield ForgeItem.from_parent(
                self, name=contract.check, spec=self.spec, tool=self.tool, contract=contract, issues=[]
            )


class ForgeItem(pytest.Item):
    """One generated check of one spec (and tool)."""

    def __init__(
        self, *, spec: Spec | None, tool: Tool | None, contract: Contract, issues: list[Issue], **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.spec, self.tool, self.contract, self.issues = spec, tool, contract, issues
        self.drift_target: drift.DriftTarget | None = None
        self.document: Path | None = None
        self.skip_reason: str | None = None
        self.add_marker(
            pytest.mark.forge(spec=str(self.path.name), tool=contract.tool, check=contract.check, kind=contract.kind)
        )

    @property
    def options(self) -> ForgeOptions:
        return self.config.stash[OPTIONS]

    def runtest(self) -> None:
        if self.skip_reason is not None:
            pytest.skip(self.skip_reason)
        kind, spec, tool = self.contract.kind, self.spec, self.tool
        if kind == "load":
            if self.issues or spec is None:
                raise ContractFailure("\n".join(str(i) for i in self.issues) or f"{self.path}: cannot be loaded")
            return
        if kind == "drift":
            self._drift()
            return
        assert spec is not None and tool is not None
        if kind == "static":
            graphql_schema = load_graphql_schema(spec)[0] if self.contract.check == "graphql-schema" else None
            found = check_tool(spec, tool, self.contract.check, graphql_schema)
            if found:
                raise ContractFailure("\n".join(str(i) for i in found))
        elif kind == "schema":
            self._schema(tool)
        elif kind == "gate":
            run_gate_check(spec, tool, self.contract.check)
        elif kind == "example":
            self._example(spec, tool)

    def _schema(self, tool: Tool) -> None:
        schema = input_schema(tool) if self.contract.check == "input-schema" else output_schema(tool)
        try:
            Draft202012Validator.check_schema(schema or {})
        except SchemaError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            raise ContractFailure(
                f"{self.contract.check} of {tool.name} is not valid JSON Schema at {where}: {exc.message}"
            ) from None

    def _example(self, spec: Spec, tool: Tool) -> None:
        example = self.contract.example or 1
        options = self.options
        if options.record:
            if tool.write and not options.record_writes:
                pytest.skip(f"{tool.name} is a write: recorded only with --record-writes")
            cassettes.record_example(
                spec, tool, example, options.cassettes, options.base_urls.get(spec.name), self._progress
            )
            return
        try:
            played = cassettes.replay_example(spec, tool, example, options.cassettes)
        except FileNotFoundError:
            path = cassettes.cassette_path(options.cassettes, spec, tool, example)
            pytest.skip(f"no cassette at {path}; record it with: {cassettes.record_command(spec, tool, example)}")
        if spec.openapi is not None and tool.origin is not None:
            for interaction in played:
                drift.check_recorded_response(spec.openapi, tool.origin, interaction)

    def _drift(self) -> None:
        target, document, spec = self.drift_target, self.document, self.spec
        assert target is not None and document is not None
        if target.write and not self.options.drift_writes:
            pytest.skip(f"{target.label} is a write: drift runs writes only with --forge-drift-writes")
        names = [spec.name] if spec is not None else []
        names.append(self.path.stem)
        base_url = next((self.options.base_urls[n] for n in names if n in self.options.base_urls), None)
        if base_url is None:
            pytest.skip(f"--forge-drift needs a base URL: --forge-base-url {names[0]}=URL")
        headers: dict[str, str] = {}
        params: dict[str, str] = {}
        secrets: frozenset[str] = frozenset()
        if spec is not None:
            auths = spec.transport.auth if self.tool is None else self.tool.auth_from(spec.transport)
            try:
                credentials = resolve_credentials(auths, os.environ)
            except MissingVariable as exc:
                raise ContractFailure(f"drift for {target.label}: {exc}") from None
            headers, params, secrets = dict(credentials.headers), dict(credentials.query), credentials.secrets
        drift.run_drift(
            document,
            target.label,
            base_url,
            headers=headers,
            params=params,
            secrets=secrets,
            max_examples=self.options.drift_examples,
        )

    def _progress(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if reporter is None:
            return
        if capture is None:
            reporter.write_line(f"forge: {line}")
            return
        with capture.global_and_fixture_disabled():
            reporter.ensure_newline()
            reporter.write_line(f"forge: {line}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ContractFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"forge {self.contract.check}: {self.nodeid}"
