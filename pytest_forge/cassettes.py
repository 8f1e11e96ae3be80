"""vcrpy wiring: cassette paths, credential scrubbing, the write guard, matchers, record and replay.

A cassette is `<cassette dir>/<spec name>/<tool>/<n>.yaml` for a tool's n-th example (from 1).
Recording scrubs credential values from headers, query strings and bodies, and the
persister refuses to write a cassette that still holds one. Replaying renders the call
today, compares it with the recorded request (method, path, query, body) field by field,
then runs it through vcrpy with nothing allowed onto the network.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import vcr
from vcr.request import Request as VcrRequest
from vcr.serialize import serialize

from forge.auth import secret_variants
from forge.client import HttpClient
from forge.engine import Engine
from forge.gate import Gate
from forge.render import REDACTED
from forge.replay import Interaction, credential_query_names, differences, load_cassette
from forge.results import Outcome
from forge.schema import CONFIRM
from forge.spec import Spec, Tool
from forge.tokenstore import MemoryTokenStore
from pytest_forge.contracts import ContractFailure
from pytest_forge.gate_checks import canary_env

__all__ = [
    "CredentialInCassette",
    "GuardedPersister",
    "cassette_path",
    "credential_values",
    "record_example",
    "replay_example",
    "with_base_url",
]

MATCH_ON = ("method", "path", "forge_query", "forge_body")
Progress = Callable[[str], None]


class CredentialInCassette(ContractFailure):
    """A cassette about to be written still holds a credential value; it was not written."""


def cassette_path(root: Path, spec: Spec, tool: Tool, example: int) -> Path:
    return root / spec.name / tool.name / f"{example}.yaml"


def with_base_url(spec: Spec, url: str | None) -> Spec:
    """The spec pointed at another base URL (a sandbox), or unchanged."""
    return spec if url is None else replace(spec, transport=replace(spec.transport, url=url))


def _auths(spec: Spec, tool: Tool) -> tuple[Any, ...]:
    return spec.transport.auth + (tool.auth or ())


def credential_values(spec: Spec, tool: Tool, env: Mapping[str, str]) -> frozenset[str]:
    """Every form of every credential value the tool reads from `env`."""
    found: set[str] = set()
    for auth in _auths(spec, tool):
        for var in auth.variables():
            found |= secret_variants(env.get(var, ""))
    return frozenset(found)


def _scrub(text: str, secrets: frozenset[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def _scrub_body(body: Any, secrets: frozenset[str]) -> Any:
    if isinstance(body, bytes):
        text = body.decode("utf-8", errors="surrogateescape")
        scrubbed = _scrub(text, secrets)
        return body if scrubbed == text else scrubbed.encode("utf-8", errors="surrogateescape")
    return _scrub(body, secrets) if isinstance(body, str) else body


class GuardedPersister:
    """vcrpy's filesystem persister with metadata, that refuses to write a credential."""

    def __init__(self, secrets: frozenset[str], metadata: Mapping[str, Any]) -> None:
        self.secrets = secrets
        self.metadata = dict(metadata)

    def load_cassette(self, cassette_path: str, serializer: Any) -> Any:
        return vcr.persisters.filesystem.FilesystemPersister.load_cassette(cassette_path, serializer)

    def save_cassette(self, cassette_path: str, cassette_dict: dict[str, Any], serializer: Any) -> None:
        data = serialize({**cassette_dict, "metadata": self.metadata}, serializer)
        leaked = [s for s in self.secrets if s in data]
        if leaked:
            raise CredentialInCassette(
                f"refusing to write {cassette_path}: it still holds the value of a credential variable "
                f"({len(leaked)} form(s)); nothing was written"
            )
        path = Path(cassette_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data, encoding="utf-8")


def _raw(body: Any) -> bytes | None:
    if body is None or isinstance(body, bytes):
        return body
    return str(body).encode()


def _as_interaction(request: VcrRequest) -> Interaction:
    return Interaction(request.method, request.uri, _raw(request.body), 0, "", (), b"", Path("-"))


def make_vcr(spec: Spec, tool: Tool, secrets: frozenset[str], metadata: Mapping[str, Any] | None = None) -> vcr.VCR:
    """A VCR that scrubs this tool's credentials and matches on method, path, query and body."""
    query_names = credential_query_names([spec])

    def match(part: str) -> Callable[[VcrRequest, VcrRequest], None]:
        # vcrpy matchers raise AssertionError naming the difference (it shows them on a miss).
        def matcher(r1: VcrRequest, r2: VcrRequest) -> None:
            found = differences(_as_interaction(r1), r2.method, r2.uri, _raw(r2.body), query_names)
            problems = [p for p in found if p.startswith(part)]
            assert not problems, "; ".join(problems)

        return matcher

    header_names = ["authorization", "cookie", "set-cookie", "proxy-authorization"]
    header_names += [a.name for a in _auths(spec, tool) if a.kind == "header" and a.name]

    def scrub_request(request: VcrRequest) -> VcrRequest:
        request.body = _scrub_body(request.body, secrets)
        request.uri = _scrub(request.uri, secrets)
        for name in list(request.headers):
            request.headers[name] = _scrub(str(request.headers[name]), secrets)
        return request

    def scrub_response(response: dict[str, Any]) -> dict[str, Any]:
        response["headers"] = {
            name: [_scrub(str(v), secrets) for v in values]
            for name, values in response["headers"].items()
            if name.lower() not in header_names
        }
        response["body"]["string"] = _scrub_body(response["body"]["string"], secrets)
        return response

    recorder = vcr.VCR(
        serializer="yaml",
        record_mode="none",
        filter_headers=header_names,
        filter_query_parameters=sorted(query_names),
        before_record_request=scrub_request,
        before_record_response=scrub_response,
        decode_compressed_response=True,
        match_on=MATCH_ON,
    )
    recorder.register_matcher("forge_body", match("body"))
    recorder.register_matcher("forge_query", match("query"))
    if metadata is not None:
        recorder.register_persister(GuardedPersister(secrets, metadata))
    return recorder


