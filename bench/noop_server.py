"""The SDK's own floor: a low-level mcp Server over stdio whose one tool returns at once."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

_RESULT = types.CallToolResult(content=[types.TextContent(type="text", text="ok")])
_TOOLS = types.ListToolsResult(
    tools=[types.Tool(name="noop", description="Does nothing.", input_schema={"type": "object", "properties": {}})]
)


async def _list(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return _TOOLS


async def _call(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    return _RESULT


server: Server[Any] = Server("noop", on_list_tools=_list, on_call_tool=_call)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
