"""Shared fixtures: the committed documents, and a real HTTP server on 127.0.0.1 that records requests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openapi"


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Api:
    """A local API: `url` to point a spec at, `requests` received, `replies` by path prefix."""

    url: str
    requests: list[Recorded] = field(default_factory=list)
    replies: dict[str, tuple[int, Any]] = field(default_factory=dict)

    @property
    def last(self) -> Recorded:
        return self.requests[-1]


@pytest.fixture
def api() -> Iterator[Api]:
    state = Api(url="")

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            state.requests.append(Recorded(self.command, self.path, dict(self.headers.items()), body))
            status, payload = next(
                (reply for prefix, reply in state.replies.items() if self.path.startswith(prefix)), (200, {"ok": True})
            )
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
