"""How operations map onto tools: arguments, bindings, bodies, auth, writes, annotations, selection."""

from __future__ import annotations

from forge.schema import input_schema
from forge.spec import Auth, RestRequest
from tests.openapi.helpers import compile_fixture, spec_of


def _request(spec_name: str, tool: str, **options: object) -> RestRequest:
    found = spec_of(spec_name, **options).tool(tool)
    assert found is not None and isinstance(found.request, RestRequest)
    return found.request


def test_path_query_header_and_cookie_parameters_become_one_object_with_bindings() -> None:
    tool = spec_of("petstore-3.0.yaml").tool("listPets")
    assert tool is not None and isinstance(tool.request, RestRequest)
    assert [p.name for p in tool.params] == ["limit", "tags", "status", "filter", "X-Request-Id", "session"]
    request = tool.request
    assert [(b.field, b.style, b.explode) for b in request.query] == [
        ("limit", "form", True),
        ("tags", "form", True),
        ("status", "form", False),
        ("filter", "deepObject", True),
    ]
    assert [b.field for b in request.headers] == ["X-Request-Id"]
    assert [b.field for b in request.cookies] == ["session"]


def test_accept_content_type_and_authorization_header_parameters_are_ignored() -> None:
    tool = spec_of("petstore-3.0.yaml").tool("listPets")
    assert tool is not None and tool.param("Accept") is None


def test_location_prefixes_are_added_only_where_two_locations_collide() -> None:
    tool = spec_of("petstore-3.0.yaml").tool("showPetById")
    assert tool is not None
    assert [p.name for p in tool.params] == ["path_petId", "query_petId"]
    assert isinstance(tool.request, RestRequest)
    assert [(b.field, b.param) for b in tool.request.path_params] == [("petId", "path_petId")]
    path_param = tool.param("path_petId")
    assert path_param is not None and path_param.required
    assert path_param.schema["description"] == "The pet's id"


def test_an_argument_named_body_or_confirm_is_renamed_not_lost() -> None:
    spec = spec_of("collisions.yaml")
    read, write = spec.tools[0], spec.tools[1]
    assert [p.name for p in read.params] == ["path_id", "query_id", "body"]
    assert [p.name for p in write.params] == ["id", "query_confirm", "body"]
    assert "confirm" in input_schema(write)["properties"]


def test_openapi_defaults_are_described_but_never_sent() -> None:
    tool = spec_of("petstore-3.0.yaml").tool("listPets")
    assert tool is not None
    assert all(not p.send_default for p in tool.params)


def test_a_json_request_body_is_one_argument_without_read_only_properties() -> None:
    tool = spec_of("petstore-3.0.yaml").tool("createPet")
    assert tool is not None and isinstance(tool.request, RestRequest)
    assert tool.request.body_param == "body" and tool.request.body_encoding == "json"
    body = tool.param("body")
    assert body is not None and body.required
    assert set(body.schema["properties"]) == {"name", "tag", "kind", "owner"}
    assert body.schema["properties"]["tag"] == {"type": ["string", "null"]}
    assert body.schema["properties"]["kind"]["enum"] == ["dog", "cat", None]
    assert body.schema["properties"]["name"]["examples"] == ["Rex"]
    assert body.schema["properties"]["owner"]["properties"]["age"] == {"type": "integer", "exclusiveMinimum": 0}
    assert "xml" not in body.schema


def test_form_and_multipart_bodies_are_rendered_as_forms() -> None:
    assert _request("petstore-3.0.yaml", "createCharge").body_encoding == "form"
    assert _request("petstore-3.0.yaml", "uploadFile").body_encoding == "multipart"


def test_a_body_forge_cannot_send_skips_the_operation_with_the_reason() -> None:
    spec = spec_of("petstore-3.0.yaml")
    assert [(s.operation, s.reason) for s in spec.skipped] == [
        ("POST /raw", "request body only as application/xml, which forge cannot send")
    ]


def test_swagger_2_body_and_form_data_parameters() -> None:
    spec = spec_of("petstore-2.0.yaml")
    add = spec.tool("addPet")
    assert add is not None and isinstance(add.request, RestRequest) and add.request.body_param == "body"
    upload = _request("petstore-2.0.yaml", "uploadPhoto")
    assert upload.body_encoding == "multipart" and [b.field for b in upload.body] == ["caption", "file"]
    rename = _request("petstore-2.0.yaml", "renamePet")
    assert rename.body_encoding == "form" and [b.field for b in rename.body] == ["name"]
    find = _request("petstore-2.0.yaml", "findPets")
    assert [(b.field, b.style, b.explode) for b in find.query] == [
        ("tags", "pipeDelimited", False),
        ("ids", "form", True),
        ("limit", "form", False),
    ]


