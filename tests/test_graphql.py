"""GraphQL specs: static checks (parse, variables, schema validation), `forge check` output,
and rendering end to end against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graphql import build_schema, introspection_from_schema

from forge.cli import main
from forge.engine import Engine
from forge.gate import Gate
from forge.loading import inspect_spec, read_document
from forge.spec import Spec
from forge.specfile import compile_spec
from forge.tokenstore import MemoryTokenStore
from tests.upstream import Reply, Upstream, running_upstream

ROOT = Path(__file__).resolve().parents[1]
BOULEVARD = ROOT / "specs" / "boulevard.json"

SDL = """
type Query {
  cart(id: ID!): Cart
  carts(first: Int, after: String): [Cart!]!
}
type Mutation {
  checkoutCart(input: CheckoutCartInput!): Cart
}
input CheckoutCartInput { id: ID! }
type Cart { id: ID! total: Int! }
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# ---------------------------------------------------------------- helpers


def _tool(query: str, variables: list[str], params: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    if params is None:
        params = [{"name": v, "type": "string", "required": True} for v in variables]
    return {
        "name": "t",
        "description": "A test tool.",
        "params": params,
        "query": query,
        "variables": variables,
    } | extra


def _write_spec(folder: Path, tools: list[dict[str, Any]], schema: str | None = None, name: str = "x.json") -> Path:
    transport: dict[str, Any] = {"kind": "graphql", "url": "https://api.example.com/graphql"}
    if schema is not None:
        transport["schema"] = schema
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": "x", "transport": transport, "tools": tools}))
    return path


def _problems(path: Path, schema: Path | None = None) -> list[str]:
    _, issues = inspect_spec(path, schema_override=schema)
    return [str(issue) for issue in issues]


def _only(path: Path, schema: Path | None = None) -> str:
    problems = _problems(path, schema)
    assert len(problems) == 1, problems
    return problems[0]


@pytest.fixture
def sdl(tmp_path: Path) -> Path:
    path = tmp_path / "schema.graphql"
    path.write_text(SDL)
    return path


# ---------------------------------------------------------- variable agreement


def test_a_consistent_graphql_tool_has_no_problems(tmp_path: Path, sdl: Path) -> None:
    path = _write_spec(
        tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { id total } }", ["id"])], "schema.graphql"
    )
    assert _problems(path) == []


