"""Load test for `forge serve --http`: concurrent MCP clients against a local upstream.

Starts, all on 127.0.0.1 and all stopped at the end:
  * an upstream API (uvicorn, a tiny ASGI app that counts the writes it receives),
  * `forge serve SPEC --http 127.0.0.1:<port>` (options passed through with --forge-arg),
  * N concurrent callers, each its own `mcp.Client` over Streamable HTTP.

Each caller repeats: three reads, then one write confirmation round (preview -> confirm ->
confirm again with the same token, which must be refused). The run is bounded by --calls
and --max-seconds. It prints calls/s, p50/p99 latency, errors, how many tokens were accepted
twice (must be 0), writes the upstream saw against writes confirmed, and the server's RSS
over the run. Exit status 1 when any check fails.

    .venv/bin/python bench/load_http.py --callers 64 --calls 10000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, free_port, status_kb, wait_http

# --- the upstream (runs in its own process: `load_http.py --upstream PORT`) ---------------


def run_upstream(port: int) -> None:
    import uvicorn

    writes = 0

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        nonlocal writes
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                while (await receive())["type"] != "lifespan.shutdown":
                    await send({"type": "lifespan.startup.complete"})
                await send({"type": "lifespan.shutdown.complete"})
            return
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        if scope["method"] == "POST":
            writes += 1
        if scope["path"] == "/_writes":
            body = json.dumps({"writes": writes}).encode()
        else:
            body = json.dumps({"id": scope["path"].rsplit("/", 1)[-1], "name": "widget"}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# --- helpers ------------------------------------------------------------------------------


def rss_kib(pid: int) -> int:
    return status_kb(pid, "VmRSS")


def spec(url: str) -> dict[str, Any]:
    return {
        "name": "bench",
        "transport": {"kind": "rest", "url": url, "auth": {"kind": "bearer", "env": "BENCH_TOKEN"}},
        "tools": [
            {
                "name": "get_item",
                "description": "Get one item.",
                "params": [{"name": "id", "type": "string", "required": True}],
                "request": {"method": "GET", "path": "/items/{id}"},
            },
            {
                "name": "create_item",
                "description": "Create an item.",
                "write": True,
                "params": [{"name": "title", "type": "string", "required": True}],
                "request": {"method": "POST", "path": "/items", "body": {"title": "title"}},
            },
        ],
    }


# --- the load -----------------------------------------------------------------------------


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.confirmed = 0
        self.twice = 0
        self.calls = 0


async def caller(index: int, url: str, mode: str, stats: Stats, budget: list[int], deadline: float) -> None:
    from mcp import Client

    def text(result: Any) -> str:
        return "\n".join(getattr(block, "text", "") for block in result.content)

    async def timed(name: str, arguments: dict[str, Any]) -> Any:
        start = time.perf_counter()
        try:
            result = await client.call_tool(name, arguments)
        finally:
            stats.latencies.append(time.perf_counter() - start)
            stats.calls += 1
        return result

    def take(n: int) -> bool:
        if budget[0] < n or time.monotonic() > deadline:
            return False
        budget[0] -= n
        return True

    round_ = 0
    async with Client(url, mode=mode, cache=None) as client:  # type: ignore[arg-type]
        while True:
            round_ += 1
            try:
                if round_ % 4:
                    if not take(1):
                        return
                    result = await timed("get_item", {"id": f"{index}-{round_}"})
                    if result.is_error:
                        stats.errors.append(text(result)[:200])
                    continue
                if not take(3):
                    return
                title = f"item {index}-{round_}"
                preview = await timed("create_item", {"title": title})
                token = text(preview).split('confirm="', 1)[1].split('"', 1)[0]
                sent = await timed("create_item", {"title": title, "confirm": token})
                again = await timed("create_item", {"title": title, "confirm": token})
                if sent.is_error:
                    stats.errors.append(text(sent)[:200])
                else:
                    stats.confirmed += 1
                if not again.is_error:
                    stats.twice += 1
                elif "already been used" not in text(again):
                    stats.errors.append(text(again)[:200])
            except Exception as exc:
                stats.errors.append(f"{type(exc).__name__}: {exc}"[:200])


async def sample_rss(pid: int, stats: Stats, total: int, samples: list[tuple[int, int]], stop: asyncio.Event) -> None:
    while not stop.is_set():
        samples.append((stats.calls, rss_kib(pid)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def drive(url: str, pid: int, args: argparse.Namespace) -> tuple[Stats, float, list[tuple[int, int]]]:
    stats = Stats()
    budget = [args.calls]
    samples: list[tuple[int, int]] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pid, stats, args.calls, samples, stop))
    start = time.perf_counter()
    deadline = time.monotonic() + args.max_seconds
    await asyncio.gather(*(caller(i, url, args.mode, stats, budget, deadline) for i in range(args.callers)))
    elapsed = time.perf_counter() - start
    stop.set()
    await sampler
    samples.append((stats.calls, rss_kib(pid)))
    return stats, elapsed, samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--callers", type=int, default=64, help="concurrent MCP clients (default 64)")
    parser.add_argument("--calls", type=int, default=10_000, help="total tool calls (default 10000)")
    parser.add_argument("--max-seconds", type=float, default=600, help="stop after this long (default 600)")
    parser.add_argument("--mode", default="auto", choices=["auto", "legacy"], help="protocol generation")
    parser.add_argument(
        "--forge-arg", action="append", default=[], help="extra `forge serve` argument (e.g. --forge-arg=--stateless)"
    )
    args = parser.parse_args()
    if args.upstream:
        run_upstream(args.upstream)
        return 0
    if not 1 <= args.callers <= 512 or not 1 <= args.calls <= 1_000_000:
        raise SystemExit("--callers must be 1..512 and --calls 1..1000000")

    import httpx

    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            up_port, forge_port = free_port(), free_port()
            upstream = subprocess.Popen([sys.executable, __file__, "--upstream", str(up_port)])
            processes.append(upstream)
            wait_http(f"http://127.0.0.1:{up_port}/_writes", upstream)
            path = Path(tmp) / "bench.json"
            path.write_text(json.dumps(spec(f"http://127.0.0.1:{up_port}")))
            env = {**os.environ, "BENCH_TOKEN": "bench-credential-0001", "PYTHONPATH": str(ROOT)}
            command = [sys.executable, "-m", "forge", "serve", str(path), "--http", f"127.0.0.1:{forge_port}"]
            forge = subprocess.Popen(command + args.forge_arg, env=env)
            processes.append(forge)
            wait_http(f"http://127.0.0.1:{forge_port}/healthz", forge)
            rss_start = rss_kib(forge.pid)
            stats, elapsed, samples = asyncio.run(drive(f"http://127.0.0.1:{forge_port}/mcp", forge.pid, args))
            writes = httpx.get(f"http://127.0.0.1:{up_port}/_writes").json()["writes"]
        finally:
            for process in reversed(processes):
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
                    try:
                        process.wait(30)
                    except subprocess.TimeoutExpired:
                        process.kill()

    latencies = sorted(stats.latencies)
    p50 = statistics.median(latencies) * 1000 if latencies else 0.0
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000 if latencies else 0.0
    warm = next((rss for calls, rss in samples if calls >= stats.calls * 0.1), rss_start)
    end = samples[-1][1] if samples else 0
    peak = max((rss for _, rss in samples), default=0)
    print(f"forge serve --http {' '.join(args.forge_arg)}  mode={args.mode}  callers={args.callers}")
    print(f"calls         {stats.calls} in {elapsed:.1f}s = {stats.calls / elapsed:.0f} calls/s")
    print(f"latency       p50 {p50:.1f} ms   p99 {p99:.1f} ms")
    print(f"errors        {len(stats.errors)}")
    for message in sorted(set(stats.errors))[:5]:
        print(f"  e.g. {message}")
    print(f"writes        confirmed {stats.confirmed}, upstream received {writes}")
    print(f"tokens accepted twice  {stats.twice}")
    print(
        f"server RSS    start {rss_start / 1024:.1f} MiB, after 10% of calls {warm / 1024:.1f} MiB, "
        f"end {end / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB"
    )
    ok = not stats.errors and stats.twice == 0 and writes == stats.confirmed
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
