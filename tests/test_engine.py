"""The call path in process, with the HTTP layer mocked by respx (request-layer unit tests)."""

from __future__ import annotations

import anyio
import httpx
import pytest
import respx

from forge.engine import Engine
from forge.gate import Gate
from forge.spec import Auth, Binding, Param, RestRequest, Spec, Tool, Transport
from forge.tokenstore import MemoryTokenStore

pytestmark = pytest.mark.anyio

SECRET = "canary-engine-secret"
ITEM = Param("id", {"type": "string"}, required=True)
SPEC = Spec(
    name="acme",
    transport=Transport(kind="rest", url="https://api.test", auth=(Auth("bearer", "TOKEN"),), timeout=1),
    tools=(
        Tool("get", "Get.", (ITEM,), RestRequest("GET", "/items/{id}", path_params=(Binding("id", "id"),))),
        Tool(
            "delete",
            "Delete.",
            (ITEM,),
            RestRequest("DELETE", "/items/{id}", path_params=(Binding("id", "id"),)),
            write=True,
        ),
    ),
)


def engine(audit: list[dict[str, object]] | None = None) -> Engine:
    return Engine(
        [SPEC], gate=Gate(MemoryTokenStore()), env={"TOKEN": SECRET}, audit=audit.append if audit is not None else None
    )  # type: ignore[arg-type]


def token_of(text: str) -> str:
    return text.split('confirm="', 1)[1].split('"', 1)[0]


async def test_two_concurrent_confirmations_with_one_token_send_once(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.delete("https://api.test/items/1").mock(return_value=httpx.Response(204))
    forge = engine()
    token = token_of((await forge.call("delete", {"id": "1"})).text)
    results = []

    async def confirm() -> None:
        results.append(await forge.call("delete", {"id": "1", "confirm": token}))

    async with anyio.create_task_group() as group:
        for _ in range(8):
            group.start_soon(confirm)
    assert route.call_count == 1
    assert sorted(r.is_error for r in results) == [False] + [True] * 7


async def test_a_timeout_after_sending_a_write_is_an_unknown_outcome_and_is_not_retried(
    respx_mock: respx.MockRouter,
) -> None:
    route = respx_mock.delete("https://api.test/items/1").mock(side_effect=httpx.ReadTimeout("slow"))
    audit: list[dict[str, object]] = []
    forge = engine(audit)
    token = token_of((await forge.call("delete", {"id": "1"})).text)
    outcome = await forge.call("delete", {"id": "1", "confirm": token})
    assert outcome.is_error and "OUTCOME UNKNOWN" in outcome.text and "not retried" in outcome.text
    assert route.call_count == 1
    assert [record["outcome"] for record in audit] == ["unknown"]


async def test_a_refused_connection_says_nothing_was_sent(respx_mock: respx.MockRouter) -> None:
    respx_mock.get("https://api.test/items/1").mock(side_effect=httpx.ConnectError("refused"))
    outcome = await engine().call("get", {"id": "1"})
    assert outcome.is_error and "nothing was sent" in outcome.text


async def test_sent_writes_are_audited_without_credentials_and_previews_are_not(respx_mock: respx.MockRouter) -> None:
    respx_mock.delete("https://api.test/items/1").mock(return_value=httpx.Response(200, json={}))
    audit: list[dict[str, object]] = []
    forge = engine(audit)
    token = token_of((await forge.call("delete", {"id": "1"})).text)
    assert audit == []
    await forge.call("delete", {"id": "1", "confirm": token})
    [record] = audit
    assert record["outcome"] == 200 and record["tool"] == "delete" and record["method"] == "DELETE"
    assert record["confirmation"] == forge.gate.fingerprint(token)
    assert SECRET not in str(record)


async def test_per_call_credentials_replace_the_servers_own(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.get("https://api.test/items/1").mock(return_value=httpx.Response(200, json={}))
    await engine().call("get", {"id": "1"}, env={"TOKEN": "callers-own-token"})
    assert route.calls.last.request.headers["authorization"] == "Bearer callers-own-token"


async def test_a_dry_run_renders_and_sends_nothing() -> None:
    forge = Engine([SPEC], gate=Gate(MemoryTokenStore()), env={"TOKEN": SECRET}, dry_run=True)
    with respx.mock(assert_all_called=False) as mock:
        outcome = await forge.call("delete", {"id": "1"})
        assert not mock.calls
    assert outcome.text.startswith("DRY RUN: nothing was sent") and "DELETE https://api.test/items/1" in outcome.text
    assert SECRET not in outcome.text


async def test_a_huge_response_is_read_only_up_to_the_limit(respx_mock: respx.MockRouter) -> None:
    from forge.client import HttpClient

    respx_mock.get("https://api.test/items/1").mock(return_value=httpx.Response(200, content=b"x" * 50_000))
    forge = Engine([SPEC], gate=Gate(MemoryTokenStore()), env={"TOKEN": SECRET}, http=HttpClient(max_body=1_000))
    outcome = await forge.call("get", {"id": "1"})
    assert "over 1,000 bytes; only that much was read" in outcome.text
    assert outcome.text.count("x") == 1_000
