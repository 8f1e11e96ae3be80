"""Shared fixtures: the committed documents, and a real HTTP server on 127.0.0.1 that records requests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.upstream import Received, Reply, Upstream, serving

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openapi"


@dataclass
class Api(Upstream):
    """The shared recording upstream (`url`, `received`, `last`) answering from `replies`:
    (status, body) by prefix of the request target; anything else is 200 {"ok": true}."""

    replies: dict[str, tuple[int, Any]] = field(default_factory=dict)
    keep_alive: bool = False  # HTTP/1.0: a connection per request, as each call runs in its own event loop

    def __post_init__(self) -> None:
        self.responder = self.by_prefix

    def by_prefix(self, request: Received) -> Reply:
        status, body = next(
            (reply for prefix, reply in self.replies.items() if request.target.startswith(prefix)), (200, {"ok": True})
        )
        return Reply(status, body)


@pytest.fixture
def api() -> Iterator[Api]:
    with serving(Api()) as state:
        yield state