def test_a_variable_used_but_not_declared_is_reported_with_file_tool_and_name(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Cart { cart(id: $id) { id } }", [], params=[])])
    assert _only(path) == f"{path}: tool t: query uses $id, which the operation does not declare"


def test_a_variable_declared_but_never_used_is_reported(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Cart($id: ID!, $x: Int) { cart(id: $id) { id } }", ["id", "x"])])
    assert _only(path) == f"{path}: tool t: query declares $x but never uses it"


def test_a_declared_variable_missing_from_the_tools_variables_is_reported(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { id } }", [], params=[])])
    assert _only(path) == f"{path}: tool t: query declares $id, which is not listed in variables"


def test_a_listed_variable_the_query_does_not_declare_is_reported(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { id } }", ["id", "extra"])])
    assert _only(path) == f"{path}: tool t: variables lists 'extra', which the query does not declare"


def test_a_listed_variable_that_is_not_a_parameter_is_reported(tmp_path: Path) -> None:
    tool = _tool("query Cart($id: ID!) { cart(id: $id) { id } }", ["id"], params=[])
    assert _only(_write_spec(tmp_path, [tool])).endswith("tool t: variables lists 'id', which is not a parameter")


def test_a_parameter_not_passed_as_a_variable_is_reported(tmp_path: Path) -> None:
    params = [{"name": "id", "type": "string", "required": True}, {"name": "stray", "type": "string"}]
    tool = _tool("query Cart($id: ID!) { cart(id: $id) { id } }", ["id"], params=params)
    assert _only(_write_spec(tmp_path, [tool])).endswith("tool t: parameter 'stray' is not passed as a variable")


def test_a_non_null_variable_without_a_default_must_be_a_required_parameter(tmp_path: Path) -> None:
    params = [{"name": "id", "type": "string"}]
    tool = _tool("query Cart($id: ID!) { cart(id: $id) { id } }", ["id"], params=params)
    assert _only(_write_spec(tmp_path, [tool])).endswith(
        "tool t: parameter 'id' is required: $id is ID! with no default"
    )


def test_a_non_null_variable_with_a_default_may_be_an_optional_parameter(tmp_path: Path) -> None:
    params = [{"name": "first", "type": "integer"}]
    tool = _tool("query Carts($first: Int! = 10) { carts(first: $first) { id } }", ["first"], params=params)
    assert _problems(_write_spec(tmp_path, [tool])) == []


def test_variables_used_only_inside_a_fragment_count_as_used(tmp_path: Path, sdl: Path) -> None:
    query = (
        "query Cart($id: ID!, $n: Int) { cart(id: $id) { id } ...More }\n"
        "fragment More on Query { carts(first: $n) { id } }"
    )
    params = [{"name": "id", "type": "string", "required": True}, {"name": "n", "type": "integer"}]
    path = _write_spec(tmp_path, [_tool(query, ["id", "n"], params=params)], "schema.graphql")
    assert _problems(path) == []


# ------------------------------------------------------- parsing and shape


def test_a_document_that_does_not_parse_is_reported_with_file_tool_field_and_line(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Cart($id: ID!) {\n  cart(id: $id) { id \n", ["id"])])
    problem = _only(path)
    assert problem.startswith(f"{path}: tool t: query does not parse: ")
    assert re.search(r"at line \d+, column \d+$", problem)


def test_a_document_with_two_operations_is_reported(tmp_path: Path) -> None:
    query = "query A($id: ID!) { cart(id: $id) { id } }\nquery B { carts { id } }"
    path = _write_spec(tmp_path, [_tool(query, ["id"])])
    assert _only(path) == f"{path}: tool t: query must hold exactly one operation, found 2"


def test_a_document_holding_only_a_fragment_is_reported(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("fragment F on Cart { id }", [], params=[])])
    assert _only(path) == f"{path}: tool t: query must hold exactly one operation, found 0"


def test_a_type_definition_inside_a_query_document_is_reported(tmp_path: Path) -> None:
    query = "type Extra { a: Int }\nquery Carts { carts { id } }"
    path = _write_spec(tmp_path, [_tool(query, [], params=[])])
    assert "query holds a type-system definition (object type definition)" in _only(path)


def test_a_query_on_a_rest_transport_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    tool = _tool("query Carts { carts { id } }", [], params=[])
    path.write_text(
        json.dumps({"name": "x", "transport": {"kind": "rest", "url": "https://a.example"}, "tools": [tool]})
    )
    assert _only(path) == f"{path}: tool t: a GraphQL 'query' needs transport.kind 'graphql'"


# ------------------------------------------------------- schema validation


def test_an_unknown_field_fails_schema_validation(tmp_path: Path, sdl: Path) -> None:
    path = _write_spec(
        tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { id startAt } }", ["id"])], "schema.graphql"
    )
    problem = _only(path)
    assert problem.startswith(f"{path}: tool t: query does not validate against the schema: ")
    assert "Cannot query field 'startAt' on type 'Cart'." in problem
    assert problem.endswith("(line 1)")


def test_an_unknown_argument_and_a_wrong_variable_type_fail_schema_validation(tmp_path: Path, sdl: Path) -> None:
    query = "query Carts($first: String, $x: Int) {\n  carts(first: $first, last: $x) { id }\n}"
    params = [{"name": "first", "type": "string"}, {"name": "x", "type": "integer"}]
    path = _write_spec(tmp_path, [_tool(query, ["first", "x"], params=params)], "schema.graphql")
    problems = "\n".join(_problems(path))
    assert "Unknown argument 'last' on field 'Query.carts'." in problems
    assert "Variable '$first' of type 'String' used in position expecting type 'Int'." in problems


def test_a_mutation_against_a_schema_validates_its_input_type(tmp_path: Path, sdl: Path) -> None:
    ok = "mutation Checkout($input: CheckoutCartInput!) { checkoutCart(input: $input) { id } }"
    bad = "mutation Checkout($input: CheckoutInput!) { checkoutCart(input: $input) { id } }"
    params = [{"name": "input", "type": "object", "required": True}]
    good_path = _write_spec(tmp_path, [_tool(ok, ["input"], params=params, write=True)], "schema.graphql", "ok.json")
    bad_path = _write_spec(tmp_path, [_tool(bad, ["input"], params=params, write=True)], "schema.graphql", "bad.json")
    assert _problems(good_path) == []
    assert "Unknown type 'CheckoutInput'." in "\n".join(_problems(bad_path))


def test_no_schema_means_no_schema_validation(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { nonsense } }", ["id"])])
    assert _problems(path) == []


def test_a_schema_override_validates_a_spec_that_names_none(tmp_path: Path, sdl: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { nonsense } }", ["id"])])
    assert "Cannot query field 'nonsense' on type 'Cart'." in _only(path, sdl)


@pytest.mark.parametrize("wrapped", [True, False], ids=["data-wrapped", "bare"])
def test_an_introspection_json_schema_validates_like_sdl(tmp_path: Path, wrapped: bool) -> None:
    introspection: dict[str, Any] = dict(introspection_from_schema(build_schema(SDL)))
    document = {"data": introspection} if wrapped else introspection
    (tmp_path / "schema.json").write_text(json.dumps(document))
    good = _write_spec(
        tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { id total } }", ["id"])], "schema.json", "a.json"
    )
    bad = _write_spec(
        tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { nonsense } }", ["id"])], "schema.json", "b.json"
    )
    assert _problems(good) == []
    assert "Cannot query field 'nonsense' on type 'Cart'." in _only(bad)


def test_a_missing_schema_file_is_one_clear_issue_naming_the_path(tmp_path: Path) -> None:
    path = _write_spec(tmp_path, [_tool("query Carts { carts { id } }", [], params=[])], "../nowhere/schema.graphql")
    problem = _only(path)
    assert problem.startswith(f"{path}: transport.schema: GraphQL schema file ")
    assert "nowhere/schema.graphql' does not exist (the path is relative to the spec file)" in problem
    assert "--schema" in problem


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("list.json", "[]", "introspection JSON must be"),
        ("other.json", '{"types": []}', "introspection JSON must be"),
        ("broken.json", "{not json", "is not a GraphQL schema"),
        ("noroot.graphql", "type Cart { id: ID! }", "Query root type must be provided"),
        ("syntax.graphql", "type Query {", "is not a GraphQL schema"),
    ],
)
def test_a_file_that_is_not_a_schema_is_an_issue_not_a_crash(
    tmp_path: Path, name: str, content: str, expected: str
) -> None:
    (tmp_path / name).write_text(content)
    path = _write_spec(tmp_path, [_tool("query Carts { carts { id } }", [], params=[])], name)
    problem = _only(path)
    assert problem.startswith(f"{path}: transport.schema: ")
    assert expected in problem