async def _run_call(engine: Engine, tool: Tool, arguments: Mapping[str, Any]) -> Outcome:
    """Call the tool as a confirmed call would: writes preview first, then confirm."""
    outcome = await engine.call(tool.name, arguments)
    if tool.write and not outcome.is_error:
        if outcome.token is None:
            raise ContractFailure(f"write tool {tool.name!r} gave no token on its first call: {outcome.text}")
        outcome = await engine.call(tool.name, {**arguments, CONFIRM: outcome.token})
    return outcome


def record_example(spec: Spec, tool: Tool, example: int, root: Path, base_url: str | None, progress: Progress) -> Path:
    """Run example `example` against the live API (or `base_url`) and rewrite its cassette.

    Raises:
        ContractFailure: the call failed, or the cassette would hold a credential.
    """
    target = with_base_url(spec, base_url)
    arguments = dict(tool.examples[example - 1])
    path = cassette_path(root, spec, tool, example)
    env = os.environ
    engine = Engine([target], gate=Gate(MemoryTokenStore()), http=HttpClient(), env=env)
    prepared = engine.prepare(tool.name, arguments)
    if isinstance(prepared, Outcome):
        raise ContractFailure(f"cannot record {tool.name} example {example}: {prepared.text}")
    secrets = credential_values(target, tool, env) | prepared.request.secrets
    url = urlsplit(prepared.request.url)
    metadata = {
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": f"{url.scheme}://{url.netloc}",
        "spec": spec.name,
        "tool": tool.name,
        "example": example,
        "arguments": arguments,
        "recorded_by": "pytest --forge-spec ... --record",
    }
    progress(
        f"recording {spec.name}/{tool.name}/{example}: {prepared.request.method} {prepared.request.redact(prepared.request.url)}"
    )
    scratch = path.with_name(f".{path.name}.recording")
    scratch.unlink(missing_ok=True)
    recorder = make_vcr(target, tool, secrets, metadata)

    async def run() -> Outcome:
        try:
            return await _run_call(engine, tool, arguments)
        finally:
            await engine.aclose()

    try:
        with recorder.use_cassette(str(scratch), record_mode="all"):
            outcome = anyio.run(run)
            if outcome.is_error:
                raise ContractFailure(
                    f"{tool.name} example {example} failed against {metadata['host']}; "
                    f"no cassette written:\n{outcome.text}"
                )
        if not scratch.exists():
            raise ContractFailure(f"{tool.name} example {example} made no HTTP request; no cassette written")
        shutil.move(scratch, path)
    finally:
        scratch.unlink(missing_ok=True)
    progress(f"  -> {path}")
    return path


def record_command(spec: Spec, tool: Tool, example: int) -> str:
    writes = " --record-writes" if tool.write else ""
    source: Any = spec.name
    if spec.path is not None:
        source = os.path.relpath(spec.path) if spec.path.is_absolute() else spec.path
    return (
        f"pytest --forge-spec {source} --record{writes} --forge-base-url {spec.name}=URL "
        f"-k '{tool.name} and example-{example}'"
    )


def replay_example(spec: Spec, tool: Tool, example: int, root: Path) -> list[Interaction]:
    """Replay one example from its cassette, offline; the interactions it played.

    Raises:
        ContractFailure: the request forge renders today differs from the recorded one,
            or the replayed call fails.
        FileNotFoundError: there is no cassette.
    """
    path = cassette_path(root, spec, tool, example)
    if not path.exists():
        raise FileNotFoundError(path)
    arguments = dict(tool.examples[example - 1])
    recorded = load_cassette(path)
    env = {**canary_env(spec, tool), **{k: v for k, v in os.environ.items() if k.startswith("FORGE_")}}
    engine = Engine([spec], gate=Gate(MemoryTokenStore()), http=HttpClient(), env=env)
    prepared = engine.prepare(tool.name, arguments)
    if isinstance(prepared, Outcome):
        raise ContractFailure(f"cannot render {tool.name} example {example}: {prepared.text}")
    request = prepared.request
    ignored = credential_query_names([spec])
    if not any(not differences(i, request.method, request.url, request.body, ignored) for i in recorded):
        lines = [f"the request {tool.name} renders today differs from the one recorded in {path}:"]
        for interaction in recorded:
            found = differences(interaction, request.method, request.url, request.body, ignored)
            lines += [f"  recorded {interaction.method} {urlsplit(interaction.uri).path}:"] + [
                f"    {p}" for p in found
            ]
        lines.append(f"re-record it if the change is intended: {record_command(spec, tool, example)}")
        raise ContractFailure("\n".join(lines))

    async def run() -> Outcome:
        try:
            return await _run_call(engine, tool, arguments)
        finally:
            await engine.aclose()

    player = make_vcr(spec, tool, frozenset())
    with player.use_cassette(str(path), record_mode="none", allow_playback_repeats=False) as cassette:
        outcome = anyio.run(run)
        played = cassette.play_count
    if outcome.is_error:
        raise ContractFailure(f"{tool.name} example {example} fails when replayed from {path}:\n{outcome.text}")
    if played != 1:
        raise ContractFailure(f"{tool.name} example {example} made {played} recorded requests; expected exactly 1")
    return [i for i in recorded if not differences(i, request.method, request.url, request.body, ignored)][:1]


def response_json(interaction: Interaction) -> Any:
    try:
        return json.loads(interaction.response_body)
    except ValueError:
        return None
