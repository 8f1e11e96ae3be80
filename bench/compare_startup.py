"""Startup, forge against FastMCP: spawn -> `tools/list` answered over stdio, interleaved.

    .venv/bin/python bench/compare_startup.py [--docs petstore stripe github] [--runs 3] [--json OUT]

Per document and run, in rotating order: the `json.load` baseline and forge (both from
bench/startup.py, the startup script of the OpenAPI work) and FastMCP's OpenAPI server
(bench/fastmcp_server.py, run with FastMCP's own Python). Recorded: seconds from spawn to
the tools/list answer, the server's peak RSS, and the tools/list size (the tools array as
compact JSON, the same serialisation for both). Prints medians and ratios; --json writes
everything, runs included, for bench/report.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENCH, child_peak_rss_kb, documents, fastmcp_python, median, spread
from startup import _baseline_once, _forge_once

TIMEOUT = float(os.environ.get("FORGE_BENCH_TIMEOUT", 180))  # seconds per spawn -> tools/list


def tools_stats(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Size of the tools array and of its largest tool; how many parameters carry a description."""
    sizes = [len(json.dumps(t, separators=(",", ":")).encode()) for t in tools]
    params = [p for t in tools for p in (t.get("inputSchema", {}).get("properties") or {}).values()]
    described = sum(1 for p in params if isinstance(p, dict) and p.get("description"))
    return {
        "tools": len(tools),
        "bytes": len(json.dumps(tools, separators=(",", ":")).encode()),
        "largest_tool_bytes": max(sizes, default=0),
        "params": len(params),
        "params_described": described,
    }


async def _stdio_once(command: str, args: list[str]) -> tuple[float | None, int, list[dict[str, Any]]]:
    """Seconds to the tools/list answer (None after TIMEOUT), peak RSS in kB, the tools."""
    params = StdioServerParameters(command=command, args=args)
    peak = 0
    tools: list[dict[str, Any]] = []
    elapsed: float | None = None

    async def sample() -> None:  # so a run that times out still reports its memory
        nonlocal peak
        while True:
            peak = max(peak, child_peak_rss_kb())
            await anyio.sleep(0.5)

    async with anyio.create_task_group() as group:
        group.start_soon(sample)
        with anyio.move_on_after(TIMEOUT):
            started = time.perf_counter()
            async with Client(params, cache=None) as client:
                result = await client.list_tools()
                elapsed = time.perf_counter() - started
                peak = max(peak, child_peak_rss_kb())
            tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools]
        group.cancel_scope.cancel()
    return elapsed, peak, tools


def forge_tools(path: Path) -> list[dict[str, Any]]:
    """forge's tools array for `path`, computed in process (untimed), for the size details."""
    from forge.engine import Engine
    from forge.gate import Gate
    from forge.listing import tool_definitions
    from forge.loading import load_spec
    from forge.openapi import OpenAPIOptions
    from forge.tokenstore import MemoryTokenStore

    engine = Engine([load_spec(path, OpenAPIOptions())], gate=Gate(MemoryTokenStore()))
    return tool_definitions(engine.entries.values())


def run(names: list[str], runs: int, with_fastmcp: bool = True) -> dict[str, Any]:
    python = fastmcp_python() if with_fastmcp else None
    results: dict[str, Any] = {"runs": runs, "fastmcp": python is not None, "documents": {}}
    for name, path in documents(names):
        samples: dict[str, list[dict[str, float]]] = {"json_load": [], "forge": [], "forge_warm": [], "fastmcp": []}
        fastmcp_tools: list[dict[str, Any]] = []
        targets = ["json_load", "forge", "forge_warm"] + (["fastmcp"] if python else [])
        anyio.run(_forge_once, path, [], True)  # fills the compiled-spec cache for forge_warm
        for i in range(runs):
            order = targets[i % len(targets) :] + targets[: i % len(targets)]  # rotate who goes first
            for target in order:
                if target == "json_load":
                    seconds, rss_kb = _baseline_once(path)
                elif target in ("forge", "forge_warm"):
                    seconds, rss_kb, _size, _ = anyio.run(_forge_once, path, [], target == "forge_warm")
                else:
                    assert python is not None
                    if any(r["seconds"] is None for r in samples[target]):
                        continue  # timed out once on this document: not repeated
                    seconds, rss_kb, tools = anyio.run(
                        _stdio_once, python, [str(BENCH / "fastmcp_server.py"), str(path)]
                    )
                    fastmcp_tools = tools or fastmcp_tools
                samples[target].append({"seconds": seconds, "rss_mb": rss_kb / 1024})
                shown = f"{seconds:7.2f} s" if seconds is not None else f"timeout (>{TIMEOUT:.0f} s)"
                print(f"  {name} run {i + 1}/{runs} {target:9} {shown} {rss_kb / 1024:7.0f} MB", flush=True)
        entry: dict[str, Any] = {"path": str(path), "mb": path.stat().st_size / 1e6, "samples": samples}
        for target, rows in samples.items():
            done = [r["seconds"] for r in rows if r["seconds"] is not None]
            if rows and not done:  # timed out: a lower bound, and the memory reached by then
                entry[target] = {"seconds": None, "timeout": TIMEOUT, "seconds_spread": f">{TIMEOUT:.0f}"}
                entry[target]["rss_mb"] = max(r["rss_mb"] for r in rows)
            elif rows:
                entry[target] = {"seconds": median(done), "seconds_spread": spread(done)}
                entry[target]["rss_mb"] = median([r["rss_mb"] for r in rows])
        entry["forge"].update(tools_stats(forge_tools(path)))
        entry["forge_warm"].update(tools_stats(forge_tools(path)))
        base = entry["json_load"]["seconds"]
        for target in ("forge", "forge_warm", "fastmcp"):
            if target in entry:
                seconds = entry[target]["seconds"]
                entry[target]["x_json_load"] = seconds / base if seconds is not None else None
        if python and fastmcp_tools:
            entry["fastmcp"].update(tools_stats(fastmcp_tools))
        results["documents"][name] = entry
    return results


def print_table(results: dict[str, Any]) -> None:
    print(
        f"{'document':10} {'server':8} {'spawn->list s':>14} {'x json.load':>11} {'peak RSS MB':>11} {'list bytes':>11}"
    )
    for name, entry in results["documents"].items():
        b = entry["json_load"]
        print(f"{name:10} {'json':8} {b['seconds']:14.2f} {1:11.1f} {b['rss_mb']:11.0f} {'-':>11}")
        for target in ("forge", "forge_warm", "fastmcp"):
            if target in entry:
                e = entry[target]
                if e["seconds"] is None:
                    print(f"{name:10} {target:8} {'>' + str(int(e['timeout'])):>14} {'-':>11} {e['rss_mb']:11.0f}")
                    continue
                print(
                    f"{name:10} {target:8} {e['seconds']:14.2f} {e['x_json_load']:11.1f} {e['rss_mb']:11.0f} {e['bytes']:11,}"
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", nargs="+", default=["petstore", "stripe", "github"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-fastmcp", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = run(args.docs, args.runs, not args.no_fastmcp)
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
