"""Real processes for the serving tests: a recording upstream, `forge serve --http`, redis-server.

Everything binds 127.0.0.1 on a free port. Nothing sleeps for a fixed time: readiness is
found by polling a port or an HTTP endpoint, and the upstream (tests/upstream.py) signals each request
it receives with an event.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests import upstream as shared

ROOT = Path(__file__).resolve().parents[2]
FORGE = [sys.executable, "-m", "forge"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(predicate: Any, timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


# --- upstream ----------------------------------------------------------------------------


@dataclass
class Upstream(shared.Upstream):
    """The shared recording upstream, answering each request's method and raw target as JSON,
    after `delay` seconds."""

    delay: float = 0.0

    def __post_init__(self) -> None:
        self.responder = self.echo

    def echo(self, request: shared.Received) -> shared.Reply:
        return shared.Reply(body={"ok": True, "method": request.method, "path": request.target}, delay=self.delay)


@contextmanager
def running_upstream() -> Iterator[Upstream]:
    with shared.serving(Upstream()) as server:
        yield server


def item_spec(name: str, url: str, **extra: Any) -> dict[str, Any]:
    """A spec with one read (`get_item`) and one write (`create_item`), bearer auth from ACME_TOKEN."""
    return {
        "name": name,
        "transport": {"kind": "rest", "url": url, "auth": {"kind": "bearer", "env": "ACME_TOKEN"}, "timeout": 10},
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
        **extra,
    }


def write_spec(folder: Path, spec: dict[str, Any]) -> Path:
    path = folder / f"{spec['name']}.json"
    path.write_text(json.dumps(spec))
    return path


# --- forge serve -------------------------------------------------------------------------

SERVER_TOKEN = "server-credential-5d1e"


@dataclass
class Forge:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def terminate(self, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)


def _healthy(port: int, process: subprocess.Popen[bytes]) -> bool:
    if process.poll() is not None:
        raise AssertionError(f"forge serve exited with {process.returncode} before it was ready")
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def forge_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_", "ACME_"))}
    env.update({"ACME_TOKEN": SERVER_TOKEN, "PYTHONPATH": str(ROOT)}, **extra)
    return env


@contextmanager
def forge_serve(specs: list[Path], tmp: Path, *options: str, env: dict[str, str] | None = None) -> Iterator[Forge]:
    """`forge serve SPEC... --http 127.0.0.1:<free port> OPTIONS`, ready when this yields."""
    port = free_port()
    log = tmp / f"forge-{port}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*FORGE, "--log-level", "INFO", "serve", *map(str, specs), "--http", f"127.0.0.1:{port}", *options],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env or forge_env(),
            cwd=tmp,
        )
    forge = Forge(process, port, log)
    try:
        wait_for(lambda: _healthy(port, process), what=f"forge serve on port {port}")
        yield forge
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# --- redis-server ------------------------------------------------------------------------

REDIS_SERVER = shutil.which("redis-server")


@dataclass
class Redis:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextmanager
def running_redis() -> Iterator[Redis]:
    assert REDIS_SERVER is not None
    port = free_port()
    process = subprocess.Popen(
        [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    redis = Redis(process, port)
    try:
        wait_for(lambda: _accepts(port), what="redis-server")
        yield redis
    finally:
        redis.stop()
