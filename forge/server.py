"""The only module that imports `mcp`: an Engine's tools served over MCP.

Tools are generated at runtime, so this uses the SDK's low-level `Server`
(`on_list_tools`, `on_call_tool`). Both protocol generations are answered: the SDK's
dual-era loop serves 2026-07-28 clients and the initialize handshake alike.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from forge import __version__
from forge.engine import Engine, Entry
from forge.results import Outcome
from forge.schema import input_schema, output_schema

__all__ = ["build_server", "serve_stdio", "tool_definitions"]

log = logging.getLogger("forge")


def _definition(entry: Entry) -> types.Tool:
    tool = entry.tool
    hints = tool.hints
    return types.Tool(
        name=entry.name,
        description=tool.description,
        input_schema=input_schema(tool),
        output_schema=output_schema(tool),
        annotations=types.ToolAnnotations(
            read_only_hint=hints.read_only,
            destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )


def _tools(engine: Engine) -> list[types.Tool]:
    return [_definition(entry) for entry in engine.entries.values()]


def tool_definitions(engine: Engine) -> list[dict[str, Any]]:
    """Exactly the `tools` array `tools/list` answers, as JSON values."""
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in _tools(engine)]


def to_result(outcome: Outcome) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=outcome.text)],
        structured_content=dict(outcome.structured) if outcome.structured is not None else None,
        is_error=outcome.is_error,
    )


def build_server(engine: Engine, *, name: str | None = None, instructions: str | None = None) -> Server[Any]:
    """An MCP server answering `tools/list` and `tools/call` for `engine`."""
    listing = types.ListToolsResult(tools=_tools(engine))

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        outcome = await engine.call(params.name, params.arguments)
        return to_result(outcome)

    specs = engine.specs
    return Server(
        name or (specs[0].name if len(specs) == 1 else "forge"),
        version=__version__,
        instructions=instructions if instructions is not None else _instructions(engine),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def _instructions(engine: Engine) -> str | None:
    parts = [s.instructions for s in engine.specs if s.instructions]
    gate = (
        "Tools marked as writes never send on their first call: they return a preview and a "
        "confirmation token. Show the preview to the user; call again with confirm=<token> only "
        "once they agree."
    )
    if any(e.tool.write for e in engine.entries.values()):
        parts.append(gate)
    return "\n\n".join(parts) or None


async def _serve_stdio(engine: Engine) -> None:
    server = build_server(engine)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await engine.aclose()


def serve_stdio(engine: Engine) -> None:
    """Serve MCP on stdin/stdout until the client closes the stream."""
    log.info("forge: serving %d tools over stdio", len(engine.entries))
    anyio.run(_serve_stdio, engine)


def dumps_tools(engine: Engine) -> str:
    return json.dumps(tool_definitions(engine), indent=2, ensure_ascii=False)
