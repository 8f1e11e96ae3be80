"""The call path every front end shares (MCP server, `forge call`, the pytest plugin).

validate arguments -> render -> (gate) -> send once -> result. Nothing here raises to the
caller: every failure becomes an error Outcome, with credential values redacted.
"""

from __future__ import annotations

import difflib
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from forge.client import HttpClient
from forge.errors import ForgeError, OutcomeUnknown
from forge.gate import Gate
from forge.render import RenderedRequest, redact, render
from forge.results import Outcome, describe_request, error, format_response, preview
from forge.schema import CONFIRM, validate_arguments
from forge.spec import Spec, Tool

__all__ = ["Engine", "Entry"]

log = logging.getLogger("forge")


@dataclass(frozen=True, slots=True)
class Entry:
    """A tool as served: its public name and the spec it belongs to."""

    name: str
    spec: Spec
    tool: Tool


class Engine:
    """Runs tool calls for one or more specs.

    Args:
        specs: the specs to serve.
        gate: holds writes until confirmed.
        http: sends requests (inject a transport in tests).
        env: where credentials are read, at call time (defaults to os.environ).
        dry_run: render every call and send nothing.
        namespace: prefix tool names with `<spec name>_` (for several specs in one server).
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
    ) -> None:
        self.specs = tuple(specs)
        self.gate = gate
        self.http = http or HttpClient()
        self._env = env
        self.dry_run = dry_run
        self.entries: dict[str, Entry] = {}
        for spec in self.specs:
            for tool in spec.tools:
                name = f"{spec.name}_{tool.name}" if namespace else tool.name
                self.entries[name] = Entry(name, spec, tool)

    def environ(self) -> Mapping[str, str]:
        if self._env is None:
            return os.environ
        return self._env() if callable(self._env) else self._env

    def render(self, name: str, arguments: Mapping[str, Any]) -> RenderedRequest:
        """Render what `name` would send with `arguments` (`confirm` ignored).

        Raises:
            KeyError: no such tool.
            ForgeError: the request cannot be built.
        """
        entry = self.entries[name]
        args = {k: v for k, v in arguments.items() if k != CONFIRM or not entry.tool.write}
        return render(entry.spec.transport, entry.tool, args, self.environ())

    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> Outcome:
        """Run one tool call; never raises."""
        entry = self.entries.get(name)
        if entry is None:
            hint = difflib.get_close_matches(name, list(self.entries), n=1)
            return error(f"unknown tool {name!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
        try:
            return await self._call(entry, dict(arguments or {}))
        except ForgeError as exc:
            return error(str(exc))
        except Exception as exc:
            log.error("internal error in tool %s: %s", name, redact(repr(exc), self._secrets(entry)))
            return error(f"internal error in forge while running {name}: {type(exc).__name__}; nothing more is known")

    async def _call(self, entry: Entry, args: dict[str, Any]) -> Outcome:
        tool, spec = entry.tool, entry.spec
        problems = validate_arguments(tool, args)
        if problems:
            return error(f"invalid arguments for {entry.name}: " + "; ".join(problems) + ". Nothing was sent.")
        token = args.pop(CONFIRM, None) if tool.write else None
        request = render(spec.transport, tool, args, self.environ())
        if self.dry_run:
            return Outcome(
                text="DRY RUN: nothing was sent. This is the request the call would make:\n\n"
                + describe_request(request)
            )
        if tool.write:
            binding = b"\x00".join([spec.name.encode(), tool.name.encode(), request.fingerprint()])
            if token is None:
                return preview(tool, request, self.gate.issue(binding), self.gate.lifetime)
            self.gate.redeem(token, binding)
        try:
            response = await self.http.send(request, spec.transport.timeout)
        except OutcomeUnknown as exc:
            if tool.write:
                log.warning("write %s: outcome unknown: %s", entry.name, exc)
            return error(f"{entry.name}: OUTCOME UNKNOWN: {exc}" if tool.write else f"{entry.name}: {exc}")
        if tool.write:
            log.info(
                "write %s sent: %s %s -> HTTP %s",
                entry.name,
                request.method,
                request.redact(request.url),
                response.status,
            )
        return format_response(tool, request, response, spec.transport.max_response_chars)

    def _secrets(self, entry: Entry) -> frozenset[str]:
        from forge.auth import secret_variants

        env = self.environ()
        found: set[str] = set()
        for auth in entry.spec.transport.auth + (entry.tool.auth or ()):
            for variable in auth.variables():
                found |= secret_variants(env.get(variable, ""))
        return frozenset(found)

    async def aclose(self) -> None:
        await self.http.aclose()
