from __future__ import annotations

import json

from forge.client import Response
from forge.render import RenderedRequest
from forge.results import format_response, truncate
from forge.spec import GraphQLOperation, RestRequest, Tool

REQUEST = RenderedRequest(
    "GET", "https://api.test/x?key=secret-key-1", (("Accept", "application/json"),), None, frozenset({"secret-key-1"})
)


def reply(status: int, body: bytes, content_type: str = "application/json") -> Response:
    return Response(status, "OK" if status < 400 else "Error", (("Content-Type", content_type),), body)


def rest_tool(**kw: object) -> Tool:
    return Tool("t", "d", (), RestRequest("GET", "/x"), **kw)  # type: ignore[arg-type]


def test_a_long_response_is_cut_with_a_notice_of_how_much() -> None:
    text = truncate("x" * 25_000, 20_000)
    assert text.startswith("x" * 20_000)
    assert text.endswith(
        "[forge: response truncated: 5,000 of 25,000 characters cut; what is shown is not complete JSON]"
    )
    assert truncate("short", 20_000) == "short"


def test_http_errors_carry_the_status_and_a_bounded_redacted_excerpt() -> None:
    outcome = format_response(rest_tool(), REQUEST, reply(503, b"secret-key-1 " + b"e" * 5000), 20_000)
    assert outcome.is_error
    assert outcome.text.startswith("HTTP 503 Error from GET https://api.test/x?key=[REDACTED]\n[REDACTED] eee")
    assert "secret-key-1" not in outcome.text
    assert outcome.text.endswith("[forge: 3,013 more characters not shown]")


def test_graphql_errors_are_error_results_showing_them() -> None:
    tool = Tool("g", "d", (), GraphQLOperation("{ x }", ()))
    body = json.dumps({"data": None, "errors": [{"message": "Cart expired"}]}).encode()
    outcome = format_response(tool, REQUEST, reply(200, body), 20_000)
    assert outcome.is_error and "GraphQL errors" in outcome.text and "Cart expired" in outcome.text


def test_a_response_matching_its_documented_schema_is_structured_under_result() -> None:
    tool = rest_tool(response_schema={"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}})
    outcome = format_response(tool, REQUEST, reply(200, b'{"id": 1}'), 20_000)
    assert not outcome.is_error and outcome.structured == {"result": {"id": 1}}


def test_a_drifting_response_still_succeeds_with_a_note_saying_where() -> None:
    tool = rest_tool(response_schema={"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}})
    outcome = format_response(tool, REQUEST, reply(200, b'{"name": "x"}'), 20_000)
    assert not outcome.is_error
    assert outcome.structured == {"unvalidated": {"name": "x"}, "drift": ["$: 'id' is a required property"]}
    assert "[forge: the response differs from the API's documented schema: $: 'id' is a required property]" in (
        outcome.text
    )


def test_an_empty_success_body_says_so() -> None:
    outcome = format_response(rest_tool(), REQUEST, reply(204, b""), 20_000)
    assert not outcome.is_error and outcome.text == "HTTP 204 OK (no body)"


def test_a_redirect_is_an_error_and_is_not_followed() -> None:
    response = Response(302, "Found", (("Location", "https://elsewhere.test/x?key=secret-key-1"),), b"")
    outcome = format_response(rest_tool(), REQUEST, response, 20_000)
    assert outcome.is_error
    assert "redirect to https://elsewhere.test/x?key=[REDACTED] not followed" in outcome.text


def test_a_body_over_the_read_limit_is_cut_and_says_so() -> None:
    response = Response(200, "OK", (("Content-Type", "application/json"),), b"[" + b"1," * 100, cut=True)
    outcome = format_response(rest_tool(), REQUEST, response, 20_000)
    assert not outcome.is_error and "only that much was read" in outcome.text


def test_a_form_body_is_shown_field_by_field() -> None:
    from forge.results import describe_request

    request = RenderedRequest(
        "POST",
        "https://api.test/c",
        (("Content-Type", "application/x-www-form-urlencoded"),),
        b"metadata%5Bplan%5D=pro&key=secret-key-1",
        frozenset({"secret-key-1"}),
    )
    assert describe_request(request).splitlines()[-3:] == [
        "Body (form):",
        "  metadata[plan] = pro",
        "  key = [REDACTED]",
    ]
