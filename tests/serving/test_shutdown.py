"""SIGTERM while a call is in flight: the call finishes, nothing is cut half-sent, the process exits cleanly."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from tests.serving.clients import connect, text, token_of
from tests.serving.harness import Upstream, forge_serve, item_spec, write_spec

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sigterm_during_a_slow_upstream_write_lets_it_finish(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    audit = tmp_path / "audit.jsonl"
    with forge_serve([spec], tmp_path, "--audit", str(audit)) as forge:
        async with connect(forge.url, mode) as client:
            preview = await client.call_tool("create_item", {"title": "slow"})
            upstream.delay = 1.5
            result: dict[str, object] = {}

            async def confirm() -> None:
                result["sent"] = await client.call_tool(
                    "create_item", {"title": "slow", "confirm": token_of(text(preview))}
                )

            async with anyio.create_task_group() as group:
                group.start_soon(confirm)
                assert await anyio.to_thread.run_sync(upstream.arrived.wait, 20)
                forge.process.terminate()  # SIGTERM while the upstream is still answering
        code = await anyio.to_thread.run_sync(forge.terminate)
    sent = result["sent"]
    assert not sent.is_error, text(sent)  # type: ignore[attr-defined]
    assert json.loads(text(sent))["path"] == "/items"  # type: ignore[arg-type]
    # uvicorn re-raises the signal once it has shut down, so the status is "terminated by SIGTERM"
    assert code == -signal.SIGTERM
    assert "Application shutdown complete" in forge.output()
    assert len(upstream.writes()) == 1
    assert json.loads(audit.read_text())["outcome"] == 200
