"""The endpoint's own security: access token, Host/Origin checks, body size, concurrency,
and per-request credential passthrough."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import httpx
import pytest
from mcp import MCPError

from tests.serving.clients import connect, text, token_of
from tests.serving.harness import (
    FORGE,
    SERVER_TOKEN,
    Forge,
    Upstream,
    forge_env,
    forge_serve,
    item_spec,
    running_upstream,
    write_spec,
)

pytestmark = pytest.mark.anyio

ACCESS_TOKEN = "endpoint-access-token-0c9b2e7d"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Forge, Upstream]]:
    """One forge with endpoint auth, an extra allowed origin, a small body limit and one call at a time."""
    tmp = tmp_path_factory.mktemp("guarded")
    with running_upstream() as upstream:
        spec = write_spec(tmp, item_spec("acme", upstream.url))
        options = [
            "--auth-token-env",
            "FORGE_ACCESS",
            "--allow-origin",
            "https://console.example.com",
            "--max-body-bytes",
            "4096",
            "--max-concurrent-calls",
            "1",
        ]
        with forge_serve([spec], tmp, *options, env=forge_env(FORGE_ACCESS=ACCESS_TOKEN)) as forge:
            yield forge, upstream


def post(forge: Forge, headers: dict[str, str], body: object = INIT) -> httpx.Response:
    return httpx.post(forge.url, json=body, headers={**JSON_HEADERS, **headers}, timeout=10)


def test_listening_beyond_loopback_without_an_access_token_is_refused_with_the_reason(
    tmp_path: Path, upstream: Upstream
) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    done = subprocess.run(
        [*FORGE, "serve", str(spec), "--http", "0.0.0.0:8080"],
        capture_output=True,
        text=True,
        env=forge_env(),
        timeout=60,
    )
    assert done.returncode == 1
    assert "refusing to listen on 0.0.0.0:8080 without an access token" in done.stderr
    assert "--auth-token-env" in done.stderr


def test_requests_without_the_right_bearer_token_are_refused(guarded: tuple[Forge, Upstream]) -> None:
    forge, _ = guarded
    missing = post(forge, {})
    wrong = post(forge, {"Authorization": "Bearer " + ACCESS_TOKEN[:-1] + "x"})
    right = post(forge, {"Authorization": f"Bearer {ACCESS_TOKEN}"})
    assert missing.status_code == 401 and wrong.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "access token" in missing.json()["error"]["message"]
    assert right.status_code == 200


def test_health_endpoints_need_no_token(guarded: tuple[Forge, Upstream]) -> None:
    forge, _ = guarded
    assert httpx.get(forge.base + "/healthz").status_code == 200
    assert httpx.get(forge.base + "/readyz").json()["ready"] is True


def test_a_foreign_origin_is_refused_and_loopback_or_allowed_origins_pass(guarded: tuple[Forge, Upstream]) -> None:
    forge, _ = guarded
    auth = {"Authorization": f"Bearer {ACCESS_TOKEN}"}
    evil = post(forge, {**auth, "Origin": "https://evil.example"})
    null = post(forge, {**auth, "Origin": "null"})
    local = post(forge, {**auth, "Origin": "http://localhost:3000"})
    allowed = post(forge, {**auth, "Origin": "https://console.example.com"})
    assert evil.status_code == 403 and "Origin 'https://evil.example' is not allowed" in evil.text
    assert null.status_code == 403
    assert local.status_code == 200 and allowed.status_code == 200


def test_a_rebound_host_name_is_refused(guarded: tuple[Forge, Upstream]) -> None:
    forge, _ = guarded
    rebound = post(forge, {"Authorization": f"Bearer {ACCESS_TOKEN}", "Host": f"attacker.example:{forge.port}"})
    assert rebound.status_code == 421
    assert "DNS-rebinding" in rebound.text


def test_an_oversized_body_is_refused_with_a_clear_error(guarded: tuple[Forge, Upstream]) -> None:
    forge, _ = guarded
    big = {**INIT, "params": {**INIT["params"], "padding": "x" * 5000}}  # type: ignore[dict-item]
    refused = post(forge, {"Authorization": f"Bearer {ACCESS_TOKEN}"}, big)
    assert refused.status_code == 413
    assert "limit of 4,096 bytes" in refused.json()["error"]["message"]


async def test_calls_beyond_the_concurrency_limit_are_refused_and_send_nothing(
    guarded: tuple[Forge, Upstream],
) -> None:
    forge, upstream = guarded
    upstream.delay = 2.0
    upstream.arrived.clear()
    before = len(upstream.received)
    auth = {"Authorization": f"Bearer {ACCESS_TOKEN}"}
    results: dict[str, object] = {}
    try:
        async with connect(forge.url, headers=auth) as slow, connect(forge.url, headers=auth) as second:

            async def first_call() -> None:
                results["first"] = await slow.call_tool("get_item", {"id": "slow"})

            async with anyio.create_task_group() as group:
                group.start_soon(first_call)
                assert await anyio.to_thread.run_sync(upstream.arrived.wait, 20)
                results["second"] = await second.call_tool("get_item", {"id": "fast"})
    finally:
        upstream.delay = 0.0
    busy = results["second"]
    assert busy.is_error and "forge is busy" in text(busy) and "--max-concurrent-calls" in text(busy)  # type: ignore[attr-defined]
    assert not results["first"].is_error  # type: ignore[attr-defined]
    assert [s.target for s in upstream.received[before:]] == ["/items/slow"]


def test_an_sdk_client_without_the_token_is_told_why_it_cannot_connect(guarded: tuple[Forge, Upstream]) -> None:
    forge, _ = guarded

    async def attempt() -> None:
        async with connect(forge.url, "legacy") as client:
            await client.list_tools()

    with pytest.raises(BaseExceptionGroup) as caught:
        anyio.run(attempt)
    assert caught.group_contains(MCPError, match="missing or wrong access token", depth=None)


# --- per-request credential passthrough --------------------------------------------------


async def test_each_caller_acts_with_the_credential_from_their_own_request_header(
    tmp_path: Path, upstream: Upstream
) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url, credential_passthrough={"X-Acme-Token": "ACME_TOKEN"}))
    alice, bob = "alice-credential-91f3", "bob-credential-2c7a"
    with forge_serve([spec], tmp_path) as forge:
        async with (
            connect(forge.url, headers={"X-Acme-Token": alice}) as as_alice,
            connect(forge.url, headers={"X-Acme-Token": bob}) as as_bob,
            connect(forge.url) as anonymous,
        ):
            read = await as_alice.call_tool("get_item", {"id": "1"})
            refused = await anonymous.call_tool("get_item", {"id": "2"})
            preview = await as_alice.call_tool("create_item", {"title": "t"})
            stolen = await as_bob.call_tool("create_item", {"title": "t", "confirm": token_of(text(preview))})
            sent = await as_alice.call_tool("create_item", {"title": "t", "confirm": token_of(text(preview))})
        log = forge.output()
    assert not read.is_error and not sent.is_error
    assert refused.is_error and "send yours in the X-Acme-Token request header" in text(refused)
    assert stolen.is_error and "issued for a different request" in text(stolen)
    assert [s.headers["authorization"] for s in upstream.received] == [f"Bearer {alice}", f"Bearer {alice}"]
    assert SERVER_TOKEN not in str([s.headers for s in upstream.received])
    assert alice not in text(preview) and alice not in log and bob not in log
