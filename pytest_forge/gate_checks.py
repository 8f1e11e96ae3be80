"""The write gate's invariants, proved per write tool through the real Engine and Gate.

Each check builds an Engine over the spec with the HTTP layer mocked by respx (so every
request the engine sends is counted and kept), canary credentials in its environment and
a controlled clock, then drives calls the way an MCP client would.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import httpx
import respx

from forge.auth import secret_variants
from forge.client import HttpClient
from forge.engine import Engine, Prepared
from forge.gate import Gate
from forge.results import Outcome, describe_request
from forge.schema import CONFIRM
from forge.spec import Spec, Tool
from forge.tokenstore import MemoryTokenStore
from pytest_forge.contracts import ContractFailure
from pytest_forge.values import UNCHANGEABLE, arguments_for, identity_params, other_value

__all__ = ["GateHarness", "canary_env", "run_gate_check"]

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
LIFETIME = 300.0


def canary_env(spec: Spec, tool: Tool) -> dict[str, str]:
    """A recognisable fake value for every credential the tool uses, and for URL variables."""
    env = {var: "forge-url" for var in _ENV_REF.findall(spec.transport.url)}
    for auth in spec.transport.auth + (tool.auth or ()):
        for var in auth.variables():
            env[var] = f"canary-{var.lower()}-{secrets.token_hex(8)}"
    return env


class GateHarness:
    """One engine, one mocked API, one clock: what each gate check runs against."""

    def __init__(self, spec: Spec, tool: Tool) -> None:
        self.spec, self.tool = spec, tool
        self.now = 1_000_000.0
        self.env = canary_env(spec, tool)
        self.router = respx.MockRouter(assert_all_called=False, assert_all_mocked=True)
        self.router.route().respond(200, json={"ok": True})
        self.gate = Gate(MemoryTokenStore(), lifetime=LIFETIME, clock=lambda: self.now)
        http = HttpClient(transport=httpx.MockTransport(self.router.async_handler))
        self.engine = Engine([spec], gate=self.gate, http=http, env=self.env)
        self.arguments = arguments_for(tool)

    @property
    def sent(self) -> list[httpx.Request]:
        return [call.request for call in self.router.calls]

    def canaries(self) -> set[str]:
        return {form for value in self.env.values() if value.startswith("canary-") for form in secret_variants(value)}

    def prepare(self, arguments: Mapping[str, Any]) -> Prepared:
        prepared = self.engine.prepare(self.tool.name, arguments)
        if isinstance(prepared, Outcome):
            raise ContractFailure(f"cannot render {self.tool.name} with {dict(arguments)!r}: {prepared.text}")
        return prepared

    async def call(self, arguments: Mapping[str, Any], token: str | None = None) -> Outcome:
        args = dict(arguments)
        if token is not None:
            args[CONFIRM] = token
        return await self.engine.call(self.tool.name, args)

    async def preview(self, arguments: Mapping[str, Any]) -> str:
        before = len(self.sent)
        outcome = await self.call(arguments)
        if len(self.sent) != before:
            raise ContractFailure(
                f"write tool {self.tool.name!r} sent {len(self.sent) - before} request(s) on its first call "
                f"({self._show(self.sent[before])}); the gate must send nothing until confirmed"
            )
        if outcome.is_error or not outcome.token:
            raise ContractFailure(f"the first call of {self.tool.name!r} gave no preview with a token: {outcome.text}")
        return outcome.token

    async def confirm_ok(self, arguments: Mapping[str, Any], token: str, what: str) -> None:
        before = len(self.sent)
        outcome = await self.call(arguments, token)
        if outcome.is_error or len(self.sent) != before + 1:
            raise ContractFailure(
                f"{what}: confirming {self.tool.name!r} with its own token sent {len(self.sent) - before} "
                f"request(s) (expected 1): {outcome.text}"
            )

    async def confirm_refused(self, arguments: Mapping[str, Any], token: str, what: str) -> None:
        before = len(self.sent)
        outcome = await self.call(arguments, token)
        if len(self.sent) != before or not outcome.is_error:
            raise ContractFailure(
                f"{what}: the gate accepted the token and sent {len(self.sent) - before} request(s) "
                f"({self._show(self.sent[-1]) if len(self.sent) > before else 'no request'}); it must refuse it"
            )

    def _show(self, request: httpx.Request) -> str:
        text = f"{request.method} {request.url}"
        for canary in self.canaries():
            text = text.replace(canary, "[REDACTED]")
        return text


async def _first_call_sends_nothing(h: GateHarness) -> None:
    await h.preview(h.arguments)


async def _preview_redacted(h: GateHarness) -> None:
    outcome = await h.call(h.arguments)
    shown = outcome.text + repr(outcome.structured)
    leaked = sorted(c for c in h.canaries() if c in shown)
    if leaked:
        raise ContractFailure(
            f"the preview of {h.tool.name!r} shows a credential value ({len(leaked)} form(s) of the canary "
            f"{leaked[0][:14]}...): previews must redact credentials"
        )


async def _argument_change(h: GateHarness) -> None:
    token = await h.preview(h.arguments)
    original = h.prepare(h.arguments).request.fingerprint()
    changed_any = []
    for param in h.tool.params:
        value = other_value(param.schema, h.arguments.get(param.name))
        if value is UNCHANGEABLE:
            continue
        changed = {**h.arguments, param.name: value}
        if h.prepare(changed).request.fingerprint() == original:
            raise ContractFailure(
                f"changing {param.name!r} from {h.arguments.get(param.name)!r} to {value!r} does not change "
                "the request, so the gate cannot tell the calls apart"
            )
        await h.confirm_refused(changed, token, f"after changing only {param.name!r} to {value!r}")
        changed_any.append(param.name)
    await h.confirm_ok(h.arguments, token, f"after refusing changes to {', '.join(changed_any) or 'no parameter'}")


async def _other_record(h: GateHarness) -> None:
    record = next(
        (p for p in identity_params(h.tool) if other_value(p.schema, h.arguments.get(p.name)) is not UNCHANGEABLE), None
    )
    if record is None:
        return
    a = h.arguments
    b = {**a, record.name: other_value(record.schema, a.get(record.name))}
    token_a, token_b = await h.preview(a), await h.preview(b)
    await h.confirm_refused(b, token_a, f"a token for {record.name}={a.get(record.name)!r} used for {b[record.name]!r}")
    await h.confirm_refused(a, token_b, f"a token for {record.name}={b[record.name]!r} used for {a.get(record.name)!r}")
    await h.confirm_ok(a, token_a, "record A")
    await h.confirm_ok(b, token_b, "record B")


async def _single_use(h: GateHarness) -> None:
    token = await h.preview(h.arguments)
    await h.confirm_ok(h.arguments, token, "first confirmation")
    await h.confirm_refused(h.arguments, token, "a second confirmation with the same token")


async def _expiry(h: GateHarness) -> None:
    token = await h.preview(h.arguments)
    h.now += LIFETIME - 1
    await h.confirm_ok(h.arguments, token, f"{LIFETIME - 1:g}s after the preview (within the lifetime)")
    token = await h.preview(h.arguments)
    h.now += LIFETIME + 1
    await h.confirm_refused(h.arguments, token, f"{LIFETIME + 1:g}s after the preview (past the lifetime)")


async def _confirm_sends_preview(h: GateHarness) -> None:
    previewed = h.prepare(h.arguments).request
    outcome = await h.call(h.arguments)
    if outcome.token is None or describe_request(previewed) not in outcome.text:
        raise ContractFailure(f"the preview of {h.tool.name!r} does not show the request it holds:\n{outcome.text}")
    await h.confirm_ok(h.arguments, outcome.token, "confirmation")
    sent = h.sent[-1]
    problems = []
    if sent.method != previewed.method:
        problems.append(f"method: previewed {previewed.method}, sent {sent.method}")
    if sent.url != httpx.URL(previewed.url):
        problems.append(f"URL: previewed {previewed.redact(previewed.url)}, sent {previewed.redact(str(sent.url))}")
    if sent.content != (previewed.body or b""):
        problems.append(f"body: previewed {previewed.body!r}, sent {sent.content!r}")
    for name, value in previewed.headers:
        if value not in sent.headers.get_list(name):
            problems.append(f"header {name}: previewed but not sent with the same value")
    if len(h.sent) != 1:
        problems.append(f"{len(h.sent)} requests were sent; expected exactly 1")
    if problems:
        raise ContractFailure("the confirmed request differs from the previewed one: " + "; ".join(problems))


GATE_RUNNERS: dict[str, Callable[[GateHarness], Awaitable[None]]] = {
    "gate-first-call-sends-nothing": _first_call_sends_nothing,
    "gate-preview-redacted": _preview_redacted,
    "gate-argument-change": _argument_change,
    "gate-other-record": _other_record,
    "gate-single-use": _single_use,
    "gate-expiry": _expiry,
    "gate-confirm-sends-preview": _confirm_sends_preview,
}


def run_gate_check(spec: Spec, tool: Tool, check: str) -> None:
    """Run one gate check on a write tool.

    Raises:
        ContractFailure: the gate broke the invariant; the message says how.
    """
    harness = GateHarness(spec, tool)

    async def run() -> None:
        try:
            await GATE_RUNNERS[check](harness)
        finally:
            await harness.engine.aclose()

    anyio.run(run)
