"""A token store shared through a real redis-server: replicas share one gate, tokens stay single use."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from forge.errors import TokenSpent
from forge.gate import Gate
from forge.redis_store import RedisTokenStore
from tests.serving.clients import accept, connect, text, token_of
from tests.serving.harness import Redis, Upstream, forge_serve, item_spec, write_spec

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_token_issued_by_one_replica_is_accepted_once_by_another_and_then_refused(
    tmp_path: Path, upstream: Upstream, redis_server: Redis, mode: str
) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    shared = ["--token-store", redis_server.url, "--stateless"]
    with forge_serve([spec], tmp_path, *shared) as first, forge_serve([spec], tmp_path, *shared) as second:
        async with connect(first.url, mode) as one, connect(second.url, mode) as two:
            preview = await one.call_tool("create_item", {"title": "lamp"})
            token = token_of(text(preview))
            sent = await two.call_tool("create_item", {"title": "lamp", "confirm": token})
            on_second = await two.call_tool("create_item", {"title": "lamp", "confirm": token})
            on_first = await one.call_tool("create_item", {"title": "lamp", "confirm": token})
    assert not sent.is_error, text(sent)
    for refused in (on_second, on_first):
        assert refused.is_error and "already been used" in text(refused)
    assert len(upstream.writes()) == 1


async def test_an_elicitation_round_started_on_one_replica_completes_on_another(
    tmp_path: Path, upstream: Upstream, redis_server: Redis
) -> None:
    import mcp_types as types

    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    shared = ["--token-store", redis_server.url, "--stateless", "--confirm", "elicit"]
    with forge_serve([spec], tmp_path, *shared) as first, forge_serve([spec], tmp_path, *shared) as second:
        async with connect(first.url, elicit=accept) as one, connect(second.url, elicit=accept) as two:
            asked = await one.session.call_tool("create_item", {"title": "lamp"}, allow_input_required=True)
            assert isinstance(asked, types.InputRequiredResult)
            yes = {"confirm": types.ElicitResult(action="accept", content={"send": True})}
            sent = await two.session.call_tool(
                "create_item", {"title": "lamp"}, input_responses=yes, request_state=asked.request_state
            )
            again = await one.session.call_tool(
                "create_item", {"title": "lamp"}, input_responses=yes, request_state=asked.request_state
            )
    assert not sent.is_error, text(sent)
    assert again.is_error and "already been used" in text(again)
    assert len(upstream.writes()) == 1


def test_readyz_turns_unready_when_redis_goes_away(tmp_path: Path, upstream: Upstream, redis_server: Redis) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    with forge_serve([spec], tmp_path, "--token-store", redis_server.url) as forge:
        assert httpx.get(forge.base + "/readyz").json()["token_store"] == "ok"
        redis_server.stop()
        gone = httpx.get(forge.base + "/readyz", timeout=10)
    assert gone.status_code == 503
    assert gone.json()["token_store"] == "unreachable" and gone.json()["ready"] is False


def test_concurrent_confirmations_of_one_token_spend_it_exactly_once(redis_server: Redis) -> None:
    gates = [Gate(RedisTokenStore(redis_server.url)) for _ in range(8)]
    binding = b"acme\x00create_item\x00request"
    token = gates[0].issue(binding)
    start = threading.Barrier(len(gates))
    outcomes: list[str] = []

    def confirm(gate: Gate) -> None:
        start.wait()
        try:
            gate.redeem(token, binding)
            outcomes.append("sent")
        except TokenSpent:
            outcomes.append("spent")

    threads = [threading.Thread(target=confirm, args=(gate,)) for gate in gates]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["sent"] + ["spent"] * 7


def test_redis_tokens_expire_and_every_store_signs_with_one_shared_key(redis_server: Redis) -> None:
    now = [time.time()]
    issuer = Gate(RedisTokenStore(redis_server.url), lifetime=5, clock=lambda: now[0])
    other = Gate(RedisTokenStore(redis_server.url), lifetime=5, clock=lambda: now[0])
    assert issuer.store.key() == other.store.key()
    token = issuer.issue(b"binding")
    now[0] += 6
    from forge.errors import TokenExpired

    with pytest.raises(TokenExpired):
        other.redeem(token, b"binding")
