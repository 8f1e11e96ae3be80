"""The call path every front end shares (MCP server, `forge call`, the pytest plugin).

validate arguments -> render -> (gate) -> send once -> result. Nothing here raises to the
caller: every failure becomes an error Outcome, with credential values redacted.
"""

from __future__ import annotations

import difflib
import hashlib
import logging
import os
from collections import ChainMap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from forge.auth import secret_variants
from forge.errors import ForgeError, GateError, OutcomeUnknown, UpstreamUnreachable
from forge.gate import Gate
from forge.render import RenderedRequest, redact, render
from forge.results import Outcome, describe_request, error, format_response, preview
from forge.schema import CONFIRM, validate_arguments
from forge.spec import Spec, Tool

if TYPE_CHECKING:
    from forge.client import HttpClient

__all__ = ["AuditSink", "Engine", "Entry", "Prepared", "namespaced_name", "shorten_name"]

log = logging.getLogger("forge")


AuditSink = Callable[[Mapping[str, Any]], None]


@dataclass(frozen=True, slots=True)
class Entry:
    """A tool as served: its public name and the spec it belongs to."""

    name: str
    spec: Spec
    tool: Tool


@dataclass(frozen=True, slots=True)
class Prepared:
    """A validated, rendered call that has not been sent. `token` is the confirm argument."""

    entry: Entry
    request: RenderedRequest
    token: str | None = None

    @property
    def binding(self) -> bytes:
        """What a token for this call is bound to: spec, tool and the exact request."""
        spec, tool = self.entry.spec, self.entry.tool
        return b"\x00".join([spec.name.encode(), tool.name.encode(), self.request.fingerprint()])


