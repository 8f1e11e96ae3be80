"""Small helpers: compile a committed document, run one engine call."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from forge.engine import Engine
from forge.gate import Gate
from forge.issues import Issue
from forge.loading import read_document
from forge.openapi import OpenAPIOptions, compile_document
from forge.results import Outcome
from forge.spec import Spec
from forge.tokenstore import MemoryTokenStore

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openapi"


def compile_fixture(name: str, **options: Any) -> tuple[Spec, list[Issue]]:
    path = FIXTURES / name
    return compile_document(read_document(path), path=path, options=OpenAPIOptions(**options))


def spec_of(name: str, **options: Any) -> Spec:
    spec, issues = compile_fixture(name, **options)
    assert issues == []
    return spec


def engine_for(spec: Spec, env: Mapping[str, str] | None = None, **kwargs: Any) -> Engine:
    return Engine([spec], gate=Gate(MemoryTokenStore()), env=dict(env or {}), **kwargs)


def call(engine: Engine, tool: str, arguments: Mapping[str, Any]) -> Outcome:
    async def run() -> Outcome:
        return await engine.call(tool, dict(arguments))

    return anyio.run(run)


def close(engine: Engine) -> None:
    anyio.run(engine.aclose)
