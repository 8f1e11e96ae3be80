"""The only module that imports `mcp`: an Engine's tools served over MCP.

Tools are generated at runtime, so this uses the SDK's low-level `Server`
(`on_list_tools`, `on_call_tool`). Both protocol generations are answered: the SDK's
dual-era loop serves 2026-07-28 clients and the initialize handshake alike.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp_types.jsonrpc import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from sse_starlette.sse import AppStatus

from forge import __version__
from forge.engine import Engine, Entry, Prepared
from forge.errors import GateError
from forge.listing import tool_definitions, tools_page
from forge.results import Outcome, describe_request, error
from forge.spec import Spec, Tool
from forge.stdio import event_loop_stdio

__all__ = [
    "CallCounter",
    "ServePolicy",
    "build_server",
    "end_streams",
    "hold_streams_on_signal",
    "http_app",
    "serve_stdio",
]

log = logging.getLogger("forge")


def to_result(outcome: Outcome, entry: Entry | None = None) -> types.CallToolResult:
    """An Outcome as an MCP result.

    A validating client refuses a successful result without structured content when the
    tool declares an output schema, so outcomes that carry no API response (a held write's
    preview, a dry run) get a `note` that conforms to the declared schema.
    """
    structured = dict(outcome.structured) if outcome.structured is not None else None
    declares = entry is not None and entry.tool.response_schema is not None
    if structured is None and declares and not outcome.is_error:
        structured = {"note": outcome.text.split("\n", 1)[0]}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=outcome.text)],
        structured_content=structured,
        is_error=outcome.is_error,
    )


def build_server(
    engine: Engine,
    *,
    name: str | None = None,
    instructions: str | None = None,
    policy: ServePolicy | None = None,
    counter: CallCounter | None = None,
) -> Server[Any]:
    """An MCP server answering `tools/list` and `tools/call` for `engine`.

    Args:
        policy: how calls are confirmed and limited (serving options); the default is each
            spec's `confirm` setting (token when unset) with no limits, as on stdio.
        counter: counts the calls running (for graceful shutdown).
    """
    policy = policy or ServePolicy()
    tools = tool_definitions(engine.entries.values())
    input_schemas = {tool["name"]: tool["inputSchema"] for tool in tools}
    caller = _Caller(engine, policy, counter)

    # The answer as wire-form JSON values, built once (forge.listing), in the envelope the
    # SDK's own model fills in (cache hints, result type). The SDK validates it against the
    # negotiated version's ListToolsResult and serialises it; answering with a model would
    # add a deep copy of every schema per listing.
    envelope = types.ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json", exclude_none=True)

    async def on_list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams) -> dict[str, Any]:
        try:
            page, cursor = tools_page(tools, params.cursor, policy.tools_per_page)
        except ValueError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc)) from None
        return {**envelope, "tools": page} | ({"nextCursor": cursor} if cursor is not None else {})

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        return await caller.call(ctx, params)

    specs = engine.specs
    server_name = name or (specs[0].name if len(specs) == 1 else "forge")
    server: Server[Any] = Server(
        server_name,
        version=__version__,
        instructions=instructions if instructions is not None else _instructions(engine),
        on_call_tool=on_call_tool,
        # Without this the SDK's 2026-07-28 HTTP path runs the whole tools/list handler,
        # serialisation included, on every tools/call to find one input schema.
        get_tool_input_schema=input_schemas.get,
    )
    server.add_request_handler("tools/list", types.PaginatedRequestParams, on_list_tools)
    if caller.may_elicit:
        # The 2026-07-28 confirmation round carries a gate token in `requestState`: seal it
        # (encrypted, bound to the tool and arguments) under a key derived from the token
        # store's, so any replica sharing the store can open it and the client cannot read it.
        key = hashlib.sha256(b"forge request state\x00" + engine.gate.store.key()).digest()
        security = RequestStateSecurity(keys=[key], ttl=engine.gate.lifetime)
        server.middleware.append(RequestStateBoundary(security, default_audience=server_name))
    return server


# --- serving: confirmation, limits, per-request credentials -----------------------------

ConfirmSetting = Literal["token", "elicit", "auto"]
_T = TypeVar("_T")
_ELICIT_KEY = "confirm"
_ELICIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "send": {
            "type": "boolean",
            "title": "Send this request",
            "description": "Leave ticked and accept to send it exactly as shown; decline to send nothing.",
            "default": True,
        }
    },
    "required": ["send"],
}
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(slots=True)
class CallCounter:
    """How many tool calls are running (serving waits for zero before closing streams)."""

    running: int = 0


@dataclass(frozen=True, slots=True)
class ServePolicy:
    """How tools are listed, and how `tools/call` is confirmed and limited.

    Attributes:
        confirm: `token` (preview + token), `elicit` (ask the person through elicitation,
            falling back to the token where the client cannot be asked), or `auto` (each
            spec's own `confirm` setting; token where it has none).
        max_concurrent_calls: tool calls running at once; more are refused with a
            clear error (nothing is sent). None: no limit.
        passthrough: read per-request credentials from the HTTP request's headers for
            specs that opt in (`credential_passthrough`).
        tools_per_page: tools per `tools/list` answer, the rest behind `nextCursor`
            (None: all in one answer).
    """

    confirm: ConfirmSetting = "auto"
    max_concurrent_calls: int | None = None
    passthrough: bool = False
    tools_per_page: int | None = None


def _accepted(answer: Any) -> bool | None:
    """True/False for an elicitation answer (accept with `send` ticked / anything else); None if absent."""
    if answer is None:
        return None
    action = getattr(answer, "action", None)
    content = getattr(answer, "content", None)
    if isinstance(answer, Mapping):
        action, content = answer.get("action"), answer.get("content")
    return action == "accept" and isinstance(content, Mapping) and content.get("send") is True


def _needed_variables(spec: Spec, tool: Tool) -> set[str]:
    names = {variable for auth in tool.auth_from(spec.transport) for variable in auth.variables()}
    return names | set(_ENV_REF.findall(spec.transport.url))


class _Caller:
    """One `tools/call`: validate, render, confirm (token or elicitation), send once."""

    def __init__(self, engine: Engine, policy: ServePolicy, counter: CallCounter | None = None) -> None:
        self.engine = engine
        self.policy = policy
        self.counter = counter or CallCounter()
        self.may_elicit = policy.confirm == "elicit" or (
            policy.confirm == "auto" and any(s.confirm == "elicit" for s in engine.specs)
        )

    def _mode(self, spec: Spec) -> str:
        if self.policy.confirm == "auto":
            return spec.confirm or "token"
        return self.policy.confirm

    async def call(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        limit = self.policy.max_concurrent_calls
        counter = self.counter
        if limit is not None and counter.running >= limit:
            log.warning("refused %s: %d tool calls already in flight (limit %d)", params.name, counter.running, limit)
            return to_result(
                error(
                    f"{params.name}: forge is busy: {limit} tool calls are already running, the most this "
                    "server allows at once (--max-concurrent-calls). Nothing was sent; try again shortly."
                )
            )
        counter.running += 1
        try:
            result = await self._call(ctx, params)
        finally:
            counter.running -= 1
        if isinstance(result, types.InputRequiredResult):
            return result
        return to_result(result, self.engine.entries.get(params.name))

    def _credentials(self, ctx: ServerRequestContext[Any], name: str) -> dict[str, str] | Outcome | None:
        entry = self.engine.entries.get(name)
        if not self.policy.passthrough or entry is None or not entry.spec.credential_passthrough:
            return None
        headers = getattr(ctx.request, "headers", None)
        if headers is None:  # not an HTTP request: the server's environment applies
            return None
        needed = _needed_variables(entry.spec, entry.tool)
        env: dict[str, str] = {}
        for header, variable in entry.spec.credential_passthrough:
            value = headers.get(header) or ""
            if not value and variable in needed:
                return error(
                    f"{name}: this server calls {entry.spec.name} with each caller's own credential: send "
                    f"yours in the {header} request header. Nothing was sent."
                )
            env[variable] = value
        return env

    async def _call(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> Outcome | types.InputRequiredResult:
        engine = self.engine
        env = self._credentials(ctx, params.name)
        if isinstance(env, Outcome):
            return env
        if engine.dry_run:
            return await engine.call(params.name, params.arguments, env)
        prepared = engine.prepare(params.name, params.arguments, env)
        if isinstance(prepared, Outcome):
            return prepared
        if not prepared.entry.tool.write:
            return await self._send(prepared)
        if params.request_state is not None:  # 2026-07-28: the answer to our elicitation
            answer = (params.input_responses or {}).get(_ELICIT_KEY)
            return await self._answered(prepared, params.request_state, answer)
        if prepared.token is not None:
            refused = await self._redeem(prepared, prepared.token)
            return refused or await self._send(prepared)
        if self._mode(prepared.entry.spec) == "elicit":
            asked = await self._elicit(ctx, prepared)
            if asked is not None:
                return asked
        return await self._gate(lambda: engine.hold(prepared), prepared)

    async def _gate(self, operation: Callable[[], _T], prepared: Prepared) -> _T | Outcome:
        """Run a (blocking) token store operation off the event loop; a store failure is an error Outcome."""
        try:
            return await anyio.to_thread.run_sync(operation)
        except GateError as exc:
            return error(f"{prepared.entry.name}: {exc}")
        except Exception as exc:
            log.error("token store failed during %s: %s", prepared.entry.name, exc)
            return error(
                f"{prepared.entry.name}: the confirmation token store is unavailable ({type(exc).__name__}); "
                "nothing was sent. Try again shortly."
            )

    async def _redeem(self, prepared: Prepared, token: str) -> Outcome | None:
        result = await self._gate(lambda: self.engine.gate.redeem(token, prepared.binding), prepared)
        return result if isinstance(result, Outcome) else None

    async def _send(self, prepared: Prepared, confirmation: str | None = None) -> Outcome:
        # Shielded: a shutdown or a client going away never cuts a request half-sent. The
        # upstream timeout bounds how long this can take.
        with anyio.CancelScope(shield=True):
            outcome = await self.engine.send(prepared, confirmation=confirmation)
        return outcome

    def _can_elicit(self, ctx: ServerRequestContext[Any]) -> bool:
        capabilities = ctx.session.client_capabilities
        return capabilities is not None and capabilities.elicitation is not None

    def _question(self, prepared: Prepared) -> str:
        return (
            f"{prepared.entry.name} wants to send this request to {prepared.entry.spec.name}. "
            "Nothing has been sent yet.\n\n"
            f"{describe_request(prepared.request)}\n\nSend it?"
        )

    async def _elicit(
        self, ctx: ServerRequestContext[Any], prepared: Prepared
    ) -> Outcome | types.InputRequiredResult | None:
        """Ask the person; None when this client cannot be asked (the token flow follows)."""
        if not self._can_elicit(ctx):
            return None
        request = types.ElicitRequestFormParams(message=self._question(prepared), requested_schema=_ELICIT_SCHEMA)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            # Multi-round-trip: the retry carries the answer, and this token (sealed in the
            # request state) binds it to exactly this rendered request, once.
            token = await self._gate(lambda: self.engine.gate.issue(prepared.binding), prepared)
            if isinstance(token, Outcome):
                return token
            return types.InputRequiredResult(
                input_requests={_ELICIT_KEY: types.ElicitRequest(params=request)}, request_state=token
            )
        try:
            answer = await ctx.session.elicit_form(
                request.message, request.requested_schema, related_request_id=ctx.request_id
            )
        except NoBackChannelError:  # stateless HTTP in the handshake era
            return None
        except Exception as exc:
            log.warning("elicitation for %s failed: %s", prepared.entry.name, exc)
            name = prepared.entry.name
            return error(f"{name}: could not ask for confirmation ({type(exc).__name__}); nothing was sent")
        if not _accepted(answer):
            return error(f"{prepared.entry.name}: declined; nothing was sent")
        return await self._send(prepared, confirmation="elicitation")

    async def _answered(self, prepared: Prepared, token: str, answer: Any) -> Outcome:
        # The token is spent whatever the answer, so a declined request can never be sent later.
        refused = await self._redeem(prepared, token)
        if not _accepted(answer):
            return error(f"{prepared.entry.name}: declined; nothing was sent")
        if refused is not None:
            return refused
        return await self._send(prepared, confirmation="elicitation:" + self.engine.gate.fingerprint(token))


def hold_streams_on_signal() -> None:
    """Keep SSE response streams open when SIGTERM arrives, so in-flight calls can answer.

    The SDK streams responses with sse-starlette, which by default ends every stream the
    moment uvicorn sees a signal, cutting off calls that are still running. Serving calls
    `end_streams` itself once no call is running.
    """
    AppStatus.disable_automatic_graceful_drain()  # type: ignore[no-untyped-call]


def end_streams() -> None:
    """End every open SSE stream (idle GET streams of handshake-era sessions) so shutdown completes."""
    AppStatus.should_exit = True


def http_app(server: Server[Any], *, stateless: bool, max_body_bytes: int) -> Any:
    """The SDK's Streamable HTTP ASGI app for `server`, endpoint `/mcp`.

    Host/Origin checks and endpoint auth are done by forge's own middleware
    (`forge.serving`), which wraps this app; the SDK's body limit stays as a backstop.
    Stateless mode answers with JSON (no per-client state on the server).
    """
    return server.streamable_http_app(
        stateless_http=stateless,
        json_response=stateless,
        max_request_body_size=max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


def _instructions(engine: Engine) -> str | None:
    parts = [s.instructions for s in engine.specs if s.instructions]
    gate = (
        "Tools marked as writes never send unconfirmed. Either forge asks the user directly "
        "(clients that support elicitation, when the server is set to), or the first call returns "
        "a preview and a confirmation token: show the preview to the user and call again with "
        "confirm=<token> only once they agree."
    )
    if any(e.tool.write for e in engine.entries.values()):
        parts.append(gate)
    return "\n\n".join(parts) or None


async def _serve_stdio(engine: Engine, policy: ServePolicy | None = None) -> None:
    server = build_server(engine, policy=policy)
    try:
        async with event_loop_stdio() as pipes, stdio_server(*(pipes or (None, None))) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await engine.aclose()


def serve_stdio(engine: Engine, policy: ServePolicy | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes the stream."""
    log.info("forge: serving %d tools over stdio", len(engine.entries))
    anyio.run(_serve_stdio, engine, policy)
