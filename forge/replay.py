"""Answer HTTP requests from recorded cassettes (`forge serve --replay`, `forge call --replay`).

Cassettes are the YAML files pytest_forge records (vcrpy's format: `interactions` of
`request`/`response`, plus forge's `metadata`). They are read here with pyyaml, so
`import forge` never pulls in vcrpy. A request matches a recorded one on method, path,
query and body (JSON bodies compare as values); a call that matches nothing becomes an
error result naming the nearest recorded request and what differs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import yaml

from forge.errors import ForgeError, UpstreamUnreachable
from forge.spec import Spec

__all__ = [
    "Interaction",
    "ReplayMiss",
    "ReplayTransport",
    "credential_query_names",
    "differences",
    "load_cassette",
    "load_cassettes",
    "nearest",
]

# Transfer details of the original exchange; the body is stored decoded and whole.
_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


class ReplayMiss(UpstreamUnreachable):
    """No recorded request matches; nothing was sent anywhere."""


@dataclass(frozen=True, slots=True)
class Interaction:
    """One recorded request and its response."""

    method: str
    uri: str
    body: bytes | None
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    response_body: bytes
    source: Path

    @property
    def label(self) -> str:
        split = urlsplit(self.uri)
        return f"{self.method} {split.path}" + (f"?{split.query}" if split.query else "") + f" ({self.source})"


def _bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    return str(value).encode()


def load_cassette(path: Path) -> list[Interaction]:
    """The interactions of one cassette file.

    Raises:
        ForgeError: the file is not a readable cassette.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        interactions = []
        for item in data["interactions"]:
            request, response = item["request"], item["response"]
            headers = tuple(
                (str(name), str(value))
                for name, values in (response.get("headers") or {}).items()
                if str(name).lower() not in _HOP_HEADERS
                for value in (values if isinstance(values, list) else [values])
            )
            interactions.append(
                Interaction(
                    method=str(request["method"]).upper(),
                    uri=str(request["uri"]),
                    body=_bytes(request.get("body")),
                    status=int(response["status"]["code"]),
                    reason=str(response["status"].get("message") or ""),
                    headers=headers,
                    response_body=_bytes((response.get("body") or {}).get("string")) or b"",
                    source=path,
                )
            )
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
        raise ForgeError(f"{path}: not a readable cassette ({type(exc).__name__}: {exc})") from None
    return interactions


def load_cassettes(root: Path) -> list[Interaction]:
    """Every interaction of a cassette file, or of every `*.yaml` under a folder (sorted).

    Raises:
        ForgeError: the path does not exist or a file is not a readable cassette.
    """
    if root.is_file():
        return load_cassette(root)
    if not root.is_dir():
        raise ForgeError(f"no cassettes at {root}: not a file or folder")
    return [i for path in sorted(root.rglob("*.yaml")) for i in load_cassette(path)]


def _body_value(body: bytes | None, query_like: bool) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        pass
    text = body.decode("utf-8", errors="replace")
    return sorted(parse_qsl(text, keep_blank_values=True)) if query_like and "=" in text else text


def _body_differences(recorded: bytes | None, rendered: bytes | None) -> list[str]:
    old, new = _body_value(recorded, True), _body_value(rendered, True)
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            f"body field {key!r}: recorded {json.dumps(old.get(key, '(absent)'))}, "
            f"rendered {json.dumps(new.get(key, '(absent)'))}"
            for key in sorted(set(old) | set(new))
            if old.get(key, ...) != new.get(key, ...)
        ]
    return [f"body: recorded {json.dumps(old)}, rendered {json.dumps(new)}"]


def differences(
    recorded: Interaction, method: str, url: str, body: bytes | None, ignore_query: frozenset[str] = frozenset()
) -> list[str]:
    """What differs between a recorded request and this one (empty when they match).

    Host and scheme are not compared: a cassette recorded against a sandbox replays for
    the spec's real URL. `ignore_query` names credential query parameters, which are
    removed from cassettes when they are recorded.
    """
    problems = []
    if recorded.method != method.upper():
        problems.append(f"method: recorded {recorded.method}, rendered {method.upper()}")
    old, new = urlsplit(recorded.uri), urlsplit(url)
    if old.path != new.path:
        problems.append(f"path: recorded {old.path}, rendered {new.path}")
    old_query = sorted(kv for kv in parse_qsl(old.query, keep_blank_values=True) if kv[0] not in ignore_query)
    new_query = sorted(kv for kv in parse_qsl(new.query, keep_blank_values=True) if kv[0] not in ignore_query)
    if old_query != new_query:
        shown = [f"{k}={v}" for k, v in old_query], [f"{k}={v}" for k, v in new_query]
        problems.append(f"query: recorded {'&'.join(shown[0]) or '(none)'}, rendered {'&'.join(shown[1]) or '(none)'}")
    return problems + _body_differences(recorded.body, body)


def nearest(
    interactions: Iterable[Interaction],
    method: str,
    url: str,
    body: bytes | None,
    ignore_query: frozenset[str] = frozenset(),
) -> tuple[Interaction, list[str]] | None:
    """The recorded request closest to this one and what differs (empty list: a match)."""
    best: tuple[Interaction, list[str]] | None = None
    best_score = (0, 0)
    wanted = set(parse_qsl(urlsplit(url).query, keep_blank_values=True))
    for interaction in interactions:
        found = differences(interaction, method, url, body, ignore_query)
        if not found:
            return interaction, []
        # Fewest differing parts first; then the most query parameters in common.
        common = len(wanted & set(parse_qsl(urlsplit(interaction.uri).query, keep_blank_values=True)))
        score = (len(found), -common)
        if best is None or score < best_score:
            best, best_score = (interaction, found), score
    return best


class ReplayTransport(httpx.AsyncBaseTransport):
    """An httpx transport that answers from recorded interactions and never opens a socket.

    Args:
        interactions: what may be answered (`load_cassettes`).
        ignore_query: credential query parameter names (never recorded, so not compared).
    """

    def __init__(self, interactions: Sequence[Interaction], ignore_query: frozenset[str] = frozenset()) -> None:
        self.interactions = tuple(interactions)
        self.ignore_query = ignore_query

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        method, url = request.method, str(request.url)
        found = nearest(self.interactions, method, url, body or None, self.ignore_query)
        if found is None:
            raise ReplayMiss(f"replay: no recorded requests to answer {method} {request.url.path}; nothing was sent")
        interaction, problems = found
        if problems:
            raise ReplayMiss(
                f"replay: no recorded request matches {method} {request.url.path}; nothing was sent. "
                f"Nearest recorded request: {interaction.label}; differs in " + "; ".join(problems)
            )
        return httpx.Response(
            interaction.status,
            headers=list(interaction.headers),
            content=interaction.response_body,
            extensions={"reason_phrase": interaction.reason.encode()},
            request=request,
        )


def credential_query_names(specs: Iterable[Spec]) -> frozenset[str]:
    """Query parameters that carry credentials in any of `specs` (kept out of cassettes)."""
    names = set()
    for spec in specs:
        auths = list(spec.transport.auth) + [a for tool in spec.tools for a in (tool.auth or ())]
        names |= {auth.name or "api_key" for auth in auths if auth.kind == "query"}
    return frozenset(names)
