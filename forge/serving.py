"""`forge serve --http`: the MCP endpoint as a service (uvicorn, Streamable HTTP).

```
client ──HTTP──> Guard ──> /healthz, /readyz              (answered here, no auth)
                   │  Host / Origin / bearer token / body size checks, in that order
                   └──> the SDK's Streamable HTTP app at /mcp   (forge.server.http_app)
```

The MCP SDK is used only through `forge.server`; this module is plain ASGI and uvicorn.
Nothing here reads or logs request headers beyond the checks above (per-request
credentials are read by `forge.server` and never logged).
"""

from __future__ import annotations

import hmac
import json
import logging
import math
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

import anyio
import anyio.to_thread
import uvicorn

from forge.audit import AuditLog
from forge.engine import Engine
from forge.errors import ForgeError
from forge.serve_args import (
    DEFAULT_MAX_BODY_BYTES,
    HttpOptions,
    add_serve_arguments,
    http_options,
    is_loopback,
    parse_bind,
)
from forge.server import CallCounter, ServePolicy, build_server, end_streams, hold_streams_on_signal, http_app
from forge.spec import Spec

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "Guard",
    "HttpOptions",
    "add_serve_arguments",
    "audit_sink",
    "build_http_app",
    "check_spec_names",
    "http_options",
    "is_loopback",
    "parse_bind",
    "serve_http",
    "serve_policy",
]

log = logging.getLogger("forge")

MCP_PATH = "/mcp"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _matches(value: str, patterns: tuple[str, ...]) -> bool:
    for pattern in patterns:
        if value == pattern:
            return True
        if pattern.endswith(":*") and value.startswith(pattern[:-1]) and value[len(pattern) - 1 :].isdigit():
            return True
    return False


_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "127.0.0.1:*", "localhost:*", "[::1]:*")
_LOOPBACK_ORIGINS = tuple(
    f"{scheme}://{host}" for scheme in ("http", "https") for host in ("127.0.0.1:*", "localhost:*", "[::1]:*")
) + tuple(f"{scheme}://{host}" for scheme in ("http", "https") for host in ("127.0.0.1", "localhost", "[::1]"))


