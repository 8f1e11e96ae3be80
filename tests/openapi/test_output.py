"""Structured output and drift, through the mcp SDK's own (validating) client, in process."""

from __future__ import annotations

import pytest
from mcp import Client

from forge.server import build_server
from tests.openapi.conftest import Api
from tests.openapi.helpers import engine_for, spec_of

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_conforming_response_is_structured_content_under_result(api: Api, mode: str) -> None:
    api.replies["/v1/session"] = (200, {"id": 1, "user": None})
    engine = engine_for(spec_of("petstore-3.0.yaml", base_url=api.url + "/v1"), {"PETSTORE_COOKIE_AUTH": "sid-1234"})
    try:
        async with Client(build_server(engine), mode=mode) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["getSession"].output_schema is not None
            assert tools["getSession"].annotations is not None and tools["getSession"].annotations.read_only_hint
            result = await client.call_tool("getSession", {})
            assert not result.is_error
            assert result.structured_content == {"result": {"id": 1, "user": None}}
    finally:
        await engine.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_a_drifting_response_still_succeeds_with_a_note_a_validating_client_accepts(api: Api, mode: str) -> None:
    api.replies["/v1/session"] = (200, {"id": "one"})
    engine = engine_for(spec_of("petstore-3.0.yaml", base_url=api.url + "/v1"), {"PETSTORE_COOKIE_AUTH": "sid-1234"})
    try:
        async with Client(build_server(engine), mode=mode) as client:
            result = await client.call_tool("getSession", {})
            assert not result.is_error
            structured = result.structured_content
            assert structured is not None and structured["unvalidated"] == {"id": "one"}
            drift = "\n".join(structured["drift"])
            assert "'user' is a required property" in drift and "'one' is not of type 'integer'" in drift
            text = result.content[0].text  # type: ignore[union-attr]
            assert "differs from the API's documented schema" in text
    finally:
        await engine.aclose()


async def test_an_array_response_of_referenced_items_validates_and_reports_drift(api: Api) -> None:
    api.replies["/v1/pets"] = (200, [{"id": 1, "name": "Rex"}, {"id": 2}])
    engine = engine_for(spec_of("petstore-3.0.yaml", base_url=api.url + "/v1"), {"PETSTORE_TOKEN": "tok-1234"})
    try:
        async with Client(build_server(engine)) as client:
            result = await client.call_tool("listPets", {})
            assert not result.is_error and result.structured_content is not None
            assert result.structured_content["drift"] == ["$[1]: 'name' is a required property"]
    finally:
        await engine.aclose()
