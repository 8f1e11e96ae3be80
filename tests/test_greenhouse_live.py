"""Greenhouse's public job board, live. Needs the internet: run with FORGE_INTERNET=1."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forge.engine import Engine
from forge.gate import Gate
from forge.loading import load_spec
from forge.tokenstore import MemoryTokenStore

pytestmark = [
    pytest.mark.internet,
    pytest.mark.anyio,
    pytest.mark.skipif(os.environ.get("FORGE_INTERNET") != "1", reason="needs the internet; set FORGE_INTERNET=1"),
]

SPEC = Path(__file__).resolve().parents[1] / "specs" / "greenhouse.json"
BOARD = os.environ.get("GREENHOUSE_BOARD", "greenhouse")


async def test_a_public_board_lists_its_jobs_without_credentials() -> None:
    engine = Engine([load_spec(SPEC)], gate=Gate(MemoryTokenStore()), env={})
    outcome = await engine.call("list_jobs", {"board_token": BOARD})
    await engine.aclose()
    assert not outcome.is_error, outcome.text
    assert "jobs" in json.loads(outcome.text)


async def test_an_unknown_board_is_an_http_404_error_result() -> None:
    engine = Engine([load_spec(SPEC)], gate=Gate(MemoryTokenStore()), env={})
    outcome = await engine.call("get_board", {"board_token": "no-such-board-forge-test-0000"})
    await engine.aclose()
    assert outcome.is_error and outcome.text.startswith("HTTP 404")
