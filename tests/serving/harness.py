"""Real processes for the serving tests: a recording upstream, `forge serve --http`, redis-server.

Everything binds 127.0.0.1 on a free port. Nothing sleeps for a fixed time: readiness is
found by polling a port or an HTTP endpoint, and the upstream signals each request it
receives with an event.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

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


@dataclass(frozen=True)
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Upstream:
    """An HTTP API on 127.0.0.1 that records every request and answers JSON."""

    url: str = ""
    seen: list[Seen] = field(default_factory=list)
    delay: float = 0.0
    arrived: threading.Event = field(default_factory=threading.Event)

    def writes(self) -> list[Seen]:
        return [s for s in self.seen if s.method != "GET"]


def _handler(upstream: Upstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            upstream.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            upstream.arrived.set()
            if upstream.delay:
                time.sleep(upstream.delay)
            payload = json.dumps({"ok": True, "method": self.command, "path": self.path}).encode()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def running_upstream() -> Iterator[Upstream]:
    upstream = Upstream()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(upstream))
    server.daemon_threads = True
    upstream.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield upstream
    finally:
        server.shutdown()
        server.server_close()


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
