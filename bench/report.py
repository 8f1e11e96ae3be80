"""Regenerate docs/benchmarks.md: startup, per call and HTTP load, forge against the floor and FastMCP.

    .venv/bin/python bench/report.py [--runs 3] [--calls 200] [--rounds 5] [--docs petstore stripe github]
                                     [--http-calls 3000] [--out docs/benchmarks.md]

Runs bench/compare_startup.py, bench/per_call.py and bench/load_http.py (forge serve --http,
64 clients) in one go and writes the table with the date, the machine and the versions.
FastMCP runs from .bench/fastmcp-venv (or $FASTMCP_PYTHON); see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare_startup
import per_call
from _common import BENCH, ROOT, fastmcp_python, fastmcp_version, machine


def load_http(calls: int, callers: int = 64, max_seconds: float = 120) -> dict[str, Any]:
    """bench/load_http.py's figures (calls/s, p50, p99, errors), parsed from its output."""
    command = [sys.executable, str(BENCH / "load_http.py"), "--callers", str(callers), "--calls", str(calls)]
    command += ["--max-seconds", str(max_seconds)]
    out = subprocess.run(command, capture_output=True, text=True, timeout=max_seconds + 120).stdout
    found: dict[str, Any] = {"callers": callers, "ok": out.rstrip().endswith("OK"), "output": out}
    if m := re.search(r"= (\d+) calls/s", out):
        found["calls_per_s"] = int(m.group(1))
    if m := re.search(r"p50 ([\d.]+) ms\s+p99 ([\d.]+) ms", out):
        found["p50_ms"], found["p99_ms"] = float(m.group(1)), float(m.group(2))
    if m := re.search(r"errors\s+(\d+)", out):
        found["errors"] = int(m.group(1))
    return found


