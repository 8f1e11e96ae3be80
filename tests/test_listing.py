"""forge.listing: the tools/list answer, hand-built as JSON, is exactly the SDK model's wire form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from forge.engine import Engine
from forge.gate import Gate
from forge.listing import tool_definitions
from forge.loading import find_specs, load_spec
from forge.openapi import OpenAPIOptions
from forge.tokenstore import MemoryTokenStore

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [*find_specs([ROOT / "specs"]), ROOT / "bench" / "fixtures" / "petstore.json"]


def _definitions(path: Path) -> list[dict[str, Any]]:
    spec = load_spec(path, OpenAPIOptions(base_url="http://127.0.0.1:9"))
    return tool_definitions(Engine([spec], gate=Gate(MemoryTokenStore()), env={}).entries.values())


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_definition_round_trips_through_the_sdk_tool_model_unchanged(path: Path) -> None:
    for definition in _definitions(path):
        model = types.Tool.model_validate(definition)
        assert model.model_dump(mode="json", by_alias=True, exclude_none=True) == definition


def test_a_write_tool_declares_confirm_and_destructive_annotations() -> None:
    definitions = {d["name"]: d for d in _definitions(ROOT / "specs" / "greenhouse.json")}
    write = definitions["submit_application"]
    assert "confirm" in write["inputSchema"]["properties"]
    assert write["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
