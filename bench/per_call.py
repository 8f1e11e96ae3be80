"""Per call, forge against the floor and FastMCP: `tools/call` for a GET to a local upstream.

    .venv/bin/python bench/per_call.py [--calls 200] [--rounds 5] [--concurrency 32] [--json OUT]

One upstream (bench/upstream.py, raw asyncio, a 62-byte JSON body) serves everyone. Measured
in the same run, interleaved round by round (each round runs every target, rotating who
goes first):
  * httpx:        the same GET made directly with httpx in this process (the raw floor);
  * sdk_noop:     the mcp SDK's own round trip over stdio to a tool that returns at once;
  * forge_inproc: forge's `Engine.call` in this process (no MCP);
  * forge_stdio:  `forge serve bench/fixtures/petstore.json` over stdio;
  * sdk_bridge:   bench/bridge_server.py, the least an SDK server can do for this call (one
                  httpx GET, no validation): what the SDK and httpx cost without forge;
  * fastmcp_stdio: FastMCP's OpenAPI server for the same document over stdio.
Sequential: p50/p99 of `--calls` calls per round, and the CPU time per call of this process
(the client, or everything for in-process targets) and of the stdio server process (from
/proc, so no profiler distorts it). Concurrent: `--concurrency` callers sharing
one client (one session), `--calls` calls per caller per round, calls/s.
The stdio floor is httpx + sdk_noop (latencies add; for throughput, costs per call add).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENCH, FORGE, PETSTORE, child_cpu_seconds, fastmcp_python, median, percentile, spread, upstream

Call = Callable[[], Awaitable[Any]]
# How each stdio server's process is found among this process's children, for its CPU time.
SERVER_COMMAND = {
    "sdk_noop": b"noop_server.py",
    "sdk_bridge": b"bridge_server.py",
    "forge_stdio": b"forge\x00serve",
    "fastmcp_stdio": b"fastmcp_server.py",
}
TOOL, ARGS = "getPetById", {"petId": 1}


async def _sequential(call: Call, calls: int) -> list[float]:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return samples


async def _concurrent(call: Call, callers: int, calls: int) -> tuple[float, list[float]]:
    samples: list[float] = []

    async def caller() -> None:
        for _ in range(calls):
            started = time.perf_counter()
            await call()
            samples.append(time.perf_counter() - started)

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(callers):
            group.start_soon(caller)
    return callers * calls / (time.perf_counter() - started), samples


def _checked(result: Any, label: str) -> Any:
    if getattr(result, "is_error", False):
        raise RuntimeError(f"{label}: tool call failed: {result.content[0].text[:300]}")
    return result


async def _targets(stack: AsyncExitStack, base_url: str, python: str | None, mode: str) -> dict[str, Call]:
    from forge.engine import Engine
    from forge.gate import Gate
    from forge.loading import load_spec
    from forge.openapi import OpenAPIOptions
    from forge.tokenstore import MemoryTokenStore

    http = await stack.enter_async_context(httpx.AsyncClient(trust_env=False))
    url = f"{base_url}/pet/1"

    async def floor() -> Any:
        response = await http.get(url)
        response.raise_for_status()
        return response.json()

    engine = Engine([load_spec(PETSTORE, OpenAPIOptions(base_url=base_url))], gate=Gate(MemoryTokenStore()))
    stack.push_async_callback(engine.aclose)

    async def inproc() -> Any:
        outcome = await engine.call(TOOL, ARGS)
        if outcome.is_error:
            raise RuntimeError(f"forge_inproc: {outcome.text[:300]}")
        return outcome

    async def stdio(label: str, command: str, args: list[str], tool: str, arguments: dict[str, Any]) -> Call:
        client = await stack.enter_async_context(
            Client(StdioServerParameters(command=command, args=args), mode=mode, cache=None)  # type: ignore[arg-type]
        )
        return lambda: _call(client, label, tool, arguments)

    targets: dict[str, Call] = {"httpx": floor, "forge_inproc": inproc}
    targets["sdk_noop"] = await stdio("sdk_noop", sys.executable, [str(BENCH / "noop_server.py")], "noop", {})
    targets["sdk_bridge"] = await stdio(
        "sdk_bridge", sys.executable, [str(BENCH / "bridge_server.py"), base_url], TOOL, ARGS
    )
    targets["forge_stdio"] = await stdio(
        "forge_stdio", FORGE[0], [*FORGE[1:], "serve", str(PETSTORE), "--base-url", base_url], TOOL, ARGS
    )
    if python:
        targets["fastmcp_stdio"] = await stdio(
            "fastmcp_stdio",
            python,
            [str(BENCH / "fastmcp_server.py"), str(PETSTORE), "--base-url", base_url],
            TOOL,
            ARGS,
        )
    return targets


async def _call(client: Client, label: str, tool: str, arguments: dict[str, Any]) -> Any:
    return _checked(await client.call_tool(tool, arguments), label)


async def _run(calls: int, rounds: int, concurrency: int, with_fastmcp: bool, mode: str) -> dict[str, Any]:
    python = fastmcp_python() if with_fastmcp else None
    with upstream() as base_url:
        async with AsyncExitStack() as stack:
            targets = await _targets(stack, base_url, python, mode)
            names = list(targets)
            for name in names:  # warm up: connections, caches, first-call imports
                await _sequential(targets[name], 20)
            seq: dict[str, list[float]] = {n: [] for n in names}
            seq_p50s: dict[str, list[float]] = {n: [] for n in names}
            client_cpu: dict[str, float] = dict.fromkeys(names, 0.0)
            server_cpu: dict[str, float] = dict.fromkeys(names, 0.0)
            conc: dict[str, list[float]] = {n: [] for n in names}
            conc_lat: dict[str, list[float]] = {n: [] for n in names}
            for r in range(rounds):
                order = names[r % len(names) :] + names[: r % len(names)]
                for name in order:
                    cpu, server = time.process_time(), child_cpu_seconds(SERVER_COMMAND.get(name))
                    samples = await _sequential(targets[name], calls)
                    client_cpu[name] += time.process_time() - cpu
                    server_cpu[name] += child_cpu_seconds(SERVER_COMMAND.get(name)) - server
                    seq[name] += samples
                    seq_p50s[name].append(median(samples))
                for name in order:
                    per_caller = max(1, calls // concurrency)
                    rate, samples = await _concurrent(targets[name], concurrency, per_caller)
                    conc[name].append(rate)
                    conc_lat[name] += samples
                print(f"  round {r + 1}/{rounds} done", flush=True)
    results: dict[str, Any] = {
        "calls": calls,
        "rounds": rounds,
        "concurrency": concurrency,
        "mode": mode,
        "targets": {},
    }
    for name in names:
        results["targets"][name] = {
            "p50_ms": median(seq[name]) * 1e3,
            "p99_ms": percentile(seq[name], 99) * 1e3,
            "p50_ms_spread": spread([x * 1e3 for x in seq_p50s[name]]),
            "client_cpu_ms": client_cpu[name] / len(seq[name]) * 1e3,
            "server_cpu_ms": server_cpu[name] / len(seq[name]) * 1e3 if name in SERVER_COMMAND else None,
            "conc_calls_per_s": median(conc[name]),
            "conc_calls_per_s_spread": spread(conc[name]),
            "conc_p50_ms": median(conc_lat[name]) * 1e3,
            "conc_p99_ms": percentile(conc_lat[name], 99) * 1e3,
        }
    t = results["targets"]
    floor_p50 = t["httpx"]["p50_ms"] + t["sdk_noop"]["p50_ms"]
    floor_rate = 1 / (1 / t["httpx"]["conc_calls_per_s"] + 1 / t["sdk_noop"]["conc_calls_per_s"])
    results["stdio_floor"] = {"p50_ms": floor_p50, "conc_calls_per_s": floor_rate}
    ratios: dict[str, float] = {
        "forge_stdio_p50_x_floor": t["forge_stdio"]["p50_ms"] / floor_p50,
        "sdk_bridge_p50_x_floor": t["sdk_bridge"]["p50_ms"] / floor_p50,
        "forge_stdio_p50_x_sdk_bridge": t["forge_stdio"]["p50_ms"] / t["sdk_bridge"]["p50_ms"],
        "forge_inproc_p50_x_httpx": t["forge_inproc"]["p50_ms"] / t["httpx"]["p50_ms"],
        "forge_stdio_conc_rate_of_floor": t["forge_stdio"]["conc_calls_per_s"] / floor_rate,
        "forge_inproc_conc_rate_of_httpx": t["forge_inproc"]["conc_calls_per_s"] / t["httpx"]["conc_calls_per_s"],
    }
    if "fastmcp_stdio" in t:
        ratios["fastmcp_stdio_p50_x_floor"] = t["fastmcp_stdio"]["p50_ms"] / floor_p50
        ratios["fastmcp_stdio_p50_x_sdk_bridge"] = t["fastmcp_stdio"]["p50_ms"] / t["sdk_bridge"]["p50_ms"]
        ratios["fastmcp_stdio_conc_rate_of_floor"] = t["fastmcp_stdio"]["conc_calls_per_s"] / floor_rate
    results["ratios"] = ratios
    return results


def run(
    calls: int = 200, rounds: int = 5, concurrency: int = 32, with_fastmcp: bool = True, mode: str = "auto"
) -> dict[str, Any]:
    return anyio.run(_run, calls, rounds, concurrency, with_fastmcp, mode)


def print_table(results: dict[str, Any]) -> None:
    c = results["concurrency"]
    print(
        f"{'target':14} {'p50 ms':>8} {'p99 ms':>8} {'p50 per round':>15} {'CPU ms: here':>12} {'server':>7} "
        f"{f'{c} callers/s':>12} {f'{c}c p99 ms':>10}"
    )
    for name, t in results["targets"].items():
        server = "" if t["server_cpu_ms"] is None else f"{t['server_cpu_ms']:.2f}"
        print(
            f"{name:14} {t['p50_ms']:8.3f} {t['p99_ms']:8.3f} {t['p50_ms_spread']:>15} {t['client_cpu_ms']:12.2f} "
            f"{server:>7} {t['conc_calls_per_s']:12.0f} {t['conc_p99_ms']:10.2f}"
        )
    f = results["stdio_floor"]
    print(f"{'stdio floor':14} {f['p50_ms']:8.3f} {'':8} {'':15} {f['conc_calls_per_s']:12.0f}")
    for key, value in results["ratios"].items():
        print(f"  {key}: {value:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per target per round (sequential)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--mode", default="auto", choices=["auto", "legacy"], help="MCP protocol generation")
    parser.add_argument("--no-fastmcp", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = run(args.calls, args.rounds, args.concurrency, not args.no_fastmcp, args.mode)
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
