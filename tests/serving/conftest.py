from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.serving.harness import REDIS_SERVER, Redis, Upstream, running_redis, running_upstream


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with running_upstream() as server:
        yield server


@pytest.fixture
def redis_server() -> Iterator[Redis]:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install -y redis-server)")
    with running_redis() as server:
        yield server
