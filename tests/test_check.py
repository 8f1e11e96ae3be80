"""`forge check`'s findings: one line per problem naming the file, the tool and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forge.loading import inspect_spec


def spec_with(*tools: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "name": "acme",
        "transport": {"kind": "rest", "url": "https://api.test"},
        "tools": list(tools),
        **top,
    }


def rest_tool(**overrides: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": "get_item",
        "description": "Get an item.",
        "params": [{"name": "id", "type": "string", "required": True}],
        "request": {"method": "GET", "path": "/items/{id}"},
    }
    tool.update(overrides)
    return tool


def problems(tmp_path: Path, document: Any, name: str = "acme.json") -> list[str]:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    _, issues = inspect_spec(path)
    return [str(issue).replace(str(tmp_path) + "/", "") for issue in issues]


def test_a_valid_spec_has_no_problems(tmp_path: Path) -> None:
    assert problems(tmp_path, spec_with(rest_tool())) == []


def test_a_path_placeholder_without_a_param_is_named(tmp_path: Path) -> None:
    tool = rest_tool(request={"method": "GET", "path": "/items/{item_id}"})
    assert "acme.json: tool get_item: path uses {item_id}, which is not a parameter" in problems(
        tmp_path, spec_with(tool)
    )


def test_a_path_param_must_be_required(tmp_path: Path) -> None:
    tool = rest_tool(params=[{"name": "id", "type": "string"}])
    assert problems(tmp_path, spec_with(tool)) == [
        "acme.json: tool get_item: parameter 'id' is in the path, so it must be required"
    ]


def test_query_and_body_mappings_must_name_params(tmp_path: Path) -> None:
    request = {"method": "POST", "path": "/items/{id}", "query": {"q": "qq"}, "body": {"n": "name"}}
    tool = rest_tool(request=request, write=True)
    assert problems(tmp_path, spec_with(tool)) == [
        "acme.json: tool get_item: query field 'q' maps to 'qq', which is not a parameter",
        "acme.json: tool get_item: body field 'n' maps to 'name', which is not a parameter",
    ]


def test_a_param_the_request_never_uses_is_reported(tmp_path: Path) -> None:
    tool = rest_tool(params=[{"name": "id", "type": "string", "required": True}, {"name": "x", "type": "string"}])
    assert problems(tmp_path, spec_with(tool)) == [
        "acme.json: tool get_item: parameter 'x' is not used by the request (not in path, query, headers or body)"
    ]


def test_unknown_keys_are_errors_with_a_suggestion(tmp_path: Path) -> None:
    tool = rest_tool(request={"method": "GET", "path": "/items/{id}", "qeury": {}})
    assert problems(tmp_path, spec_with(tool)) == [
        "acme.json: tool get_item: unknown key 'qeury' in request (did you mean 'query'?)"
    ]


def test_shape_errors_name_the_tool_and_the_field(tmp_path: Path) -> None:
    tool = rest_tool(params=[{"name": "id", "type": "text", "required": True}])
    [line] = problems(tmp_path, spec_with(tool))
    assert line.startswith("acme.json: tool get_item: params[0].type: 'text' is not one of")


def test_defaults_must_match_their_types(tmp_path: Path) -> None:
    tool = rest_tool(
        params=[{"name": "id", "type": "string", "required": True}, {"name": "n", "type": "integer", "default": "x"}],
        request={"method": "GET", "path": "/items/{id}", "query": {"n": "n"}},
    )
    assert problems(tmp_path, spec_with(tool)) == [
        "acme.json: tool get_item: parameter 'n': default 'x' does not match: 'x' is not of type 'integer'"
    ]


def test_tool_names_must_be_unique(tmp_path: Path) -> None:
    assert problems(tmp_path, spec_with(rest_tool(), rest_tool())) == [
        "acme.json: tool get_item: name 'get_item' is used by 2 tools"
    ]


def test_tool_names_must_be_legal(tmp_path: Path) -> None:
    [line] = problems(tmp_path, spec_with(rest_tool(name="bad name!")))
    assert line.startswith("acme.json: tool bad name!: name: 'bad name!' does not match")


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    assert problems(tmp_path, '{"name": "acme",\n  "tools": [}') == [
        "acme.json: not valid JSON at line 2, column 13: Expecting value"
    ]


def test_a_missing_transport_is_reported(tmp_path: Path) -> None:
    document = spec_with(rest_tool())
    del document["transport"]
    assert problems(tmp_path, document) == ["acme.json: 'transport' is required"]


def test_a_tool_needs_a_request_or_a_query(tmp_path: Path) -> None:
    tool = rest_tool()
    del tool["request"]
    assert problems(tmp_path, spec_with(tool)) == [
        "acme.json: tool get_item: a tool needs exactly one of 'request' (REST) or 'query' (GraphQL)"
    ]


@pytest.mark.parametrize("kind", ["bearer", "basic", "header", "query"])
def test_incomplete_auth_is_reported(tmp_path: Path, kind: str) -> None:
    document = spec_with(rest_tool())
    document["transport"]["auth"] = {"kind": kind}
    [line] = problems(tmp_path, document)
    assert line.startswith("acme.json: transport.auth")


def test_confirm_is_reserved_on_write_tools(tmp_path: Path) -> None:
    tool = rest_tool(
        write=True,
        params=[{"name": "id", "type": "string", "required": True}, {"name": "confirm", "type": "string"}],
        request={"method": "DELETE", "path": "/items/{id}", "query": {"confirm": "confirm"}},
    )
    assert "acme.json: tool get_item: parameter 'confirm' is reserved for the write gate's token" in problems(
        tmp_path, spec_with(tool)
    )


def test_a_spec_whose_graphql_schema_file_is_missing_is_served_but_not_checked(tmp_path: Path) -> None:
    from forge.loading import load_spec

    document = {
        "name": "gql",
        "transport": {"kind": "graphql", "url": "https://g.test", "schema": "absent.graphql"},
        "tools": [{"name": "q", "description": "Q.", "query": "query Q { x }", "variables": []}],
    }
    path = tmp_path / "gql.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert [i.check for i in inspect_spec(path)[1]] == ["graphql-schema-file"]
    assert load_spec(path).tools[0].name == "q"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_a_request_that_can_change_data_must_say_whether_it_is_a_write(tmp_path: Path, method: str) -> None:
    tool = rest_tool(request={"method": method, "path": "/items/{id}"})
    assert problems(tmp_path, spec_with(tool)) == [
        f"acme.json: tool get_item: {method} can change data: say whether this tool is a write "
        '("write": true holds each call until it is confirmed; "write": false sends it at once)'
    ]


@pytest.mark.parametrize("write", [True, False])
def test_a_post_that_says_what_it_is_passes(tmp_path: Path, write: bool) -> None:
    tool = rest_tool(request={"method": "POST", "path": "/search/{id}"}, write=write)
    assert problems(tmp_path, spec_with(tool)) == []


def test_a_graphql_mutation_must_say_whether_it_is_a_write_and_a_query_need_not(tmp_path: Path) -> None:
    def graphql_tool(name: str, document: str) -> dict[str, Any]:
        return {"name": name, "description": "d", "query": document}

    spec = spec_with(
        graphql_tool("cancel", "mutation Cancel { cancel { ok } }"),
        graphql_tool("shop", "query Shop { shop { name } }"),
        graphql_tool("lookup", "mutation Lookup { lookup { dates } }") | {"write": False},
        transport={"kind": "graphql", "url": "https://api.test/graphql"},
    )
    assert problems(tmp_path, spec) == [
        "acme.json: tool cancel: a GraphQL mutation can change data: say whether this tool is a write "
        '("write": true holds each call until it is confirmed; "write": false sends it at once)'
    ]