class Guard:
    """ASGI middleware in front of the SDK app: health endpoints, then every check on /mcp."""

    def __init__(self, app: ASGIApp, options: HttpOptions, ready: Callable[[], dict[str, Any]]) -> None:
        self.app = app
        self.options = options
        self.ready = ready
        loopback = is_loopback(options.host)
        self.hosts = options.allowed_hosts + (_LOOPBACK_HOSTS if loopback else ())
        self.check_host = loopback or bool(options.allowed_hosts)
        self.origins = options.allowed_origins + (_LOOPBACK_ORIGINS if loopback else ())
        self.expected = f"Bearer {options.auth_token}".encode() if options.auth_token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == "/healthz":
            await _json(send, 200, {"status": "ok"})
            return
        if path == "/readyz":
            report = await anyio.to_thread.run_sync(self.ready)
            await _json(send, 200 if report["ready"] else 503, report)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        refusal = self._refusal(headers)
        if refusal is not None:
            status, message = refusal
            extra = [(b"www-authenticate", b'Bearer realm="forge"')] if status == 401 else []
            await _rpc_error(send, status, message, extra)
            return
        if scope.get("method") == "POST":
            body = await self._read_body(headers, receive)
            if body is None:
                limit = self.options.max_body_bytes
                await _rpc_error(
                    send, 413, f"request body over this server's limit of {limit:,} bytes (--max-body-bytes)"
                )
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)

    def _refusal(self, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if self.check_host and not _matches(host, self.hosts):
            return 421, f"Host {host!r} is not allowed here (DNS-rebinding protection; see --allow-host)"
        origin = headers.get("origin")
        if origin is not None and not _matches(origin, self.origins):
            return 403, f"Origin {origin!r} is not allowed (DNS-rebinding protection; see --allow-origin)"
        if self.expected is not None:
            given = headers.get("authorization", "").encode("latin-1")
            if not hmac.compare_digest(given, self.expected):
                return 401, "missing or wrong access token: send 'Authorization: Bearer <token>'"
        return None

    async def _read_body(self, headers: dict[str, str], receive: Receive) -> bytes | None:
        limit = self.options.max_body_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _json(send: Send, status: int, payload: Any, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


async def _rpc_error(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    payload = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": f"forge: {message}"}}
    await _json(send, status, payload, extra)


def _readiness(engine: Engine) -> Callable[[], dict[str, Any]]:
    def ready() -> dict[str, Any]:
        try:
            store = bool(engine.gate.store.ping())
        except Exception:
            store = False
        return {
            "ready": bool(engine.entries) and store,
            "specs": [spec.name for spec in engine.specs],
            "tools": len(engine.entries),
            "token_store": "ok" if store else "unreachable",
        }

    return ready


class _Lifespan:
    """Runs the SDK app's lifespan; meanwhile ends idle streams once shutdown has begun and no
    call is running; closes the engine after the SDK has shut down."""

    def __init__(self, app: ASGIApp, engine: Engine, counter: CallCounter, stopping: Callable[[], bool]) -> None:
        self.app = app
        self.engine = engine
        self.counter = counter
        self.stopping = stopping

    async def _drain(self) -> None:
        while not self.stopping():
            await anyio.sleep(0.1)
        while self.counter.running:
            await anyio.sleep(0.05)
        end_streams()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def closing_send(message: Message) -> None:
            if message["type"] == "lifespan.shutdown.complete":
                await self.engine.aclose()
            await send(message)

        async with anyio.create_task_group() as group:
            group.start_soon(self._drain)
            await self.app(scope, receive, closing_send)
            group.cancel_scope.cancel()


def build_http_app(
    engine: Engine, policy: ServePolicy, options: HttpOptions, stopping: Callable[[], bool] = lambda: False
) -> ASGIApp:
    """The whole ASGI app `forge serve --http` runs; `stopping` says when shutdown has begun."""
    counter = CallCounter()
    server = build_server(engine, policy=policy, counter=counter)
    inner: ASGIApp = http_app(server, stateless=options.stateless, max_body_bytes=options.max_body_bytes)
    return Guard(_Lifespan(inner, engine, counter, stopping), options, _readiness(engine))


def serve_http(engine: Engine, policy: ServePolicy, options: HttpOptions) -> None:
    """Serve until SIGINT/SIGTERM; in-flight calls finish first (up to `shutdown_timeout`).

    On the signal uvicorn stops accepting connections; calls already running complete and
    their answers reach the clients; then idle streams are ended and the process exits.
    Sends are shielded from cancellation, so even the timeout never cuts one half-way.
    """
    options.check()
    hold_streams_on_signal()
    holder: list[uvicorn.Server] = []
    app = build_http_app(engine, policy, options, lambda: bool(holder) and holder[0].should_exit)
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_level=options.log_level,
        access_log=options.log_level in ("debug", "info"),
        lifespan="on",
        timeout_graceful_shutdown=math.ceil(options.shutdown_timeout),
        server_header=False,
    )
    mode = "stateless" if options.stateless else "stateful"
    log.info(
        "forge: serving %d tools from %d specs on http://%s:%d%s (%s)",
        len(engine.entries),
        len(engine.specs),
        options.host,
        options.port,
        MCP_PATH,
        mode,
    )
    server = uvicorn.Server(config)
    holder.append(server)
    server.run()


# --- the `forge serve` command line ------------------------------------------------------


def serve_policy(args: Any) -> ServePolicy:
    return ServePolicy(
        confirm=args.confirm,
        max_concurrent_calls=args.max_concurrent_calls if args.http else None,
        passthrough=bool(args.http),
        tools_per_page=args.tools_per_page,
    )


def check_spec_names(specs: Sequence[Spec]) -> None:
    """Refuse two specs with one name: their tools would share a namespace."""
    seen: dict[str, Spec] = {}
    for spec in specs:
        if spec.name in seen:
            raise ForgeError(
                f"two specs are named {spec.name!r} ({seen[spec.name].label} and {spec.label}); tools are "
                "namespaced by spec name, so give each its own"
            )
        seen[spec.name] = spec


def audit_sink(args: Any) -> AuditLog | None:
    return AuditLog(args.audit) if args.audit else None
