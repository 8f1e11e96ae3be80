from __future__ import annotations

import base64
import json

import pytest

from forge.errors import MissingVariable, RenderError
from forge.render import REDACTED, render
from forge.spec import Auth, Binding, GraphQLOperation, Param, RestRequest, Tool, Transport

REST = Transport(kind="rest", url="https://api.test/v2/")


def tool(request: RestRequest | GraphQLOperation, *params: Param, write: bool = False) -> Tool:
    return Tool(name="t", description="d", params=params, request=request, write=write)


def string(name: str, **schema: object) -> Param:
    return Param(name, {"type": "string", **schema}, required=False)


def test_path_values_are_percent_encoded_so_they_cannot_leave_their_segment() -> None:
    t = tool(RestRequest("GET", "/items/{id}/parts", path_params=(Binding("id", "id"),)), string("id"))
    urls = [render(REST, t, {"id": value}, {}).url for value in ("a/b", "../x", "..", "é ?#")]
    assert urls == [
        "https://api.test/v2/items/a%2Fb/parts",
        "https://api.test/v2/items/..%2Fx/parts",
        "https://api.test/v2/items/%2E%2E/parts",
        "https://api.test/v2/items/%C3%A9%20%3F%23/parts",
    ]


def test_arrays_repeat_query_keys_and_booleans_are_lowercase() -> None:
    t = tool(
        RestRequest("GET", "/s", query=(Binding("tag", "tags"), Binding("on", "on"), Binding("n", "n"))),
        Param("tags", {"type": "array"}),
        Param("on", {"type": "boolean"}),
        Param("n", {"type": "number"}),
    )
    request = render(REST, t, {"tags": ["a", "b c"], "on": False, "n": 2.0}, {})
    assert request.url == "https://api.test/v2/s?tag=a&tag=b+c&on=false&n=2"


def test_absent_optional_params_are_omitted_and_defaults_are_sent() -> None:
    t = tool(
        RestRequest("POST", "/s", query=(Binding("q", "q"), Binding("page", "page")), body=(Binding("x", "x"),)),
        string("q"),
        Param("page", {"type": "integer", "default": 1}),
        string("x"),
    )
    request = render(REST, t, {"q": None}, {})
    assert request.url == "https://api.test/v2/s?page=1"
    assert request.body == b"{}"


def test_openapi_defaults_are_not_sent() -> None:
    t = tool(
        RestRequest("GET", "/s", query=(Binding("page", "page"),)),
        Param("page", {"type": "integer", "default": 1}, send_default=False),
    )
    assert render(REST, t, {}, {}).url == "https://api.test/v2/s"


def test_json_body_comes_from_the_mapping_and_a_spread_field_merges_an_object() -> None:
    t = tool(
        RestRequest("POST", "/apply", body=(Binding("first_name", "first"), Binding("*", "answers"))),
        string("first"),
        Param("answers", {"type": "object"}),
    )
    request = render(REST, t, {"first": "Ada", "answers": {"question_1": "yes"}}, {})
    assert json.loads(request.body or b"") == {"first_name": "Ada", "question_1": "yes"}
    assert request.header("content-type") == "application/json"


def test_form_and_multipart_bodies_flatten_nested_values() -> None:
    form = tool(RestRequest("POST", "/c", body_param="body", body_encoding="form"), Param("body", {"type": "object"}))
    request = render(REST, form, {"body": {"amount": 5, "metadata": {"plan": "pro"}, "expand": ["a", "b"]}}, {})
    assert request.body == b"amount=5&metadata%5Bplan%5D=pro&expand=a&expand=b"
    multi = tool(RestRequest("POST", "/c", body_param="body", body_encoding="multipart"), Param("body", {}))
    first = render(REST, multi, {"body": {"name": "a"}}, {})
    second = render(REST, multi, {"body": {"name": "a"}}, {})
    assert first.body == second.body
    content_type = first.header("content-type") or ""
    boundary = content_type.split("boundary=")[1]
    assert first.body == (
        f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\na\r\n--{boundary}--\r\n'.encode()
    )


