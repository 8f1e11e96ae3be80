"""`forge serve --http`: real uvicorn on 127.0.0.1, driven by mcp.Client in both protocol generations."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.serving.clients import EXPECTED_VERSION, connect, text, token_of
from tests.serving.harness import SERVER_TOKEN, Upstream, forge_serve, item_spec, write_spec

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_read_and_a_token_confirmed_write_work_over_http(
    tmp_path: Path, upstream: Upstream, mode: str, stateless: bool
) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    with forge_serve([spec], tmp_path, *(["--stateless"] if stateless else [])) as forge:
        async with connect(forge.url, mode) as client:
            assert client.protocol_version == EXPECTED_VERSION[mode]
            assert {t.name for t in (await client.list_tools()).tools} == {"get_item", "create_item"}
            read = await client.call_tool("get_item", {"id": "7"})
            preview = await client.call_tool("create_item", {"title": "lamp"})
            assert upstream.writes() == []
            sent = await client.call_tool("create_item", {"title": "lamp", "confirm": token_of(text(preview))})
            again = await client.call_tool("create_item", {"title": "lamp", "confirm": token_of(text(preview))})
    assert not read.is_error and json.loads(text(read))["path"] == "/items/7"
    assert "This has NOT been sent" in text(preview)
    assert not sent.is_error
    assert again.is_error and "already been used" in text(again)
    [write] = upstream.writes()
    assert write.json() == {"title": "lamp"}
    assert write.headers["authorization"] == f"Bearer {SERVER_TOKEN}"


async def test_several_specs_are_served_side_by_side_under_their_own_names(tmp_path: Path, upstream: Upstream) -> None:
    long_name = "a_rather_long_spec_name_for_an_internal_inventory_service_v2"
    folder = tmp_path / "specs"
    folder.mkdir()
    write_spec(folder, item_spec("acme", upstream.url + "/acme"))
    write_spec(folder, item_spec("globex", upstream.url + "/globex"))
    write_spec(folder, item_spec(long_name, upstream.url + "/long"))
    with forge_serve([folder], tmp_path) as forge:
        async with connect(forge.url) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            acme = await client.call_tool("acme_get_item", {"id": "1"})
            globex = await client.call_tool("globex_get_item", {"id": "2"})
            long_tool = next(n for n in names if n.startswith("a_rather_long") and "get" in n)
            long_read = await client.call_tool(long_tool, {"id": "3"})
    assert {"acme_get_item", "acme_create_item", "globex_get_item", "globex_create_item"} <= names
    assert len(names) == 6 and all(len(n) <= 64 for n in names)
    assert not acme.is_error and not globex.is_error and not long_read.is_error
    assert [s.target for s in upstream.received] == ["/acme/items/1", "/globex/items/2", "/long/items/3"]


def test_two_specs_with_one_name_are_refused_at_startup(tmp_path: Path, upstream: Upstream) -> None:
    import subprocess

    from tests.serving.harness import FORGE, forge_env

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_spec(tmp_path / "a", item_spec("acme", upstream.url))
    second = write_spec(tmp_path / "b", item_spec("acme", upstream.url))
    done = subprocess.run(
        [*FORGE, "serve", str(first), str(second), "--http", "127.0.0.1:1"],
        capture_output=True,
        text=True,
        env=forge_env(),
        timeout=60,
    )
    assert done.returncode == 1
    assert "two specs are named 'acme'" in done.stderr


def test_healthz_answers_and_readyz_reports_the_specs_and_the_token_store(tmp_path: Path, upstream: Upstream) -> None:
    spec = write_spec(tmp_path, item_spec("acme", upstream.url))
    with forge_serve([spec], tmp_path) as forge:
        health = httpx.get(forge.base + "/healthz")
        ready = httpx.get(forge.base + "/readyz")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert ready.status_code == 200
    assert ready.json() == {"ready": True, "specs": ["acme"], "tools": 2, "token_store": "ok"}


def _big_spec(url: str, tools: int) -> dict[str, object]:
    """A spec whose tools/list answer is over 1 MiB (the SDK client's SSE event limit)."""
    words = "Returns the widget with every field the API documents, as the API sends it. " * 60
    return {
        "name": "widgets",
        "transport": {"kind": "rest", "url": url},
        "tools": [
            {
                "name": f"get_widget_{n}",
                "description": f"Widget {n}. {words}",
                "params": [{"name": "id", "type": "string", "required": True, "description": words}],
                "request": {"method": "GET", "path": "/widgets/{id}"},
            }
            for n in range(tools)
        ],
    }


@pytest.mark.parametrize("mode", MODES)
async def test_a_listing_over_a_mebibyte_is_answered_in_pages_the_sdk_client_follows(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    spec = write_spec(tmp_path, _big_spec(upstream.url, 120))
    assert spec.stat().st_size > 1024 * 1024
    with forge_serve([spec], tmp_path, "--tools-per-page", "25") as forge:
        async with connect(forge.url, mode) as client:
            names, cursor, pages = [], None, 0
            while True:
                page = await client.list_tools(cursor=cursor)
                names += [t.name for t in page.tools]
                pages += 1
                if (cursor := page.next_cursor) is None:
                    break
            read = await client.call_tool("get_widget_119", {"id": "7"})
    assert names == [f"get_widget_{n}" for n in range(120)]
    assert pages == 5
    assert not read.is_error
