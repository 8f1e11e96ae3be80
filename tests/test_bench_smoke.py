"""Smoke test of the comparison benchmarks: each script runs once on the petstore, no timings asserted.

FastMCP parts run only when a Python with fastmcp is found (.bench/fastmcp-venv or $FASTMCP_PYTHON).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import _common  # noqa: E402
import compare_startup  # noqa: E402
import per_call  # noqa: E402
import report  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture(scope="module")
def with_fastmcp() -> bool:
    return _common.fastmcp_python() is not None


@pytest.fixture(scope="module")
def startup(with_fastmcp: bool) -> dict:
    return compare_startup.run(["petstore"], runs=1, with_fastmcp=with_fastmcp)


@pytest.fixture(scope="module")
def calls(with_fastmcp: bool) -> dict:
    return per_call.run(calls=3, rounds=1, concurrency=2, with_fastmcp=with_fastmcp)


def test_startup(startup: dict, with_fastmcp: bool) -> None:
    petstore = startup["documents"]["petstore"]
    assert petstore["forge"]["tools"] == 4
    assert petstore["forge"]["params_described"] >= 3
    assert ("fastmcp" in petstore) is with_fastmcp
    if with_fastmcp:
        assert petstore["fastmcp"]["tools"] == 4


def test_per_call(calls: dict, with_fastmcp: bool) -> None:
    names = {"httpx", "sdk_noop", "sdk_bridge", "forge_inproc", "forge_stdio"} | (
        {"fastmcp_stdio"} if with_fastmcp else set()
    )
    assert set(calls["targets"]) == names
    assert all(t["p50_ms"] > 0 and t["client_cpu_ms"] > 0 for t in calls["targets"].values())
    assert calls["targets"]["forge_stdio"]["server_cpu_ms"] is not None
    assert calls["targets"]["forge_inproc"]["server_cpu_ms"] is None


def test_report(startup: dict, calls: dict, tmp_path: Path) -> None:
    text = report.render(_common.machine(), startup, calls, None)
    assert "| petstore" in text and "stdio tools/call p50" in text


def test_http_call() -> None:
    command = [sys.executable, str(BENCH / "http_call.py"), str(_common.PETSTORE), "getPetById", '{"petId": 1}']
    run = subprocess.run([*command, "--calls", "2"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "getPetById: 2 calls over HTTP (auto), p50" in run.stdout


def test_child_cpu_seconds_finds_a_child_by_its_command_line() -> None:
    burn = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\nprint(1, flush=True)\ntime.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", burn, "cpu-marker"], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline()
        assert _common.child_cpu_seconds(b"cpu-marker") >= 0.2
        assert _common.child_cpu_seconds(b"no-such-marker") == 0.0
    finally:
        child.kill()
        child.wait()
