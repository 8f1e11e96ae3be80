"""A real HTTP server on 127.0.0.1 that records every request it receives (for tests).

`running_upstream()` serves a plain `Upstream`; `serving(upstream)` serves any subclass of it
(the serving harness, the OpenAPI tests and the plugin's petstore add their answers on top).
HTTP/1.1 with keep-alive unless `keep_alive` is False; request header names are lowercased.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar


@dataclass(frozen=True)
class Received:
    method: str
    target: str  # the raw request target: path and query exactly as sent
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def query(self) -> str:
        return self.target.split("?", 1)[1] if "?" in self.target else ""

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    delay: float = 0.0
    content_type: str = "application/json"


Responder = Callable[[Received], Reply]


@dataclass
class Upstream:
    url: str = ""
    received: list[Received] = field(default_factory=list)
    responder: Responder = lambda request: Reply(body={"ok": True, "path": request.path})
    arrived: threading.Event = field(default_factory=threading.Event)  # set as each request arrives
    # False: HTTP/1.0, one connection per request (for clients that run each call in a new event loop)
    keep_alive: bool = True

    def reply(self, responder: Responder) -> None:
        self.responder = responder

    @property
    def last(self) -> Received:
        return self.received[-1]

    def writes(self) -> list[Received]:
        return [request for request in self.received if request.method != "GET"]


def _handler(upstream: Upstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if upstream.keep_alive else "HTTP/1.0"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            request = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            upstream.received.append(request)
            upstream.arrived.set()
            reply = upstream.responder(request)
            if reply.delay:
                time.sleep(reply.delay)
            if isinstance(reply.body, bytes):
                payload = reply.body
            elif isinstance(reply.body, str):
                payload = reply.body.encode()
            else:
                payload = json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


U = TypeVar("U", bound=Upstream)


@contextmanager
def serving(upstream: U) -> Iterator[U]:
    """Serve `upstream` on 127.0.0.1 (a free port, set as its `url`) for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(upstream))
    server.daemon_threads = True
    upstream.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield upstream
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def running_upstream() -> Iterator[Upstream]:
    with serving(Upstream()) as upstream:
        yield upstream
