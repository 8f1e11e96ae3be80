"""The options of `forge serve` (HTTP, endpoint security, confirmation, audit).

Kept apart from `forge.serving` so that building the command line does not import the
MCP SDK and uvicorn: `forge check`, `list` and `call` start without them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_MAX_BODY_BYTES", "add_serve_arguments"]

DEFAULT_MAX_BODY_BYTES = 1024 * 1024


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
