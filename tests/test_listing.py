"""forge.listing: the tools/list answer, hand-built as JSON, is exactly the SDK model's wire form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from forge.engine import Engine
from forge.gate import Gate
from forge.listing import tool_definitions, tools_page
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


TOOLS = [{"name": f"t{n}"} for n in range(7)]


def test_pages_cover_every_tool_once_in_order_and_the_last_has_no_cursor() -> None:
    seen, cursor = [], None
    for _ in range(10):
        page, cursor = tools_page(TOOLS, cursor, 3)
        seen += page
        if cursor is None:
            break
    assert seen == TOOLS


def test_without_a_page_size_everything_comes_at_once() -> None:
    assert tools_page(TOOLS, None, None) == (TOOLS, None)


@pytest.mark.parametrize("cursor", ["abc", "-1", "7", "99", "2", "\u00b2", ""])
def test_a_cursor_this_listing_never_handed_out_is_refused(cursor: str) -> None:
    with pytest.raises(ValueError, match="invalid cursor"):
        tools_page(TOOLS, cursor, 3)
