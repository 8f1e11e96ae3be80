"""Smoke test of the comparison benchmarks: each script runs once on the petstore, no timings asserted.

FastMCP parts run only when a Python with fastmcp is found (.bench/fastmcp-venv or $FASTMCP_PYTHON).
"""

from __future__ import annotations

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
    names = {"httpx", "sdk_noop", "sdk_bridge", "forge_inproc", "forge_stdio"} | ({"fastmcp_stdio"} if with_fastmcp else set())
    assert set(calls["targets"]) == names
    assert all(t["p50_ms"] > 0 for t in calls["targets"].values())


def test_report(startup: dict, calls: dict, tmp_path: Path) -> None:
    text = report.render(_common.machine(), startup, calls, None)
    assert "| petstore" in text and "stdio tools/call p50" in text
