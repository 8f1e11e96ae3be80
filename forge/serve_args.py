"""The options of `forge serve` (HTTP, endpoint security, confirmation, audit), parsed and checked.

Kept apart from `forge.serving` so that neither building the command line nor checking
the options imports the MCP SDK and uvicorn: `forge check`, `list` and `call` start
without them, and `forge serve` refuses bad options, then loads its specs, before it
loads the SDK.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from dataclasses import dataclass
from typing import Any

from forge.errors import ForgeError

__all__ = ["DEFAULT_MAX_BODY_BYTES", "HttpOptions", "add_serve_arguments", "http_options", "is_loopback", "parse_bind"]

DEFAULT_MAX_BODY_BYTES = 1024 * 1024
_LOOPBACK_NAMES = ("localhost",)


def add_serve_arguments(parser: Any) -> None:
    """The HTTP, security, confirmation and audit options of `forge serve`."""
    group = parser.add_argument_group("HTTP serving")
    group.add_argument("--http", metavar="HOST:PORT", help="serve MCP over Streamable HTTP at /mcp instead of stdio")
    group.add_argument("--stateless", action="store_true", help="no per-client sessions: any replica answers any call")
    group.add_argument(
        "--auth-token-env",
        metavar="NAME",
        help="environment variable holding the bearer token clients must send (required off loopback)",
    )
    group.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN", help="browser Origin to accept (repeatable)"
    )
    group.add_argument(
        "--allow-host", action="append", default=[], metavar="HOST", help="Host header to accept (repeatable)"
    )
    group.add_argument(
        "--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES, metavar="N", help="largest request body"
    )
    group.add_argument(
        "--max-concurrent-calls", type=int, default=256, metavar="N", help="tool calls running at once (default 256)"
    )
    group.add_argument(
        "--shutdown-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="on SIGTERM, how long in-flight calls may take to finish (default 30)",
    )
    group.add_argument(
        "--confirm",
        choices=["token", "elicit", "auto"],
        default="auto",
        help="how writes are confirmed: token, elicit (ask the person; token where the client cannot be "
        "asked) or auto (each spec's 'confirm' setting; token when unset)",
    )
    group.add_argument("--audit", metavar="PATH", help="append one JSON line per write sent to PATH ('-': stderr)")
    group.add_argument(
        "--tools-per-page",
        type=_positive,
        metavar="N",
        help="answer tools/list in pages of N tools (clients follow nextCursor); default: all at once",
    )


def _positive(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"wants a whole number of at least 1, got {text!r}")
    return int(text)


def parse_bind(text: str) -> tuple[str, int]:
    """`HOST:PORT` (or `[v6]:PORT`) -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ForgeError(f"--http wants HOST:PORT (for example 127.0.0.1:8080), got {text!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


def is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """How the HTTP endpoint listens and what it lets in.

    Attributes:
        auth_token: the bearer token clients must send to /mcp (None: no endpoint auth,
            allowed only on loopback).
        allowed_origins: browser origins allowed besides loopback ones when bound to
            loopback; `scheme://host:*` allows any port.
        allowed_hosts: Host header values allowed (loopback names are always allowed when
            bound to loopback; when bound elsewhere, an empty list means any Host).
    """

    host: str = "127.0.0.1"
    port: int = 8080
    stateless: bool = False
    auth_token: str | None = None
    allowed_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    shutdown_timeout: float = 30.0
    log_level: str = "warning"

    def check(self) -> None:
        """Refuse settings that would expose the API's tools to anyone who can reach the port."""
        if not is_loopback(self.host) and not self.auth_token:
            raise ForgeError(
                f"refusing to listen on {self.host}:{self.port} without an access token: anyone who can "
                "reach that address could call the API's tools with this server's credentials. Set "
                "--auth-token-env NAME (clients then send 'Authorization: Bearer <value of $NAME>'), or "
                "bind to 127.0.0.1 behind your own authenticating proxy."
            )
        if self.max_body_bytes < 1024:
            raise ForgeError("--max-body-bytes must be at least 1024")


def http_options(args: Any) -> HttpOptions | None:
    """The HTTP settings from `forge serve`'s arguments, checked; None for stdio."""
    if not args.http:
        return None
    host, port = parse_bind(args.http)
    token: str | None = None
    if args.auth_token_env:
        token = os.environ.get(args.auth_token_env) or None
        if token is None:
            raise ForgeError(f"--auth-token-env {args.auth_token_env}: that environment variable is not set or empty")
        if len(token) < 16:
            raise ForgeError(f"--auth-token-env {args.auth_token_env}: the token is too short (use 16+ characters)")
    if args.max_concurrent_calls < 1:
        raise ForgeError("--max-concurrent-calls must be at least 1")
    options = HttpOptions(
        host=host,
        port=port,
        stateless=args.stateless,
        auth_token=token,
        allowed_origins=tuple(args.allow_origin),
        allowed_hosts=tuple(args.allow_host),
        max_body_bytes=args.max_body_bytes,
        shutdown_timeout=args.shutdown_timeout,
        log_level=args.log_level.lower(),
    )
    options.check()
    return options
