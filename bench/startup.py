"""Startup benchmark: process spawn -> `tools/list` answered over stdio, for OpenAPI documents.

    .venv/bin/python bench/startup.py DOC [DOC ...] [--runs 5] [--base-url URL ...]

Options this script does not know (`--base-url`, `--include`, ...) go to `forge serve`.

For each document, `forge serve DOC` is spawned by the mcp SDK's stdio client and timed
from spawn to the `tools/list` answer; the server's peak RSS (VmHWM, read from /proc
before it exits) and the size of the tools array (JSON bytes) are recorded. A bare
`python -c "import json; json.load(open(DOC))"` is measured in the same run as the
baseline. Medians and ratios are printed. Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import child_peak_rss_kb

STATE = Path(__file__).resolve().parents[1] / ".bench" / "state"


async def _forge_once(document: Path, extra: list[str], cache: bool = False) -> tuple[float, int, int, int]:
    """One spawn -> tools/list. `cache`: with forge's compiled-spec cache (in .bench/state),
    which a previous run has filled; without it, the document is parsed, compiled and
    checked from scratch (FORGE_CACHE=0)."""
    env = {**get_default_environment(), "FORGE_STATE_DIR": str(STATE), "FORGE_CACHE": "1" if cache else "0"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "forge", "serve", str(document), *extra], env=env
    )
    started = time.perf_counter()
    async with Client(params) as client:
        result = await client.list_tools()
        elapsed = time.perf_counter() - started
        rss = child_peak_rss_kb(command_contains=b"forge")
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools]
    return elapsed, rss, len(json.dumps(tools, separators=(",", ":")).encode()), len(tools)


_BASELINE = (
    "import json, sys; json.load(open(sys.argv[1])); "
    "print(next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1])"
)


def _baseline_once(document: Path) -> tuple[float, int]:
    """Seconds and peak RSS (kB, the child's own VmHWM: fork-inherited rusage would overstate it)."""
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _BASELINE, str(document)], capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    return elapsed, int(run.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("documents", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args, extra = parser.parse_known_args()
    for document in args.documents:
        forge_runs = [anyio.run(_forge_once, document, extra) for _ in range(args.runs)]
        base_runs = [_baseline_once(document) for _ in range(args.runs)]
        f_time = statistics.median(r[0] for r in forge_runs)
        f_rss = statistics.median(r[1] for r in forge_runs) / 1024
        b_time = statistics.median(r[0] for r in base_runs)
        b_rss = statistics.median(r[1] for r in base_runs) / 1024
        size, count = forge_runs[-1][2], forge_runs[-1][3]
        print(f"{document.name} ({document.stat().st_size / 1e6:.1f} MB, {count} tools, {args.runs} runs)")
        print(f"  forge serve -> tools/list: {f_time:6.2f} s  peak RSS {f_rss:6.0f} MB  tools/list {size / 1e6:.2f} MB")
        print(f"  python json.load baseline: {b_time:6.2f} s  peak RSS {b_rss:6.0f} MB")
        print(f"  ratio forge/baseline:      {f_time / b_time:6.1f} x  time, {f_rss / b_rss:.1f} x memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
