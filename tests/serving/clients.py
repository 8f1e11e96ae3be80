"""Driving `forge serve --http` with the SDK's own client (mcp.Client over Streamable HTTP)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


@asynccontextmanager
async def connect(
    url: str, mode: str = "auto", *, headers: dict[str, str] | None = None, elicit: Any = None
) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(headers=headers or {}, timeout=httpx2.Timeout(30, read=60))
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, elicitation_callback=elicit, cache=None) as client:  # type: ignore[arg-type]
            yield client


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def token_of(preview: str) -> str:
    return preview.split('confirm="', 1)[1].split('"', 1)[0]


async def accept(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"send": True})


async def decline(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="decline")
