"""Pure: the `tools/list` answer, as the JSON values MCP puts on the wire.

Built once per server from forge's own schemas. Nested schema objects are shared with
the compiled spec, not copied: for GitHub's REST API (1,223 tools, a 3.4 MB answer) that
saves a deep copy of every schema on each listing. The SDK still validates the answer
against the negotiated protocol version's `ListToolsResult` and frames it; this module
only decides what forge's tools look like (see
https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool).

No MCP import here: `forge list --json` prints exactly this without loading the SDK.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from forge.engine import Entry
from forge.schema import input_schema, output_schema

__all__ = ["tool_definition", "tool_definitions", "tools_page"]


def tool_definition(entry: Entry) -> dict[str, Any]:
    """One MCP `Tool`: name, description, input/output schema and annotations (camelCase)."""
    tool = entry.tool
    hints = tool.hints
    definition: dict[str, Any] = {
        "name": entry.name,
        "description": tool.description,
        "inputSchema": input_schema(tool),
    }
    output = output_schema(tool)
    if output is not None:
        definition["outputSchema"] = output
    definition["annotations"] = {
        "readOnlyHint": hints.read_only,
        "destructiveHint": hints.destructive,
        "idempotentHint": hints.idempotent,
        "openWorldHint": hints.open_world,
    }
    return definition


def tool_definitions(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """The `tools` array of `tools/list`, in the engine's order."""
    return [tool_definition(entry) for entry in entries]


def tools_page(
    tools: Sequence[dict[str, Any]], cursor: str | None, per_page: int | None
) -> tuple[Sequence[dict[str, Any]], str | None]:
    """One `tools/list` page: the tools from `cursor` on, at most `per_page` of them, and the
    cursor of the next page (None on the last). `per_page` None: everything at once.

    Cursors are the offset of the page's first tool, as text; MCP clients treat them as
    opaque and hand them back unchanged.

    Raises:
        ValueError: the cursor is not one this listing hands out.
    """
    start = 0
    if cursor is not None:
        if (
            not (cursor.isascii() and cursor.isdigit())
            or int(cursor) >= len(tools)
            or (per_page and int(cursor) % per_page)
        ):
            raise ValueError(f"invalid cursor {cursor[:40]!r}: list tools again from the start")
        start = int(cursor)
    if per_page is None:
        return tools[start:], None
    end = start + per_page
    return tools[start:end], str(end) if end < len(tools) else None