def test_a_default_that_contradicts_its_own_schema_is_dropped() -> None:
    tool = spec_of("petstore-2.0.yaml").tool("findPets")
    assert tool is not None
    limit = tool.param("limit")
    assert limit is not None and "default" not in limit.schema and limit.schema["maximum"] == 100


def test_security_schemes_map_to_auth_with_predictable_variables() -> None:
    spec = spec_of("petstore-3.0.yaml")
    assert spec.transport.auth == (Auth("bearer", "PETSTORE_TOKEN"),)
    by_name = {t.name: t.auth for t in spec.tools}
    assert by_name["listPets"] is None
    assert by_name["showPetById"] == ()
    assert by_name["createCharge"] == (Auth("query", "PETSTORE_API_KEY_QUERY", name="api_key"),)
    assert by_name["uploadFile"] == (Auth("basic", "PETSTORE_USERNAME", password_env="PETSTORE_PASSWORD"),)
    assert by_name["getSession"] == (Auth("cookie", "PETSTORE_COOKIE_AUTH", name="sid"),)
    assert spec_of("petstore-2.0.yaml").transport.auth == (Auth("header", "PETSTORE_API_KEY", name="X-API-Key"),)


def test_auth_variables_can_be_overridden_per_scheme() -> None:
    spec = spec_of("petstore-3.0.yaml", auth_env={"bearerAuth": "MY_TOKEN", "basicAuth": "ME"})
    assert spec.transport.auth == (Auth("bearer", "MY_TOKEN"),)
    upload = spec.tool("uploadFile")
    assert upload is not None and upload.auth == (Auth("basic", "ME", password_env="ME_PASSWORD"),)


def test_writes_and_annotations_follow_the_method_with_an_override() -> None:
    spec = spec_of("petstore-3.0.yaml")
    tools = {t.name: t for t in spec.tools}
    assert [n for n, t in tools.items() if t.write] == ["createPet", "deletePet", "createCharge"]
    assert not tools["replacePet"].write and not tools["uploadFile"].write
    hints = {n: (t.hints.read_only, t.hints.destructive, t.hints.idempotent) for n, t in tools.items()}
    assert hints["listPets"] == (True, False, True)
    assert hints["createPet"] == (False, True, False)
    assert hints["deletePet"] == (False, True, True)
    assert hints["replacePet"] == (False, False, True)


def test_the_success_response_schema_is_converted_to_json_schema() -> None:
    tool = spec_of("petstore-3.0.yaml").tool("getSession")
    assert tool is not None
    assert tool.response_schema == {
        "type": "object",
        "required": ["id", "user"],
        "properties": {"id": {"type": "integer"}, "user": {"type": ["string", "null"]}},
    }
    listed = spec_of("petstore-3.0.yaml").tool("listPets")
    assert listed is not None and listed.response_schema is not None
    assert "id" in listed.response_schema["items"]["properties"]


def test_swagger_2_response_schemas_and_x_nullable() -> None:
    tool = spec_of("petstore-2.0.yaml").tool("addPet")
    assert tool is not None and tool.response_schema is not None
    assert tool.response_schema["allOf"][0]["properties"]["tag"] == {"type": ["string", "null"]}


def test_selection_by_tag_operation_glob_method_and_path_glob() -> None:
    def names(**options: object) -> list[str]:
        return [t.name for t in spec_of("petstore-3.0.yaml", **options).tools]

    assert names(include=("tag:maps",)) == ["petAt"]
    assert names(include=("op:create*",)) == ["createPet", "createCharge"]
    assert names(include=("create*",)) == ["createPet", "createCharge"]
    assert names(include=("method:delete",)) == ["deletePet"]
    assert names(include=("path:/forms/*",)) == ["createCharge", "uploadFile"]
    assert names(include=("tag:pets",), exclude=("method:GET",)) == ["createPet", "replacePet", "deletePet"]


def test_a_malformed_selector_is_an_issue() -> None:
    _, issues = compile_fixture("petstore-3.0.yaml", include=("flavour:x",))
    assert len(issues) == 1 and "unknown kind 'flavour'" in issues[0].message


def test_selected_names_do_not_depend_on_the_selection() -> None:
    everything = {t.origin: t.name for t in spec_of("collisions.yaml").tools}
    some = spec_of("collisions.yaml", include=("method:POST",)).tools
    assert all(everything[t.origin] == t.name for t in some)
