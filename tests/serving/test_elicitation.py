"""Confirmation by elicitation: the person sees the rendered request and forge sends only on
accept, in both protocol generations, falling back to the token where the client cannot be asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from tests.serving.clients import accept, connect, decline, text
from tests.serving.harness import Upstream, forge_serve, item_spec, write_spec

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


@pytest.mark.parametrize("mode", MODES)
async def test_an_accepted_elicitation_sends_the_write_once_and_shows_the_request_first(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    asked: list[str] = []

    async def look_then_accept(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        assert upstream.writes() == []  # nothing has been sent while the person looks
        return await accept(ctx, params)

    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    audit = tmp_path / "audit.jsonl"
    with forge_serve([spec], tmp_path, "--confirm", "elicit", "--audit", str(audit)) as forge:
        async with connect(forge.url, mode, elicit=look_then_accept) as client:
            result = await client.call_tool("create_item", {"title": "lamp"})
    assert not result.is_error, text(result)
    [message] = asked
    assert f"POST {upstream.url}/items" in message and '"title": "lamp"' in message
    [write] = upstream.writes()
    assert write.json() == {"title": "lamp"}
    [line] = audit.read_text().splitlines()
    assert json.loads(line)["confirmation"].startswith("elicitation")


@pytest.mark.parametrize("mode", MODES)
async def test_a_declined_elicitation_sends_nothing(tmp_path: Path, upstream: Upstream, mode: str) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url, confirm="elicit"))
    with forge_serve([spec], tmp_path) as forge:  # the spec asks for elicitation (--confirm auto)
        async with connect(forge.url, mode, elicit=decline) as client:
            result = await client.call_tool("create_item", {"title": "lamp"})
    assert result.is_error and "declined; nothing was sent" in text(result)
    assert upstream.writes() == []


@pytest.mark.parametrize(
    ("mode", "stateless", "elicit"),
    [("auto", False, None), ("legacy", False, None), ("legacy", True, accept)],
    ids=["modern-client-without-elicitation", "legacy-client-without-elicitation", "legacy-over-stateless-http"],
)
async def test_where_the_client_cannot_be_asked_the_token_flow_takes_over(
    tmp_path: Path, upstream: Upstream, mode: str, stateless: bool, elicit: Any
) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    options = ["--confirm", "elicit", *(["--stateless"] if stateless else [])]
    with forge_serve([spec], tmp_path, *options) as forge:
        async with connect(forge.url, mode, elicit=elicit) as client:
            result = await client.call_tool("create_item", {"title": "lamp"})
    assert not result.is_error
    assert "This has NOT been sent" in text(result) and 'confirm="' in text(result)
    assert upstream.writes() == []


async def test_an_answered_confirmation_round_cannot_be_replayed_to_send_twice(
    tmp_path: Path, upstream: Upstream
) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    with forge_serve([spec], tmp_path, "--confirm", "elicit", "--stateless") as forge:
        async with connect(forge.url, "auto", elicit=accept) as client:
            first = await client.session.call_tool("create_item", {"title": "lamp"}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult) and first.request_state
            assert first.request_state.startswith("v1.")  # sealed: the client cannot read the gate token
            yes = {"confirm": types.ElicitResult(action="accept", content={"send": True})}
            sent = await client.session.call_tool(
                "create_item", {"title": "lamp"}, input_responses=yes, request_state=first.request_state
            )
            replay = await client.session.call_tool(
                "create_item", {"title": "lamp"}, input_responses=yes, request_state=first.request_state
            )
    assert not sent.is_error
    assert replay.is_error and "already been used" in text(replay)
    assert len(upstream.writes()) == 1


async def test_a_confirmation_round_cannot_be_moved_to_other_arguments(tmp_path: Path, upstream: Upstream) -> None:
    from mcp import MCPError

    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    with forge_serve([spec], tmp_path, "--confirm", "elicit") as forge:
        async with connect(forge.url, "auto", elicit=accept) as client:
            first = await client.session.call_tool("create_item", {"title": "lamp"}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult)
            yes = {"confirm": types.ElicitResult(action="accept", content={"send": True})}
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await client.session.call_tool(
                    "create_item", {"title": "sofa"}, input_responses=yes, request_state=first.request_state
                )
    assert upstream.writes() == []
