"""Latency of one `tools/call` over Streamable HTTP for any spec or document, nothing sent upstream.

    .venv/bin/python bench/http_call.py DOC TOOL '{"arg": "value"}' [--calls 50] [--mode auto|legacy] [serve options]

Starts `forge serve DOC --http 127.0.0.1:<free port> --dry-run` (dry run: each call is
validated and rendered, never sent; options it does not know go to `forge serve`), connects
one `mcp.Client`, lists the tools (every page), then
times `--calls` sequential calls and prints p50 and max. It shows what the size of a spec
costs each call: the SDK's 2026-07-28 HTTP path checks `Mcp-Param-*` headers against the
called tool's input schema, and before forge handed it a direct lookup it ran the whole
tools/list per call (GitHub's REST API: p50 403 ms; with the lookup: 6 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import FORGE, free_port, wait_http

STATE = Path(__file__).resolve().parents[1] / ".bench" / "state"


async def _measure(url: str, tool: str, arguments: dict[str, object], calls: int, mode: str) -> list[float]:
    async with Client(url, mode=mode, cache=None) as client:  # type: ignore[arg-type]
        cursor = (await client.list_tools()).next_cursor
        while cursor is not None:
            cursor = (await client.list_tools(cursor=cursor)).next_cursor
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            samples.append(time.perf_counter() - started)
            if result.is_error:
                raise SystemExit(f"{tool}: {result.content[0].text[:300]}")  # type: ignore[union-attr]
        return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("document", type=Path)
    parser.add_argument("tool")
    parser.add_argument("arguments", nargs="?", default="{}")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--mode", default="auto", choices=["auto", "legacy"])
    args, serve_options = parser.parse_known_args()
    port = free_port()
    env = {**os.environ, "FORGE_STATE_DIR": str(STATE)}
    command = [*FORGE, "serve", str(args.document), "--http", f"127.0.0.1:{port}", "--dry-run", *serve_options]
    server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", server)
        url = f"http://127.0.0.1:{port}/mcp"
        samples = anyio.run(_measure, url, args.tool, json.loads(args.arguments), args.calls, args.mode)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(
        f"{args.document.name} {args.tool}: {len(samples)} calls over HTTP ({args.mode}), "
        f"p50 {statistics.median(samples) * 1e3:.1f} ms, max {max(samples) * 1e3:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