def test_graphql_posts_query_variables_and_operation_name() -> None:
    op = GraphQLOperation("query Q($id: ID!, $n: Int) { x }", variables=("id", "n"), operation_name="Q")
    transport = Transport(kind="graphql", url="https://gql.test/${TENANT}/graphql")
    request = render(transport, tool(op, string("id"), Param("n", {"type": "integer"})), {"id": "1"}, {"TENANT": "t1"})
    assert (request.method, request.url) == ("POST", "https://gql.test/t1/graphql")
    assert json.loads(request.body or b"") == {"query": op.document, "variables": {"id": "1"}, "operationName": "Q"}


def test_an_unset_url_variable_is_named_and_nothing_is_built() -> None:
    transport = Transport(kind="rest", url="https://${HOST_VAR}/v1")
    with pytest.raises(MissingVariable) as info:
        render(transport, tool(RestRequest("GET", "/x")), {}, {})
    assert info.value.variable == "HOST_VAR"


@pytest.mark.parametrize(
    ("auth", "where"),
    [
        (Auth("bearer", "K"), ("header", "Authorization", "Bearer s3cret-value")),
        (Auth("header", "K", name="X-Api-Key"), ("header", "X-Api-Key", "s3cret-value")),
        (Auth("query", "K", name="api_key"), ("query", "api_key", "s3cret-value")),
        (Auth("cookie", "K", name="sid"), ("header", "Cookie", "sid=s3cret-value")),
    ],
)
def test_credentials_go_where_the_auth_kind_says(auth: Auth, where: tuple[str, str, str]) -> None:
    transport = Transport(kind="rest", url="https://api.test", auth=(auth,))
    request = render(transport, tool(RestRequest("GET", "/x")), {}, {"K": "s3cret-value"})
    kind, name, value = where
    if kind == "header":
        assert request.header(name) == value
    else:
        assert request.url == f"https://api.test/x?{name}={value}"
    assert REDACTED in request.redact(request.url + str(request.headers))
    assert "s3cret-value" not in request.redact(request.url + str(request.headers))


def test_basic_auth_uses_an_empty_password_when_the_second_variable_is_absent() -> None:
    transport = Transport(kind="rest", url="https://api.test", auth=(Auth("basic", "KEY", password_env="PW"),))
    request = render(transport, tool(RestRequest("GET", "/x")), {}, {"KEY": "api-key-123"})
    assert request.header("authorization") == "Basic " + base64.b64encode(b"api-key-123:").decode()
    assert "api-key-123" not in request.redact(str(request.headers))
    assert base64.b64encode(b"api-key-123:").decode() not in request.redact(str(request.headers))


def test_a_missing_credential_refuses_to_build_the_request() -> None:
    transport = Transport(kind="rest", url="https://api.test", auth=(Auth("bearer", "ACME_TOKEN"),))
    with pytest.raises(MissingVariable, match="ACME_TOKEN"):
        render(transport, tool(RestRequest("GET", "/x")), {}, {})


def test_a_tool_without_auth_overrides_the_transport() -> None:
    transport = Transport(kind="rest", url="https://api.test", auth=(Auth("bearer", "ACME_TOKEN"),))
    public = Tool("t", "d", (), RestRequest("GET", "/x"), auth=())
    assert render(transport, public, {}, {}).header("authorization") is None


def test_a_path_parameter_without_a_value_is_a_render_error() -> None:
    t = tool(RestRequest("GET", "/items/{id}", path_params=(Binding("id", "id"),)), string("id"))
    with pytest.raises(RenderError):
        render(REST, t, {}, {})


def test_the_fingerprint_covers_method_url_headers_and_body() -> None:
    t = tool(RestRequest("POST", "/x", body=(Binding("a", "a"),)), string("a"))
    base = render(REST, t, {"a": "1"}, {})
    assert base.fingerprint() == render(REST, t, {"a": "1"}, {}).fingerprint()
    assert base.fingerprint() != render(REST, t, {"a": "2"}, {}).fingerprint()
    keyed = Transport(kind="rest", url=REST.url, auth=(Auth("bearer", "K"),))
    assert render(keyed, t, {"a": "1"}, {"K": "k-one"}).fingerprint() != (
        render(keyed, t, {"a": "1"}, {"K": "k-two"}).fingerprint()
    )
