"""The least a bridge can do: a hand-written low-level mcp Server with one tool that GETs the upstream.

    python bench/bridge_server.py BASE_URL

No validation, no rendering, no gate: one pooled `httpx.AsyncClient`, the JSON body
returned as text and as structured content under a declared output schema (as forge and
FastMCP do). bench/per_call.py measures it next to forge to show what the SDK and httpx
cost by themselves on this machine, which the stdio floor (httpx in the client's process
+ the SDK's no-op round trip) leaves out: the server's own request from another process.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:9"
_TOOL = types.Tool(
    name="getPetById",
    description="Find a pet by id.",
    input_schema={"type": "object", "properties": {"petId": {"type": "integer"}}, "required": ["petId"]},
    output_schema={"type": "object", "properties": {"result": {"type": "object"}}},
)
_http = httpx.AsyncClient(trust_env=False)


async def _list(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[_TOOL])


async def _call(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    response = await _http.get(f"{BASE_URL}/pet/{(params.arguments or {}).get('petId')}")
    body = response.json()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body))], structured_content={"result": body}
    )


server: Server[Any] = Server("bridge", on_list_tools=_list, on_call_tool=_call)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
