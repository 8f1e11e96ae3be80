"""End to end against a real HTTP server on 127.0.0.1: what an OpenAPI tool actually sends."""

from __future__ import annotations

import base64
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.openapi.conftest import Api
from tests.openapi.helpers import call, close, engine_for, spec_of

ENV = {
    "PETSTORE_TOKEN": "tok-bearer-123",
    "PETSTORE_API_KEY_QUERY": "key-query-456",
    "PETSTORE_USERNAME": "alice",
    "PETSTORE_PASSWORD": "s3cret-pw",
    "PETSTORE_COOKIE_AUTH": "sid-cookie-789",
    "PETSTORE_API_KEY": "key-header-000",
}


def _engine(api: Api, document: str = "petstore-3.0.yaml", **kwargs: object):  # type: ignore[no-untyped-def]
    suffix = "/api" if document.startswith("petstore-2") else "/v1"
    return engine_for(spec_of(document, base_url=api.url + suffix), ENV, **kwargs)


def _query(api: Api) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(api.last.target).query, keep_blank_values=True)


def test_path_values_are_encoded_so_they_cannot_add_or_climb_segments(api: Api) -> None:
    engine = _engine(api)
    try:
        assert not call(engine, "showPetById", {"path_petId": "a/../b c", "query_petId": "q"}).is_error
        assert api.last.target == "/v1/pets/a%2F..%2Fb%20c?petId=q"
        call(engine, "showPetById", {"path_petId": ".."})
        assert api.last.target == "/v1/pets/%2E%2E"
    finally:
        close(engine)


def test_arrays_and_objects_follow_style_and_explode_in_query_and_path(api: Api) -> None:
    engine = _engine(api)
    try:
        arguments = {"tags": ["a", "b"], "status": ["available", "sold"], "filter": {"color": "red", "size": 2}}
        call(engine, "listPets", arguments)
        assert _query(api) == [
            ("tags", "a"),
            ("tags", "b"),
            ("status", "available,sold"),
            ("filter[color]", "red"),
            ("filter[size]", "2"),
        ]
        call(engine, "petAt", {"petId": "p1", "coords": [1, 2]})
        assert unquote(api.last.target) == "/v1/pets/p1/coords/;coords=1;coords=2"
    finally:
        close(engine)


def test_openapi_defaults_are_not_sent(api: Api) -> None:
    engine = _engine(api)
    try:
        call(engine, "listPets", {})
        assert _query(api) == []
    finally:
        close(engine)


def test_header_cookie_and_bearer_auth_are_placed_where_the_document_says(api: Api) -> None:
    engine = _engine(api)
    try:
        call(engine, "listPets", {"X-Request-Id": "r-1", "session": "abc"})
        headers = api.last.headers
        assert headers["x-request-id"] == "r-1"
        assert headers["cookie"] == "session=abc"
        assert headers["authorization"] == "Bearer tok-bearer-123"
    finally:
        close(engine)


def test_a_public_operation_sends_no_credentials(api: Api) -> None:
    engine = _engine(api)
    try:
        call(engine, "showPetById", {"path_petId": "1"})
        assert "authorization" not in api.last.headers
    finally:
        close(engine)


def test_cookie_api_keys_go_in_the_cookie_header_and_deep_object_arrays_use_brackets(api: Api) -> None:
    engine = _engine(api)
    try:
        call(engine, "getSession", {"expand": ["customer", "invoice"]})
        assert _query(api) == [("expand[]", "customer"), ("expand[]", "invoice")]
        assert api.last.headers["cookie"] == "sid=sid-cookie-789"
        assert "authorization" not in api.last.headers
    finally:
        close(engine)