# ------------------------------------------------------------ forge check


def test_forge_check_prints_one_line_per_problem_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_spec(
        tmp_path,
        [_tool("query Cart($id: ID!, $n: Int) { cart(id: $id) { id } carts(first: $x) { id } }", ["id"])],
        name="specs/x.json",
    )
    assert main(["check", "specs/x.json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "specs/x.json: tool t: query uses $x, which the operation does not declare",
        "specs/x.json: tool t: query declares $n but never uses it",
        "specs/x.json: tool t: query declares $n, which is not listed in variables",
    ]


def test_forge_check_says_ok_and_exits_0_for_a_valid_graphql_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "schema.graphql").write_text(SDL)
    _write_spec(
        tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { id } }", ["id"])], "../schema.graphql", "specs/x.json"
    )
    assert main(["check", "specs/x.json"]) == 0
    assert capsys.readouterr().out == "specs/x.json: ok (1 tools)\n"


def test_forge_check_with_schema_option_reports_schema_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.graphql").write_text(SDL)
    _write_spec(tmp_path, [_tool("query Cart($id: ID!) { cart(id: $id) { startAt } }", ["id"])], name="specs/x.json")
    assert main(["check", "specs/x.json"]) == 0
    capsys.readouterr()
    assert main(["check", "--schema", "s.graphql", "specs/x.json"]) == 1
    assert capsys.readouterr().out == (
        "specs/x.json: tool t: query does not validate against the schema: "
        "Cannot query field 'startAt' on type 'Cart'. (line 1)\n"
    )


def test_forge_check_with_a_missing_schema_option_exits_1_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_spec(tmp_path, [_tool("query Carts { carts { id } }", [], params=[])], name="specs/x.json")
    assert main(["check", "--schema", "missing.graphql", "specs/x.json"]) == 1
    assert capsys.readouterr().out == "specs/x.json: --schema: GraphQL schema file 'missing.graphql' does not exist\n"