def shorten_name(name: str, limit: int) -> str:
    """`name` if it fits in `limit` characters, else its start, `_` and 8 hex digits of its hash."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    keep = max(limit - len(digest) - 1, 0)
    return name[:keep].rstrip("_-") + "_" + digest if keep else digest[:limit]


def namespaced_name(spec: str, tool: str, limit: int | None = None, longest_tool: int = 0) -> str:
    """`<spec>_<tool>`; when over `limit`, the spec part is cut and marked with a short hash of it,
    so the tool's own name stays whole. Passing the length of the spec's longest tool name
    gives every tool of the spec one prefix."""
    name = f"{spec}_{tool}"
    if limit is None or len(name) <= limit:
        return name
    digest = hashlib.sha256(spec.encode()).hexdigest()[:6]
    for longest in (max(longest_tool, len(tool)), len(tool)):
        room = limit - longest - 1 - len(digest)
        if room >= 3:
            return f"{spec[:room]}{digest}_{tool}"
    return shorten_name(name, limit)


class Engine:
    """Runs tool calls for one or more specs.

    Args:
        specs: the specs to serve.
        gate: holds writes until confirmed.
        http: sends requests (inject a transport in tests).
        env: where credentials are read, at call time (defaults to os.environ).
        dry_run: render every call and send nothing.
        namespace: prefix tool names with `<spec name>_` (for several specs in one server).
        audit: called with one record (a dict without credential values) per write that
            was sent or whose sending was attempted.
        max_name_length: longest public tool name; a longer (namespaced) name is cut and
            ends in a short hash of the full name, so it stays readable and unique.
    """

    def __init__(
        self,
        specs: Sequence[Spec],
        *,
        gate: Gate,
        http: HttpClient | None = None,
        env: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = None,
        dry_run: bool = False,
        namespace: bool = False,
        audit: AuditSink | None = None,
        max_name_length: int | None = None,
    ) -> None:
        self.specs = tuple(specs)
        self.gate = gate
        self._http = http
        self._env = env
        self.dry_run = dry_run
        self.audit = audit
        self.entries: dict[str, Entry] = {}
        for spec in self.specs:
            longest = max((len(tool.name) for tool in spec.tools), default=0)
            for tool in spec.tools:
                name = namespaced_name(spec.name, tool.name, max_name_length, longest) if namespace else tool.name
                if max_name_length is not None:
                    name = shorten_name(name, max_name_length)
                self.entries[name] = Entry(name, spec, tool)

    def http(self) -> HttpClient:
        """The HTTP client, made on first use: httpx loads with the first request, not at startup."""
        if self._http is None:
            from forge.client import HttpClient

            self._http = HttpClient()
        return self._http

    def environ(self) -> Mapping[str, str]:
        if self._env is None:
            return os.environ
        return self._env() if callable(self._env) else self._env

    def prepare(
        self, name: str, arguments: Mapping[str, Any] | None, env: Mapping[str, str] | None = None
    ) -> Prepared | Outcome:
        """Validate and render a call without sending anything; never raises.

        Args:
            env: credentials for this call only (per-request passthrough), layered over
                the engine's environment.

        Returns:
            The rendered call, or an error Outcome saying why it cannot be made.
        """
        entry = self.entries.get(name)
        if entry is None:
            hint = difflib.get_close_matches(name, list(self.entries), n=1)
            return error(f"unknown tool {name!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
        args = dict(arguments or {})
        problems = validate_arguments(entry.tool, args)
        if problems:
            return error(f"invalid arguments for {name}: " + "; ".join(problems) + ". Nothing was sent.")
        token = args.pop(CONFIRM, None) if entry.tool.write else None
        environ = self.environ() if env is None else ChainMap(dict(env), dict(self.environ()))
        try:
            request = render(entry.spec.transport, entry.tool, args, environ)
        except ForgeError as exc:
            return error(str(exc))
        except Exception as exc:
            log.error("internal error rendering %s: %s", name, redact(repr(exc), self._secrets(entry, environ)))
            return error(f"internal error in forge while rendering {name}: {type(exc).__name__}; nothing was sent")
        return Prepared(entry, request, token)

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, env: Mapping[str, str] | None = None
    ) -> Outcome:
        """Run one tool call through the token gate; never raises."""
        prepared = self.prepare(name, arguments, env)
        if isinstance(prepared, Outcome):
            return prepared
        if self.dry_run:
            return Outcome(
                text="DRY RUN: nothing was sent. This is the request the call would make:\n\n"
                + describe_request(prepared.request)
            )
        if prepared.entry.tool.write:
            if prepared.token is None:
                return self.hold(prepared)
            try:
                self.gate.redeem(prepared.token, prepared.binding)
            except GateError as exc:
                return error(f"{name}: {exc}")
        return await self.send(prepared)

    def hold(self, prepared: Prepared) -> Outcome:
        """A write's preview, with a new token bound to exactly this request."""
        token = self.gate.issue(prepared.binding)
        return preview(prepared.entry.tool, prepared.request, token, self.gate.lifetime)

    async def send(self, prepared: Prepared, *, confirmation: str | None = None) -> Outcome:
        """Send a prepared call exactly once and describe the outcome; never raises.

        The caller has already confirmed a write (token redeemed or a person accepted);
        `confirmation` names how, for the audit line (defaults to the token's fingerprint).
        """
        entry, request = prepared.entry, prepared.request
        write = entry.tool.write
        if confirmation is None and prepared.token is not None:
            confirmation = self.gate.fingerprint(prepared.token)
        try:
            response = await self.http().send(request, entry.spec.transport.timeout)
        except UpstreamUnreachable as exc:
            self._audit(prepared, confirmation, "not sent")
            return error(f"{entry.name}: {exc}")
        except OutcomeUnknown as exc:
            self._audit(prepared, confirmation, "unknown")
            if write:
                log.warning("write %s: outcome unknown: %s", entry.name, exc)
                return error(f"{entry.name}: OUTCOME UNKNOWN: {exc}. Check the API before trying again.")
            return error(f"{entry.name}: {exc}")
        except Exception as exc:
            self._audit(prepared, confirmation, "unknown")
            log.error("internal error sending %s: %s", entry.name, request.redact(repr(exc)))
            return error(
                f"{entry.name}: internal error in forge while sending ({type(exc).__name__}); "
                "the outcome is unknown and it was not retried"
            )
        self._audit(prepared, confirmation, response.status)
        if write:
            log.info(
                "write %s sent: %s %s -> HTTP %s",
                entry.name,
                request.method,
                request.redact(request.url),
                response.status,
            )
        try:
            return format_response(entry.tool, request, response, entry.spec.transport.max_response_chars)
        except Exception as exc:
            log.error("internal error formatting %s: %s", entry.name, request.redact(repr(exc)))
            return error(
                f"{entry.name}: HTTP {response.status}; forge could not format the response ({type(exc).__name__})"
            )

    def _audit(self, prepared: Prepared, confirmation: str | None, outcome: int | str) -> None:
        if self.audit is None or not prepared.entry.tool.write:
            return
        request = prepared.request
        record = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "spec": prepared.entry.spec.name,
            "tool": prepared.entry.name,
            "method": request.method,
            "url": request.redact(request.url),
            "body_sha256": hashlib.sha256(request.body or b"").hexdigest(),
            "confirmation": confirmation,
            "outcome": outcome,
        }
        try:
            self.audit(record)
        except Exception as exc:
            log.error("audit log write failed: %s", exc)

    def _secrets(self, entry: Entry, env: Mapping[str, str]) -> frozenset[str]:
        found: set[str] = set()
        for auth in entry.spec.transport.auth + (entry.tool.auth or ()):
            for variable in auth.variables():
                found |= secret_variants(env.get(variable, ""))
        return frozenset(found)

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
