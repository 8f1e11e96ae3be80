"""End to end: `forge serve` as a real subprocess, driven by the mcp SDK's client over stdio,
in both protocol generations, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.upstream import Reply, Upstream, running_upstream

pytestmark = pytest.mark.anyio

CANARY_TOKEN = "canary-token-7f3a9c1e5b"
MODES = ["auto", "legacy"]
EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def acme_spec(url: str, timeout: float = 5) -> dict[str, Any]:
    item_id = {"name": "id", "type": "string", "required": True, "description": "The item's id."}
    return {
        "name": "acme",
        "instructions": "Acme's item API.",
        "transport": {
            "kind": "rest",
            "url": url,
            "auth": {"kind": "bearer", "env": "ACME_TOKEN"},
            "timeout": timeout,
            "headers": {"X-Client": "forge-tests"},
        },
        "tools": [
            {
                "name": "get_item",
                "description": "Get one item.",
                "params": [item_id],
                "request": {"method": "GET", "path": "/items/{id}"},
            },
            {
                "name": "search_items",
                "description": "Search items by tags.",
                "params": [
                    {"name": "tags", "type": "array", "items": {"type": "string"}, "description": "Tags to match."},
                    {"name": "active", "type": "boolean", "description": "Only active items."},
                    {"name": "limit", "type": "integer", "default": 10, "description": "Most results."},
                ],
                "request": {
                    "method": "GET",
                    "path": "/items",
                    "query": {"tag": "tags", "active": "active", "limit": "limit"},
                },
            },
            {
                "name": "rename_item",
                "description": "Rename an item.",
                "write": True,
                "params": [item_id, {"name": "name", "type": "string", "required": True, "description": "New name."}],
                "request": {"method": "PATCH", "path": "/items/{id}", "body": {"name": "name"}},
            },
        ],
    }


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with running_upstream() as server:
        yield server


def write_spec(tmp_path: Path, spec: dict[str, Any]) -> Path:
    path = tmp_path / "acme.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


@asynccontextmanager
async def serve(
    tmp_path: Path,
    spec_path: Path,
    mode: str,
    *extra: str,
    env: dict[str, str] | None = None,
    elicit: Any = None,
) -> AsyncIterator[Client]:
    environment = {
        "PATH": os.environ.get("PATH", ""),
        "ACME_TOKEN": CANARY_TOKEN,
        "FORGE_LOG_LEVEL": "INFO",
        **(env or {}),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "forge", "serve", str(spec_path), *extra], env=environment
    )
    with open(tmp_path / "stderr.log", "w", encoding="utf-8") as errlog:
        transport = stdio_client(params, errlog=errlog)
        async with Client(transport, mode=mode, elicitation_callback=elicit) as client:  # type: ignore[arg-type]
            yield client


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def token_of(preview: str) -> str:
    return preview.split('confirm="', 1)[1].split('"', 1)[0]


@pytest.mark.parametrize("mode", MODES)
async def test_tools_are_listed_with_schemas_and_annotations(tmp_path: Path, upstream: Upstream, mode: str) -> None:
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode) as client:
        assert client.protocol_version == EXPECTED_VERSION[mode]
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"get_item", "search_items", "rename_item"}
    assert tools["get_item"].annotations.read_only_hint is True
    assert tools["get_item"].input_schema["properties"]["id"]["description"] == "The item's id."
    assert tools["get_item"].input_schema["required"] == ["id"]
    assert tools["rename_item"].annotations.destructive_hint is True
    assert tools["rename_item"].annotations.read_only_hint is False
    assert "confirm" in tools["rename_item"].input_schema["properties"]
    assert "confirm" not in tools["get_item"].input_schema["properties"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_read_returns_the_api_data(tmp_path: Path, upstream: Upstream, mode: str) -> None:
    upstream.reply(lambda r: Reply(body={"id": "42", "name": "widget"}))
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode) as client:
        result = await client.call_tool("get_item", {"id": "42"})
        search = await client.call_tool("search_items", {"tags": ["a b", "c"], "active": True})
    assert not result.is_error
    assert json.loads(text(result)) == {"id": "42", "name": "widget"}
    assert not search.is_error
    first, second = upstream.received
    assert (first.method, first.target) == ("GET", "/items/42")
    assert first.headers["authorization"] == f"Bearer {CANARY_TOKEN}"
    assert first.headers["x-client"] == "forge-tests"
    assert second.target == "/items?tag=a+b&tag=c&active=true&limit=10"


@pytest.mark.parametrize("mode", MODES)
async def test_a_write_is_held_then_sent_once_exactly_as_previewed(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    upstream.reply(lambda r: Reply(body={"renamed": True}))
    args = {"id": "7", "name": "Gadget \u2603"}
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode) as client:
        held = await client.call_tool("rename_item", args)
        assert upstream.received == []
        preview = text(held)
        sent = await client.call_tool("rename_item", {**args, "confirm": token_of(preview)})
        again = await client.call_tool("rename_item", {**args, "confirm": token_of(preview)})
    assert not held.is_error
    assert "This has NOT been sent" in preview
    assert "PATCH " + upstream.url + "/items/7" in preview
    assert "Authorization" in preview and CANARY_TOKEN not in preview
    assert not sent.is_error and json.loads(text(sent)) == {"renamed": True}
    assert again.is_error and "already been used" in text(again)
    [request] = upstream.received
    assert (request.method, request.target) == ("PATCH", "/items/7")
    assert request.body == json.dumps({"name": "Gadget \u2603"}, ensure_ascii=False).encode()
    assert request.headers["content-type"] == "application/json"
    assert request.headers["authorization"] == f"Bearer {CANARY_TOKEN}"


@pytest.mark.parametrize("mode", MODES)
async def test_a_token_is_refused_for_a_changed_argument_or_another_record(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode) as client:
        token = token_of(text(await client.call_tool("rename_item", {"id": "7", "name": "A"})))
        changed = await client.call_tool("rename_item", {"id": "7", "name": "B", "confirm": token})
        other = await client.call_tool("rename_item", {"id": "8", "name": "A", "confirm": token})
        forged = await client.call_tool("rename_item", {"id": "7", "name": "A", "confirm": token[:-2] + "xx"})
        invented = await client.call_tool("rename_item", {"id": "7", "name": "A", "confirm": "made-up"})
        still_good = await client.call_tool("rename_item", {"id": "7", "name": "A", "confirm": token})
    for refused in (changed, other):
        assert refused.is_error and "different request" in text(refused)
    for refused in (forged, invented):
        assert refused.is_error and "not issued by this server" in text(refused)
    assert not still_good.is_error
    assert [(r.method, r.target, r.body) for r in upstream.received] == [("PATCH", "/items/7", b'{"name": "A"}')]


@pytest.mark.parametrize("mode", MODES)
async def test_an_expired_token_is_refused_and_sends_nothing(tmp_path: Path, upstream: Upstream, mode: str) -> None:
    spec_path = write_spec(tmp_path, acme_spec(upstream.url))
    async with serve(tmp_path, spec_path, mode, "--token-lifetime", "0.000001") as client:
        token = token_of(text(await client.call_tool("rename_item", {"id": "7", "name": "A"})))
        late = await client.call_tool("rename_item", {"id": "7", "name": "A", "confirm": token})
    assert late.is_error and "expired" in text(late)
    assert upstream.received == []


@pytest.mark.parametrize("mode", MODES)
async def test_traversal_ids_stay_inside_their_endpoint(tmp_path: Path, upstream: Upstream, mode: str) -> None:
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode) as client:
        for evil in ("../admin", "..", "a/b", "x?y=1#z", "."):
            assert not (await client.call_tool("get_item", {"id": evil})).is_error
    assert [r.target for r in upstream.received] == [
        "/items/..%2Fadmin",
        "/items/%2E%2E",
        "/items/a%2Fb",
        "/items/x%3Fy%3D1%23z",
        "/items/%2E",
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_upstream_failures_are_error_results_and_the_server_keeps_serving(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    def responder(request: Any) -> Reply:
        if request.path == "/items/boom":
            return Reply(status=500, body={"error": "database on fire", "token": CANARY_TOKEN})
        if request.path == "/items/slow":
            return Reply(body={}, delay=3)
        return Reply(body={"id": "ok"})

    upstream.reply(responder)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    spec_path = write_spec(tmp_path, acme_spec(upstream.url, timeout=0.5))
    dead = acme_spec(f"http://127.0.0.1:{closed_port}")
    dead["name"] = "dead"
    dead_path = tmp_path / "dead.json"
    dead_path.write_text(json.dumps(dead), encoding="utf-8")
    async with serve(tmp_path, spec_path, mode) as client:
        boom = await client.call_tool("get_item", {"id": "boom"})
        slow = await client.call_tool("get_item", {"id": "slow"})
        fine = await client.call_tool("get_item", {"id": "fine"})
    async with serve(tmp_path, dead_path, mode) as client:
        refused = await client.call_tool("get_item", {"id": "1"})
        held = await client.call_tool("rename_item", {"id": "1", "name": "x"})
        unsent = await client.call_tool("rename_item", {"id": "1", "name": "x", "confirm": token_of(text(held))})
    assert boom.is_error and "HTTP 500" in text(boom) and "database on fire" in text(boom)
    assert CANARY_TOKEN not in text(boom)
    assert slow.is_error and "no answer within 0.5s" in text(slow)
    assert not fine.is_error
    assert refused.is_error and "could not connect" in text(refused) and "nothing was sent" in text(refused)
    assert unsent.is_error and "nothing was sent" in text(unsent)


@pytest.mark.parametrize("mode", MODES)
async def test_bad_calls_are_error_results_naming_the_problem(tmp_path: Path, upstream: Upstream, mode: str) -> None:
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode) as client:
        wrong_type = await client.call_tool("search_items", {"limit": "ten"})
        unknown_arg = await client.call_tool("get_item", {"id": "1", "colour": "red"})
        missing = await client.call_tool("get_item", {})
        unknown_tool = await client.call_tool("get_itme", {"id": "1"})
        ok = await client.call_tool("get_item", {"id": "1"})
    assert wrong_type.is_error and "'limit'" in text(wrong_type) and "integer" in text(wrong_type)
    assert unknown_arg.is_error and "unknown argument 'colour'" in text(unknown_arg)
    assert missing.is_error and "missing required argument 'id'" in text(missing)
    assert unknown_tool.is_error and "did you mean 'get_item'" in text(unknown_tool)
    assert not ok.is_error
    assert [r.target for r in upstream.received] == ["/items/1"]


@pytest.mark.parametrize("mode", MODES)
async def test_canary_secrets_appear_nowhere_in_results_or_stderr(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    upstream.reply(lambda r: Reply(status=401, body=f"bad token {CANARY_TOKEN}", content_type="text/plain"))
    results = []
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode) as client:
        results.append(await client.call_tool("get_item", {"id": "1"}))
        held = await client.call_tool("rename_item", {"id": "1", "name": "n"})
        results.append(held)
        results.append(await client.call_tool("rename_item", {"id": "1", "name": "n", "confirm": token_of(text(held))}))
        results.append(await client.call_tool("rename_item", {"id": "1", "name": "n", "confirm": "bogus"}))
    shown = "\n".join(text(r) for r in results)
    assert "[REDACTED]" in shown
    assert CANARY_TOKEN not in shown
    stderr = (tmp_path / "stderr.log").read_text(encoding="utf-8")
    assert "write rename_item sent" in stderr
    assert CANARY_TOKEN not in stderr


@pytest.mark.parametrize("mode", MODES)
async def test_a_missing_credential_refuses_to_send(tmp_path: Path, upstream: Upstream, mode: str) -> None:
    async with serve(tmp_path, write_spec(tmp_path, acme_spec(upstream.url)), mode, env={"ACME_TOKEN": ""}) as client:
        result = await client.call_tool("get_item", {"id": "1"})
    assert result.is_error and "ACME_TOKEN is not set" in text(result)
    assert upstream.received == []


@pytest.mark.parametrize("mode", MODES)
async def test_list_json_prints_exactly_the_tools_serve_answers_and_instructions_reach_the_client(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    spec_path = write_spec(tmp_path, acme_spec(upstream.url))
    async with serve(tmp_path, spec_path, mode) as client:
        served = [
            t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools
        ]
        instructions = client.instructions
    listed = subprocess.run(
        [sys.executable, "-m", "forge", "list", str(spec_path), "--json"], capture_output=True, text=True, check=True
    )
    assert json.loads(listed.stdout) == served
    assert instructions is not None and instructions.startswith("Acme's item API.")
    assert "confirm=<token>" in instructions


@pytest.mark.parametrize("answer", ["accept", "decline"])
@pytest.mark.parametrize("mode", MODES)
async def test_confirmation_by_elicitation_works_over_stdio(
    tmp_path: Path, upstream: Upstream, mode: str, answer: str
) -> None:
    # The server asks the client mid-call (a server-to-client request in the handshake
    # era, an input-required round in 2026-07-28) while it goes on reading stdin.
    asked: list[str] = []

    async def person(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        assert upstream.received == []  # nothing is sent while the person looks
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"send": True})
        return types.ElicitResult(action="decline")

    spec = write_spec(tmp_path, acme_spec(upstream.url))
    async with serve(tmp_path, spec, mode, "--confirm", "elicit", elicit=person) as client:
        result = await client.call_tool("rename_item", {"id": "7", "name": "lamp"})
    [question] = asked
    assert f"PATCH {upstream.url}/items/7" in question
    if answer == "accept":
        assert not result.is_error, text(result)
        [sent] = upstream.received
        assert sent.method == "PATCH" and sent.json() == {"name": "lamp"}
    else:
        assert result.is_error and "declined; nothing was sent" in text(result)
        assert upstream.received == []