def _mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def render(info: dict[str, str], startup: dict[str, Any], calls: dict[str, Any], http: dict[str, Any] | None) -> str:
    lines = ["# Benchmarks", "", "Regenerate with `.venv/bin/python bench/report.py` (about 10 minutes).", ""]
    lines += ["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in info.items()]
    lines += ["", "## Startup: spawn -> `tools/list` answered over stdio", ""]
    lines.append(
        f"Medians of {startup['runs']} runs per server, interleaved (rotating order). `x json.load` divides by "
        "a bare `python -c 'json.load(...)'` of the same document in the same run. tools/list bytes: the tools "
        "array as compact JSON (same serialisation for both). Described params: top-level input properties "
        "with a description."
    )
    lines += [
        "",
        "| document | server | seconds (min-max) | x json.load | peak RSS MB | tools | tools/list bytes | largest tool | described params |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, e in startup["documents"].items():
        b = e["json_load"]
        lines.append(
            f"| {name} ({e['mb']:.1f} MB) | json.load | {b['seconds']:.2f} ({b['seconds_spread']}) | 1 | | | | | |"
        )
        for target in ("forge", "forge_warm", "fastmcp"):
            if target in e and e[target]["seconds"] is None:
                t = e[target]
                lines.append(
                    f"| {name} | {target} | no answer within {t['timeout']:.0f} s | > {t['timeout'] / b['seconds']:.0f} | "
                    f"{t['rss_mb']:.0f} (when stopped) | | | | |"
                )
            elif target in e:
                t = e[target]
                lines.append(
                    f"| {name} | {target} | {t['seconds']:.2f} ({t['seconds_spread']}) | {t['x_json_load']:.1f} | "
                    f"{t['rss_mb']:.0f} | {t['tools']} | {t['bytes']:,} | {t['largest_tool_bytes']:,} | "
                    f"{t['params_described']}/{t['params']} |"
                )
    lines += ["", "## Per call: `tools/call` for a GET to an upstream on 127.0.0.1", ""]
    lines.append(
        f"{calls['rounds']} interleaved rounds of {calls['calls']} sequential calls per target, then "
        f"{calls['concurrency']} concurrent callers sharing one client; protocol mode `{calls['mode']}`. "
        "`httpx`: the same GET made directly in the benchmark's process. `sdk_noop`: the mcp SDK's own stdio "
        "round trip to a tool that returns at once. The stdio floor is httpx + sdk_noop (latencies add; for "
        "throughput the per-call costs add). `sdk_bridge`: the least an SDK server can do for this call "
        "(bench/bridge_server.py: one httpx GET from the server process, no validation), as a reference for "
        "what the SDK and httpx cost here without forge."
    )
    lines += [
        "",
        f"| target | p50 ms | p99 ms | p50 per round | CPU ms per call: client (or in process) | CPU ms per call: server | {calls['concurrency']} callers: calls/s | {calls['concurrency']} callers: p99 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, t in calls["targets"].items():
        server = "" if t["server_cpu_ms"] is None else f"{t['server_cpu_ms']:.2f}"
        lines.append(
            f"| {name} | {t['p50_ms']:.2f} | {t['p99_ms']:.2f} | {t['p50_ms_spread']} | {t['client_cpu_ms']:.2f} | "
            f"{server} | {t['conc_calls_per_s']:.0f} | {t['conc_p99_ms']:.1f} |"
        )
    f = calls["stdio_floor"]
    lines.append(f"| stdio floor | {f['p50_ms']:.2f} | | | | | {f['conc_calls_per_s']:.0f} | |")
    if http:
        lines += ["", "## Over Streamable HTTP (bench/load_http.py, forge only)", ""]
        lines.append(
            f"`forge serve --http`, {http['callers']} concurrent MCP clients (reads plus write confirmation rounds): "
            f"{http.get('calls_per_s', '?')} calls/s, p50 {http.get('p50_ms', '?')} ms, p99 {http.get('p99_ms', '?')} ms, "
            f"errors {http.get('errors', '?')}, checks {'OK' if http['ok'] else 'FAILED'}."
        )
    lines += ["", "## Targets (ratios from this run)", "", "| target | forge | FastMCP | |", "|---|---|---|---|"]
    gh = startup["documents"].get("github")
    if gh:
        fm = gh.get("fastmcp") if gh.get("fastmcp", {}).get("seconds") is not None else None
        for target, label in (("forge", "cold"), ("forge_warm", "cached")):
            x = gh[target]["x_json_load"]
            fx = f"{fm['x_json_load']:.1f}x" if fm else "-"
            lines.append(
                f"| GitHub spawn -> tools/list <= 3x json.load ({label}) | {x:.1f}x | {fx} | {_mark(x <= 3)} |"
            )
        if fm:
            for target, label in (("forge", "cold"), ("forge_warm", "cached")):
                r = gh[target]["rss_mb"] / fm["rss_mb"]
                lines.append(
                    f"| GitHub peak RSS <= 1/3 of FastMCP's ({label}) | {gh[target]['rss_mb']:.0f} MB ({r:.2f}x) | {fm['rss_mb']:.0f} MB | {_mark(r <= 1 / 3)} |"
                )
            s = gh["forge"]["bytes"] / fm["bytes"]
            lines.append(
                f"| GitHub tools/list <= 1/3 of FastMCP's bytes | {gh['forge']['bytes']:,} ({s:.2f}x) | {fm['bytes']:,} | {_mark(s <= 1 / 3)} |"
            )
    r = calls["ratios"]
    fm_p50 = f"{r['fastmcp_stdio_p50_x_floor']:.2f}x" if "fastmcp_stdio_p50_x_floor" in r else "-"
    fm_rate = f"{r['fastmcp_stdio_conc_rate_of_floor']:.0%}" if "fastmcp_stdio_conc_rate_of_floor" in r else "-"
    x = r["forge_stdio_p50_x_floor"]
    lines.append(f"| stdio tools/call p50 <= 1.15x floor | {x:.2f}x | {fm_p50} | {_mark(x <= 1.15)} |")
    b = r["sdk_bridge_p50_x_floor"]
    lines.append(f"| (reference: the SDK bridge, no forge) p50 x floor | {b:.2f}x | | {_mark(b <= 1.15)} |")
    fm_b = f"{r['fastmcp_stdio_p50_x_sdk_bridge']:.2f}x" if "fastmcp_stdio_p50_x_sdk_bridge" in r else "-"
    lines.append(f"| (no target) stdio p50 x the SDK bridge | {r['forge_stdio_p50_x_sdk_bridge']:.2f}x | {fm_b} | |")
    x = r["forge_inproc_p50_x_httpx"]
    lines.append(f"| in process p50 <= 1.3x raw httpx | {x:.2f}x | | {_mark(x <= 1.3)} |")
    x = r["forge_stdio_conc_rate_of_floor"]
    lines.append(
        f"| stdio, {calls['concurrency']} callers: calls/s >= 80% of floor | {x:.0%} | {fm_rate} | {_mark(x >= 0.8)} |"
    )
    x = r["forge_inproc_conc_rate_of_httpx"]
    lines.append(
        f"| in process, {calls['concurrency']} callers: calls/s >= 80% of httpx | {x:.0%} | | {_mark(x >= 0.8)} |"
    )
    notes = ROOT / "bench" / "NOTES.md"
    if notes.exists():
        lines += ["", notes.read_text().strip()]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", nargs="+", default=["petstore", "github", "stripe"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--http-calls", type=int, default=3000, help="0 skips the HTTP load")
    parser.add_argument("--no-fastmcp", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args()
    python = None if args.no_fastmcp else fastmcp_python()
    info = machine()
    info["fastmcp (its mcp)"] = fastmcp_version(python) or "not installed"
    print("startup ...", flush=True)
    startup = compare_startup.run(args.docs, args.runs, python is not None)
    compare_startup.print_table(startup)
    print("per call ...", flush=True)
    calls = per_call.run(args.calls, args.rounds, 32, python is not None)
    per_call.print_table(calls)
    http = None
    if args.http_calls and (BENCH / "load_http.py").exists():
        print("http load ...", flush=True)
        http = load_http(args.http_calls)
        print(http["output"])
    args.out.write_text(render(info, startup, calls, http))
    if args.json:
        args.json.write_text(
            json.dumps({"machine": info, "startup": startup, "per_call": calls, "http": http}, indent=1)
        )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
