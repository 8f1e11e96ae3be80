"""The audit log: one JSON line per write sent, none for previews or reads, no credential values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.serving.clients import connect, text, token_of
from tests.serving.harness import SERVER_TOKEN, Upstream, forge_serve, item_spec, write_spec

pytestmark = pytest.mark.anyio


async def test_sent_writes_are_audited_and_previews_and_reads_are_not(tmp_path: Path, upstream: Upstream) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    audit = tmp_path / "logs" / "audit.jsonl"
    with forge_serve([spec], tmp_path, "--audit", str(audit)) as forge:
        async with connect(forge.url) as client:
            await client.call_tool("get_item", {"id": "1"})
            first = await client.call_tool("create_item", {"title": "lamp"})
            second = await client.call_tool("create_item", {"title": "sofa"})
            assert not audit.exists() or audit.read_text() == ""  # previews write nothing
            await client.call_tool("create_item", {"title": "lamp", "confirm": token_of(text(first))})
            await client.call_tool("create_item", {"title": "lamp", "confirm": token_of(text(first))})  # refused
            await client.call_tool("create_item", {"title": "sofa", "confirm": token_of(text(second))})
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(r["tool"], r["method"], r["url"], r["outcome"]) for r in lines] == [
        ("create_item", "POST", f"{upstream.url}/items", 200),
        ("create_item", "POST", f"{upstream.url}/items", 200),
    ]
    assert {r["spec"] for r in lines} == {"acme"}
    assert lines[0]["body_sha256"] != lines[1]["body_sha256"]
    assert all(len(r["confirmation"]) == 12 and r["time"] for r in lines)
    assert token_of(text(first)) not in audit.read_text() and SERVER_TOKEN not in audit.read_text()
    assert oct(audit.stat().st_mode & 0o777) == "0o600"