# ------------------------------------------------- end to end over real HTTP

API_KEY = "canary-api-key-5f2c9e7d41b8"
CLIENT_TOKEN = "canary-client-token-a9d03e6b7c12"
BUSINESS = "biz-123"


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    """A GraphQL endpoint on 127.0.0.1 that records every request and answers JSON."""
    with running_upstream() as server:
        server.reply(lambda request: Reply(body={"data": {}}))
        yield server


def _boulevard_at(url: str) -> Spec:
    """specs/boulevard.json, compiled as shipped (no ../shared needed), pointed at `url`."""
    spec = compile_spec(read_document(BOULEVARD), BOULEVARD)
    assert spec.transport.url == "https://sandbox.joinblvd.com/api/2020-01/${BOULEVARD_BUSINESS_ID}/client"
    transport = dataclasses.replace(spec.transport, url=url + "/api/2020-01/${BOULEVARD_BUSINESS_ID}/client")
    return dataclasses.replace(spec, transport=transport)


def _engine(upstream: Upstream, **env: str) -> Engine:
    environ = {"BOULEVARD_API_KEY": API_KEY, "BOULEVARD_BUSINESS_ID": BUSINESS, **env}
    return Engine([_boulevard_at(upstream.url)], gate=Gate(MemoryTokenStore()), env=environ)


def _assert_no_secrets(text: str) -> None:
    for secret in (API_KEY, CLIENT_TOKEN, base64.b64encode(f"{API_KEY}:".encode()).decode()):
        assert secret not in text
    assert "canary" not in text


@pytest.mark.anyio
async def test_a_graphql_read_posts_query_variables_and_operation_name(upstream: Upstream) -> None:
    upstream.reply(lambda request: Reply(body={"data": {"cart": {"id": "cart-1", "summary": {"total": 4500}}}}))
    engine = _engine(upstream)
    try:
        outcome = await engine.call("get_cart", {"id": "cart-1"})
    finally:
        await engine.aclose()
    assert not outcome.is_error, outcome.text
    assert json.loads(outcome.text) == {"data": {"cart": {"id": "cart-1", "summary": {"total": 4500}}}}
    [request] = upstream.received
    assert request.method == "POST"
    assert request.target == f"/api/2020-01/{BUSINESS}/client"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["authorization"] == "Basic " + base64.b64encode(f"{API_KEY}:".encode()).decode()
    body = request.json()
    assert set(body) == {"query", "variables", "operationName"}
    assert body["variables"] == {"id": "cart-1"}
    assert body["operationName"] == "Cart"
    assert body["query"] == engine.entries["get_cart"].tool.request.document  # type: ignore[union-attr]
    _assert_no_secrets(outcome.text)


@pytest.mark.anyio
async def test_a_signed_in_client_token_is_the_basic_auth_password(upstream: Upstream) -> None:
    engine = _engine(upstream, BOULEVARD_CLIENT_TOKEN=CLIENT_TOKEN)
    try:
        outcome = await engine.call("list_my_appointments", {"first": 5})
    finally:
        await engine.aclose()
    assert not outcome.is_error, outcome.text
    [request] = upstream.received
    expected = base64.b64encode(f"{API_KEY}:{CLIENT_TOKEN}".encode()).decode()
    assert request.headers["authorization"] == f"Basic {expected}"
    assert request.json()["variables"] == {"first": 5}


@pytest.mark.anyio
async def test_absent_optional_variables_are_omitted_and_defaults_are_sent(upstream: Upstream) -> None:
    engine = _engine(upstream)
    try:
        dates = await engine.call("list_bookable_dates", {"id": "cart-1", "tz": "America/New_York"})
        appointment = await engine.call("get_appointment", {"id": "appt-1"})
        locations = await engine.call("list_locations", {})
    finally:
        await engine.aclose()
    assert not (dates.is_error or appointment.is_error or locations.is_error)
    sent = [request.json() for request in upstream.received]
    assert sent[0]["variables"] == {"id": "cart-1", "tz": "America/New_York"}
    assert sent[0]["operationName"] == "CartBookableDates"
    assert sent[1]["variables"] == {"id": "appt-1"}
    assert sent[2]["variables"] == {"first": 100}  # the spec's default; `after` absent