def test_a_form_body_is_urlencoded_with_brackets_and_a_query_api_key(api: Api) -> None:
    engine = _engine(api)
    try:
        body = {"amount": 100, "metadata": {"plan": "pro"}, "items": [{"price": "p_1"}]}
        preview = call(engine, "createCharge", {"body": body})
        assert preview.token and api.received == []
        sent = call(engine, "createCharge", {"body": body, "confirm": preview.token})
        assert not sent.is_error, sent.text
        assert api.last.headers["content-type"] == "application/x-www-form-urlencoded"
        assert parse_qsl(api.last.body.decode()) == [
            ("amount", "100"),
            ("metadata[plan]", "pro"),
            ("items[0][price]", "p_1"),
        ]
        assert _query(api) == [("api_key", "key-query-456")]
        assert "key-query-456" not in preview.text
    finally:
        close(engine)


def test_a_multipart_body_sends_one_part_per_field_with_basic_auth(api: Api) -> None:
    engine = _engine(api)
    try:
        assert not call(engine, "uploadFile", {"body": {"name": "rex", "tags": ["x", "y"]}}).is_error
        content_type = api.last.headers["content-type"]
        assert content_type.startswith("multipart/form-data; boundary=")
        body = api.last.body.decode()
        assert body.count('name="tags"') == 2 and 'name="name"\r\n\r\nrex' in body
        expected = base64.b64encode(b"alice:s3cret-pw").decode()
        assert api.last.headers["authorization"] == f"Basic {expected}"
    finally:
        close(engine)


def test_an_openapi_write_is_held_by_the_gate_until_confirmed_once(api: Api) -> None:
    engine = _engine(api)
    try:
        first = call(engine, "deletePet", {"petId": "7"})
        assert first.token and "NOT been sent" in first.text and api.received == []
        other = call(engine, "deletePet", {"petId": "8", "confirm": first.token})
        assert other.is_error and "different request" in other.text and api.received == []
        sent = call(engine, "deletePet", {"petId": "7", "confirm": first.token})
        assert not sent.is_error and [(r.method, r.target) for r in api.received] == [("DELETE", "/v1/pets/7")]
        again = call(engine, "deletePet", {"petId": "7", "confirm": first.token})
        assert again.is_error and len(api.received) == 1
    finally:
        close(engine)


def test_a_json_body_is_sent_as_json(api: Api) -> None:
    engine = _engine(api)
    try:
        token = call(engine, "createPet", {"body": {"name": "Rex", "tag": None}}).token
        call(engine, "createPet", {"body": {"name": "Rex", "tag": None}, "confirm": token})
        assert api.last.headers["content-type"] == "application/json"
        assert api.last.body == b'{"name": "Rex", "tag": null}'
    finally:
        close(engine)


def test_swagger_2_collection_formats_form_data_and_header_api_key(api: Api) -> None:
    engine = _engine(api, "petstore-2.0.yaml")
    try:
        call(engine, "findPets", {"tags": ["a", "b"], "ids": [1, 2]})
        assert _query(api) == [("tags", "a|b"), ("ids", "1"), ("ids", "2")]
        assert api.last.headers["x-api-key"] == "key-header-000"
        token = call(engine, "uploadPhoto", {"id": 3, "caption": "hi", "file": "data"}).token
        call(engine, "uploadPhoto", {"id": 3, "caption": "hi", "file": "data", "confirm": token})
        assert api.last.target == "/api/pets/3/photo"
        assert api.last.headers["content-type"].startswith("multipart/form-data")
        assert 'name="caption"\r\n\r\nhi' in api.last.body.decode()
        token = call(engine, "renamePet", {"id": 3, "name": "Max"}).token
        call(engine, "renamePet", {"id": 3, "name": "Max", "confirm": token})
        assert api.last.body == b"name=Max"
    finally:
        close(engine)


def test_a_dry_run_shows_the_request_with_header_names_only_and_sends_nothing(api: Api) -> None:
    engine = _engine(api, dry_run=True)
    try:
        outcome = call(engine, "listPets", {"tags": ["a"]})
        assert "DRY RUN" in outcome.text and "Authorization" in outcome.text
        assert "tok-bearer-123" not in outcome.text and api.received == []
    finally:
        close(engine)
