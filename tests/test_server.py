"""The MCP layer in process: results a validating client (the SDK's own) accepts."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from forge.engine import Engine
from forge.gate import Gate
from forge.listing import tool_definitions
from forge.schema import input_schema
from forge.server import ServePolicy, build_server
from forge.spec import Binding, Param, RestRequest, Spec, Tool, Transport
from forge.tokenstore import MemoryTokenStore

pytestmark = pytest.mark.anyio

PET = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
SPEC = Spec(
    name="pets",
    transport=Transport(kind="rest", url="http://127.0.0.1:9"),
    tools=(
        Tool(
            "create_pet",
            "Create a pet.",
            (Param("name", {"type": "string"}, required=True),),
            RestRequest("POST", "/pets", body=(Binding("name", "name"),)),
            write=True,
            response_schema=PET,
        ),
    ),
)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("dry_run", [False, True])
async def test_a_held_write_or_a_dry_run_satisfies_a_declared_output_schema(mode: str, dry_run: bool) -> None:
    engine = Engine([SPEC], gate=Gate(MemoryTokenStore()), env={}, dry_run=dry_run)
    async with Client(build_server(engine), mode=mode) as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("create_pet", {"name": "Rex"})
    assert tools[0].output_schema is not None
    assert not result.is_error
    assert result.structured_content is not None
    assert set(result.structured_content) == {"note"}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_listing_is_what_the_sdk_tool_model_would_send_in_both_generations(mode: str) -> None:
    engine = Engine([SPEC], gate=Gate(MemoryTokenStore()), env={})
    async with Client(build_server(engine), mode=mode) as client:
        listed = [
            t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools
        ]
    assert listed == tool_definitions(engine.entries.values())


def test_input_schemas_are_looked_up_directly_not_by_running_the_listing_per_call() -> None:
    # The SDK's 2026-07-28 HTTP path validates Mcp-Param headers against the called tool's
    # input schema; without this lookup it runs the whole tools/list handler on every
    # tools/call (GitHub's 1,223 tools: ~400 ms per call).
    engine = Engine([SPEC], gate=Gate(MemoryTokenStore()), env={})
    server = build_server(engine)
    assert server.get_tool_input_schema is not None
    assert server.get_tool_input_schema("create_pet") == input_schema(SPEC.tools[0])
    assert server.get_tool_input_schema("no_such_tool") is None


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_paged_listing_refuses_a_made_up_cursor_with_an_mcp_error(mode: str) -> None:
    engine = Engine([SPEC], gate=Gate(MemoryTokenStore()), env={})
    async with Client(build_server(engine, policy=ServePolicy(tools_per_page=1)), mode=mode) as client:
        first = await client.list_tools()
        with pytest.raises(MCPError, match="invalid cursor"):
            await client.list_tools(cursor="12")
        result = await client.call_tool("create_pet", {"name": "Rex"})
    assert [t.name for t in first.tools] == ["create_pet"] and first.next_cursor is None
    assert not result.is_error  # the server kept serving