@pytest.mark.anyio
async def test_a_response_carrying_errors_is_an_error_result_showing_them(upstream: Upstream) -> None:
    upstream.reply(
        lambda request: Reply(
            body={
                "data": {"cart": None},
                "errors": [{"message": "Cart not found", "path": ["cart"], "extensions": {"code": "NOT_FOUND"}}],
            }
        )
    )
    engine = _engine(upstream)
    try:
        outcome = await engine.call("get_cart", {"id": "cart-404"})
    finally:
        await engine.aclose()
    assert outcome.is_error
    assert "GraphQL errors" in outcome.text
    assert "Cart not found" in outcome.text
    assert "NOT_FOUND" in outcome.text


@pytest.mark.anyio
async def test_credentials_echoed_by_the_api_are_redacted_from_error_results(upstream: Upstream) -> None:
    upstream.reply(
        lambda request: Reply(
            body={"errors": [{"message": f"bad key {API_KEY}; header was {request.headers['authorization']}"}]}
        )
    )
    engine = _engine(upstream, BOULEVARD_CLIENT_TOKEN=CLIENT_TOKEN)
    try:
        outcome = await engine.call("get_business", {})
    finally:
        await engine.aclose()
    assert outcome.is_error
    assert "bad key [REDACTED]" in outcome.text
    _assert_no_secrets(outcome.text)
    assert base64.b64encode(f"{API_KEY}:{CLIENT_TOKEN}".encode()).decode() not in outcome.text


@pytest.mark.anyio
async def test_a_graphql_write_sends_nothing_until_confirmed_then_exactly_once(upstream: Upstream) -> None:
    upstream.reply(
        lambda request: Reply(
            body={"data": {"checkoutCart": {"cart": {"id": "cart-1"}, "appointments": [{"appointmentId": "appt-9"}]}}}
        )
    )
    args = {"input": {"id": "cart-1"}}
    engine = _engine(upstream, BOULEVARD_CLIENT_TOKEN=CLIENT_TOKEN)
    try:
        held = await engine.call("checkout_cart", args)
        assert not held.is_error, held.text
        assert held.token
        assert "This has NOT been sent" in held.text
        assert f"POST {upstream.url}/api/2020-01/{BUSINESS}/client" in held.text
        assert '"operationName": "CheckoutCart"' in held.text
        assert "Authorization" in held.text  # the header's name, never its value
        _assert_no_secrets(held.text)
        assert upstream.received == []

        sent = await engine.call("checkout_cart", {**args, "confirm": held.token})
        assert not sent.is_error, sent.text
        assert "appt-9" in sent.text
        _assert_no_secrets(sent.text)

        again = await engine.call("checkout_cart", {**args, "confirm": held.token})
        assert again.is_error
        assert "already been used" in again.text
    finally:
        await engine.aclose()
    [request] = upstream.received
    assert request.method == "POST"
    body = request.json()
    assert body["operationName"] == "CheckoutCart"
    assert body["variables"] == {"input": {"id": "cart-1"}}
    assert body["query"].startswith("mutation CheckoutCart(")
    # The preview showed exactly the body that arrived.
    preview_body = held.text.split("Body:\n", 1)[1].split("\n\nTo send it", 1)[0]
    assert json.loads(preview_body) == body


@pytest.mark.anyio
async def test_a_write_token_does_not_confirm_a_changed_input(upstream: Upstream) -> None:
    engine = _engine(upstream)
    try:
        held = await engine.call("cancel_appointment", {"input": {"id": "appt-1"}})
        refused = await engine.call("cancel_appointment", {"input": {"id": "appt-2"}, "confirm": held.token})
    finally:
        await engine.aclose()
    assert refused.is_error
    assert "different request" in refused.text
    assert upstream.received == []


@pytest.mark.anyio
async def test_an_unset_business_id_sends_nothing_and_names_the_variable(upstream: Upstream) -> None:
    engine = Engine([_boulevard_at(upstream.url)], gate=Gate(MemoryTokenStore()), env={"BOULEVARD_API_KEY": API_KEY})
    try:
        outcome = await engine.call("get_business", {})
    finally:
        await engine.aclose()
    assert outcome.is_error
    assert "BOULEVARD_BUSINESS_ID" in outcome.text
    assert upstream.received == []
