"""Drift between an OpenAPI document and the API: schemathesis against a live base URL,
and offline conformance of recorded responses.

Only positive data is generated (requests the document says are valid), and write
operations run only when asked (`--forge-drift-writes`). A failure names the operation
and shows the request and the part of the response that differs.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import hypothesis
import schemathesis
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup

from forge.loading import read_document
from forge.openapi import is_openapi
from forge.render import redact
from forge.replay import Interaction
from forge.spec import Spec
from pytest_forge.contracts import READ_METHODS, ContractFailure

__all__ = ["DRIFT_CHECKS", "DriftTarget", "check_recorded_response", "drift_targets", "openapi_source", "run_drift"]

DRIFT_CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance, not_a_server_error]
OFFLINE_CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]


@dataclass(frozen=True, slots=True)
class DriftTarget:
    """One operation of a document: `name` is the tool's (or the operationId), `label` `GET /pets/{id}`."""

    name: str
    label: str
    write: bool


def _schema(document: Path) -> Any:
    path = document.resolve()
    return _load_schema(path, path.stat().st_mtime_ns)


@lru_cache(maxsize=64)
def _load_schema(path: Path, mtime: int) -> Any:
    return schemathesis.openapi.from_path(str(path))


def openapi_source(path: Path, spec: Spec | None) -> Path | None:
    """The OpenAPI document behind a spec file: itself, or the one a curated spec names."""
    if spec is not None and spec.openapi is not None:
        return spec.openapi
    try:
        return path if is_openapi(read_document(path)) else None
    except Exception:
        return None


def drift_targets(document: Path, spec: Spec | None) -> list[DriftTarget]:
    """One target per operation; only the operations that became tools, when the spec loaded."""
    by_origin = {tool.origin: tool for tool in spec.tools} if spec is not None else {}
    targets = []
    for result in _schema(document).get_all_operations():
        operation = result.ok()
        if operation is None:
            continue
        tool = by_origin.get(operation.label)
        if spec is not None and tool is None:
            continue
        name = tool.name if tool is not None else operation.definition.raw.get("operationId") or operation.label
        write = tool.write if tool is not None else operation.method.upper() not in READ_METHODS
        targets.append(DriftTarget(str(name), operation.label, write))
    return targets


def run_drift(
    document: Path,
    label: str,
    base_url: str,
    *,
    headers: Mapping[str, str],
    params: Mapping[str, str],
    secrets: frozenset[str],
    max_examples: int,
) -> None:
    """Send generated valid requests for one operation and check every response against the document.

    Raises:
        ContractFailure: a response differs from the document (status, content type, schema).
    """
    operation = _schema(document).find_operation_by_label(label)
    strategy = operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE)
    extra = {"headers": dict(headers), "params": dict(params)} if params else {"headers": dict(headers)}

    @hypothesis.settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
        suppress_health_check=list(hypothesis.HealthCheck),
        report_multiple_bugs=False,
    )
    @hypothesis.given(strategy)
    def run(case: Any) -> None:
        response = case.call(base_url=base_url, **extra)
        case.validate_response(response, checks=DRIFT_CHECKS)

    try:
        run()
    except FailureGroup as exc:
        raise ContractFailure(f"drift in {label} at {base_url}:\n{redact(str(exc), secrets)}") from None


def _path_parameters(template: str, uri: str) -> dict[str, str]:
    """Values of the template's `{placeholders}` in a recorded URL (the base path may precede it)."""
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"
    found = re.search(pattern, urlsplit(uri).path)
    return {k: unquote(v) for k, v in found.groupdict().items()} if found else {}


def check_recorded_response(document: Path, label: str, interaction: Interaction) -> None:
    """Offline drift check: does a recorded response conform to the document?

    Raises:
        ContractFailure: it does not; the message shows where, field by field.
    """
    operation = _schema(document).find_operation_by_label(label)
    request = httpx.Request(interaction.method, interaction.uri, content=interaction.body)
    response = httpx.Response(
        interaction.status, headers=list(interaction.headers), content=interaction.response_body, request=request
    )
    response.elapsed = datetime.timedelta(0)
    try:
        operation.Case(path_parameters=_path_parameters(operation.path, interaction.uri)).validate_response(
            response, checks=OFFLINE_CHECKS
        )
    except FailureGroup as exc:
        raise ContractFailure(
            f"the response recorded in {interaction.source} does not conform to {document} ({label}):\n{exc}"
        ) from None
