"""Reading documents: versions, references, recursion, refusal of remote refs, base URLs."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from forge.errors import SpecError
from forge.loading import inspect_spec, load_spec
from forge.openapi import OpenAPIOptions, compile_document, is_openapi
from forge.schema import input_schema, output_schema
from tests.openapi.helpers import FIXTURES, compile_fixture, spec_of


def test_swagger_2_openapi_3_0_and_3_1_are_detected_from_the_document_itself() -> None:
    assert len(spec_of("petstore-2.0.yaml").tools) == 4
    assert len(spec_of("petstore-3.0.yaml").tools) == 9
    assert len(spec_of("petstore-3.1.json", base_url="http://127.0.0.1:9").tools) == 2


def test_an_unsupported_version_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "4.0.0", "info": {"title": "x"}, "paths": {}}))
    spec, issues = inspect_spec(path)
    assert spec is not None and len(issues) == 1
    assert "not a supported OpenAPI document" in issues[0].message and "'4.0.0'" in issues[0].message


def test_a_forge_spec_naming_an_openapi_file_is_not_mistaken_for_a_document() -> None:
    assert not is_openapi({"name": "x", "openapi": "api.yaml", "tools": []})
    assert is_openapi({"swagger": "2.0"}) and is_openapi({"openapi": "3.1.0"})


def test_references_to_parameters_responses_and_schemas_are_followed() -> None:
    spec = spec_of("petstore-3.1.json", base_url="http://127.0.0.1:9")
    patch = spec.tool("patchNote")
    assert patch is not None and patch.response_schema is not None
    assert patch.response_schema["properties"]["title"] == {"type": "string", "pattern": "^[A-Z]"}
    limit = spec_of("petstore-3.0.yaml").tool("listPets")
    assert limit is not None
    param = limit.param("limit")
    assert param is not None
    assert param.schema["description"].startswith("How many items")
    assert param.schema["default"] == 20 and not param.send_default


def test_recursive_schemas_end_in_a_marked_placeholder() -> None:
    spec = spec_of("recursive.yaml")
    tool = spec.tool("plantTree")
    assert tool is not None
    body = tool.param("body")
    assert body is not None
    children = body.schema["properties"]["children"]["items"]
    assert children == {"description": "(recursive: #/components/schemas/Node)"}
    assert tool.response_schema is not None
    json.dumps(input_schema(tool)), json.dumps(output_schema(tool))


def test_a_cycle_of_parameter_references_skips_the_operation_with_the_reason() -> None:
    spec = spec_of("recursive.yaml")
    assert [s.operation for s in spec.skipped] == ["GET /loop"]
    assert "cycle of references" in spec.skipped[0].reason


def test_remote_and_file_references_are_refused_naming_the_reference() -> None:
    spec, issues = compile_fixture("remote-ref.yaml")
    messages = "\n".join(str(i) for i in issues)
    assert "https://schemas.example/pet.yaml#/Pet" in messages and "common.yaml#/parameters/limit" in messages
    assert "never fetches" in messages
    assert [t.name for t in spec.tools] == ["localOnly"]


def test_an_operation_with_a_remote_reference_can_be_left_out_with_exclude() -> None:
    spec, issues = compile_fixture("remote-ref.yaml", exclude=("op:uses*",))
    assert issues == [] and [t.name for t in spec.tools] == ["localOnly"]


def test_the_base_url_comes_from_servers_with_variable_defaults() -> None:
    assert spec_of("petstore-3.0.yaml").transport.url == "http://127.0.0.1:9/v1"


def test_the_base_url_comes_from_scheme_host_and_base_path_in_swagger_2() -> None:
    assert spec_of("petstore-2.0.yaml").transport.url == "http://127.0.0.1:9/api"


def test_a_relative_server_url_needs_base_url_and_says_so() -> None:
    _, issues = compile_fixture("petstore-3.1.json")
    assert len(issues) == 1 and "--base-url" in issues[0].message and "'/v2'" in issues[0].message


def test_a_relative_server_url_is_resolved_against_base_url() -> None:
    assert spec_of("petstore-3.1.json", base_url="https://notes.example").transport.url == "https://notes.example/v2"


def test_base_url_overrides_the_documents_server() -> None:
    assert spec_of("petstore-3.0.yaml", base_url="https://staging.example/v9").transport.url == (
        "https://staging.example/v9"
    )


def test_loading_refuses_a_document_without_a_base_url(tmp_path: Path) -> None:
    try:
        load_spec(FIXTURES / "petstore-3.1.json")
    except SpecError as exc:
        assert "--base-url" in str(exc)
    else:
        raise AssertionError("loaded without a base URL")


def test_every_input_and_output_schema_is_valid_json_schema_2020_12() -> None:
    for name in ("petstore-2.0.yaml", "petstore-3.0.yaml", "petstore-3.1.json", "recursive.yaml", "collisions.yaml"):
        spec, _ = compile_fixture(name, base_url="http://127.0.0.1:9")
        for tool in spec.tools:
            Draft202012Validator.check_schema(input_schema(tool))
            schema = output_schema(tool)
            if schema is not None:
                Draft202012Validator.check_schema(schema)


def test_a_pattern_python_cannot_compile_is_left_out_rather_than_breaking_the_schema() -> None:
    spec = spec_of("petstore-3.1.json", base_url="http://127.0.0.1:9")
    tool = spec.tool("patchNote")
    assert tool is not None
    body = tool.param("body")
    assert body is not None
    assert body.schema["properties"]["bad"] == {"type": "string"}


def test_the_same_document_compiles_to_the_same_tools_every_time() -> None:
    path = FIXTURES / "petstore-3.0.yaml"
    from forge.loading import read_document

    first, _ = compile_document(read_document(path), path=path, options=OpenAPIOptions())
    second, _ = compile_document(read_document(path), path=path, options=OpenAPIOptions())
    assert [(t.name, input_schema(t)) for t in first.tools] == [(t.name, input_schema(t)) for t in second.tools]


def test_shared_definitions_inlined_many_times_over_stay_within_a_size_bound(tmp_path: Path) -> None:
    levels = 7
    schemas: dict[str, object] = {f"L{levels}": {"type": "string", "description": "x" * 200}}
    for level in range(levels - 1, -1, -1):
        child = {"$ref": f"#/components/schemas/L{level + 1}"}
        schemas[f"L{level}"] = {"type": "object", "properties": {f"p{i}": child for i in range(5)}}
    document = {
        "openapi": "3.0.0",
        "info": {"title": "Wide", "version": "1"},
        "servers": [{"url": "https://wide.example"}],
        "paths": {
            "/w": {
                "post": {
                    "operationId": "wide",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
        "components": {"schemas": schemas},
    }
    spec, issues = compile_document(document, path=tmp_path / "wide.json", options=OpenAPIOptions())
    assert issues == []
    body = spec.tools[0].param("body")
    assert body is not None
    text = json.dumps(body.schema)
    assert len(text) < 60_000 and "(abbreviated: #/components/schemas/L" in text
    assert set(body.schema["properties"]) == {f"p{i}" for i in range(5)}
