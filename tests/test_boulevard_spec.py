"""specs/boulevard.json: Boulevard's client booking API as a GraphQL spec.

The schema it is validated against lives in ../shared/data/boulevard/ (beside the project
folder, never copied into it); the tests that need it skip where that folder is absent.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
from graphql import parse

from forge.check import check_spec
from forge.cli import main
from forge.graphql import load_schema, operation_info, schema_problems
from forge.loading import read_document
from forge.spec import GraphQLOperation, Spec, Tool
from forge.specfile import compile_spec, shape_issues

ROOT = Path(__file__).resolve().parents[1]
BOULEVARD = ROOT / "specs" / "boulevard.json"
SHARED = Path(__file__).resolve().parents[2] / "shared"
REFERENCE = SHARED / "data" / "boulevard"
SCHEMA = REFERENCE / "schema.graphql"

needs_shared = pytest.mark.skipif(not SCHEMA.is_file(), reason=f"{SCHEMA} is absent (no ../shared beside the project)")

RAW = read_document(BOULEVARD)
SPEC = compile_spec(RAW, BOULEVARD)
TOOL_NAMES = [tool.name for tool in SPEC.tools]

BOOKING_FLOW = [
    "list_locations",
    "create_cart",
    "list_services",
    "add_cart_item",
    "list_bookable_dates",
    "list_bookable_times",
    "reserve_cart_time",
    "update_cart_client_info",
    "checkout_cart",
]
AFTERWARDS = ["get_appointment", "cancel_appointment", "list_reschedule_dates", "list_reschedule_times"]

# GraphQL variable type (named type, list or not) -> the param type that carries it.
JSON_TYPE = {"Int": "integer", "Float": "number", "Boolean": "boolean"}


def _operation(tool: Tool) -> GraphQLOperation:
    assert isinstance(tool.request, GraphQLOperation)
    return tool.request


def _with_document(spec: Spec, name: str, document: str) -> Spec:
    tools = tuple(
        dataclasses.replace(t, request=dataclasses.replace(_operation(t), document=document)) if t.name == name else t
        for t in spec.tools
    )
    return dataclasses.replace(spec, tools=tools)


def _without_schema(spec: Spec) -> Spec:
    return dataclasses.replace(spec, transport=dataclasses.replace(spec.transport, schema=None))


# ----------------------------------------------------------------- shape


def test_the_boulevard_spec_has_no_problems_apart_from_the_schema() -> None:
    assert shape_issues(RAW, str(BOULEVARD)) == []
    assert check_spec(_without_schema(SPEC)) == []


def test_the_transport_is_boulevards_sandbox_with_the_api_key_as_basic_user_name() -> None:
    transport = RAW["transport"]
    assert transport["kind"] == "graphql"
    assert transport["url"] == "https://sandbox.joinblvd.com/api/2020-01/${BOULEVARD_BUSINESS_ID}/client"
    assert transport["auth"] == {"kind": "basic", "env": "BOULEVARD_API_KEY", "password_env": "BOULEVARD_CLIENT_TOKEN"}


def test_the_schema_path_is_relative_to_the_spec_and_reaches_the_shared_folder() -> None:
    named = RAW["transport"]["schema"]
    assert not Path(named).is_absolute()
    assert SPEC.transport.schema is not None
    assert SPEC.transport.schema.resolve() == SCHEMA.resolve()


def test_the_whole_booking_flow_and_the_appointment_tools_exist() -> None:
    expected = {*BOOKING_FLOW, *AFTERWARDS, "get_cart", "reschedule_appointment", "list_my_appointments"}
    assert expected <= set(TOOL_NAMES)
    assert len(TOOL_NAMES) == len(set(TOOL_NAMES))


def test_each_tool_is_one_named_operation_and_no_operation_is_used_twice() -> None:
    names = []
    for tool in SPEC.tools:
        document = parse(_operation(tool).document)
        assert len(document.definitions) == 1, tool.name
        names.append(_operation(tool).operation_name)
    assert None not in names
    assert len(names) == len(set(names))


def test_every_mutation_is_a_write_and_every_query_is_a_read() -> None:
    for tool in SPEC.tools:
        kind = _operation(tool).operation_type
        assert tool.write == (kind == "mutation"), f"{tool.name} is a {kind} with write={tool.write}"
    assert any(tool.write for tool in SPEC.tools)
    assert any(not tool.write for tool in SPEC.tools)


def test_param_types_agree_with_the_graphql_variable_types() -> None:
    for tool in SPEC.tools:
        info = operation_info(_operation(tool).document)
        assert info is not None
        for variable in info.declared:
            param = tool.param(variable.name)
            assert param is not None, (tool.name, variable.name)
            if variable.type.startswith("["):
                expected = "array"
            elif variable.type.rstrip("!").endswith("Input"):
                expected = "object"
            else:
                expected = JSON_TYPE.get(variable.type.rstrip("!"), "string")
            assert param.type == expected, (tool.name, variable.name, variable.type, param.type)


def test_every_tool_and_param_has_a_description_an_agent_can_act_on() -> None:
    for tool in SPEC.tools:
        assert len(tool.description) >= 60, tool.name
        for param in tool.params:
            assert len(param.description) >= 15, (tool.name, param.name)
            if param.name in ("id", "cartId", "itemId", "bookableTimeId"):
                assert re.search(r"\bfrom [a-z_]+", param.description), (tool.name, param.name)


def test_input_objects_list_their_required_fields_and_where_ids_come_from() -> None:
    for tool in SPEC.tools:
        param = tool.param("input")
        if param is None:
            continue
        assert param.required, tool.name
        assert param.type == "object", tool.name
        assert re.search(r"\b(create_cart|checkout_cart|list_\w+|get_\w+)\b", param.description), tool.name


def test_dates_money_and_time_zones_are_explained() -> None:
    text = RAW["instructions"] + " ".join(t.description + " ".join(p.description for p in t.params) for t in SPEC.tools)
    assert "YYYY-MM-DD" in text
    assert "minor units" in text
    assert "IANA" in text
    assert "E.164" in text


def test_every_snake_case_name_in_the_texts_is_a_tool() -> None:
    texts = [RAW["instructions"]] + [t.description for t in SPEC.tools]
    texts += [p.description for t in SPEC.tools for p in t.params]
    mentioned = {word for text in texts for word in re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text)}
    assert mentioned
    assert mentioned <= set(TOOL_NAMES), mentioned - set(TOOL_NAMES)


def test_the_instructions_say_it_was_never_run_live_and_give_the_booking_order() -> None:
    instructions = RAW["instructions"]
    assert "NOT RUN AGAINST A LIVE TENANT" in instructions.upper()
    positions = [instructions.index(name) for name in BOOKING_FLOW]
    assert positions == sorted(positions)
    positions = [instructions.index(name) for name in ["list_reschedule_dates", "list_reschedule_times"]]
    assert positions == sorted(positions)
    assert instructions.index("list_reschedule_times") < instructions.index("reschedule_appointment")
    for variable in ("BOULEVARD_BUSINESS_ID", "BOULEVARD_API_KEY", "BOULEVARD_CLIENT_TOKEN"):
        assert variable in instructions


# ------------------------------------------------- against the shared schema


@needs_shared
@pytest.mark.parametrize("name", TOOL_NAMES)
def test_every_operation_validates_against_the_shared_schema(name: str) -> None:
    tool = SPEC.tool(name)
    assert tool is not None
    assert schema_problems(load_schema(SCHEMA), _operation(tool).document) == []


@needs_shared
def test_every_operation_is_one_of_the_reference_operations_with_its_variables() -> None:
    reference = {}
    for definition in parse((REFERENCE / "operations.graphql").read_text()).definitions:
        info = operation_info(_print(definition))
        assert info is not None and info.name is not None
        reference[info.name] = (info.kind, info.declared)
    for tool in SPEC.tools:
        info = operation_info(_operation(tool).document)
        assert info is not None and info.name in reference, tool.name
        assert (info.kind, info.declared) == reference[info.name], tool.name
    assert {_operation(t).operation_name for t in SPEC.tools} == set(reference)


def _print(node: object) -> str:
    from graphql import print_ast

    return print_ast(node)  # type: ignore[arg-type]


@needs_shared
def test_forge_check_passes_with_the_schema_the_spec_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(BOULEVARD)]) == 0
    assert main(["check", "--schema", str(SCHEMA), str(BOULEVARD)]) == 0
    assert capsys.readouterr().out == f"{BOULEVARD}: ok ({len(TOOL_NAMES)} tools)\n" * 2


@needs_shared
def test_an_appointment_service_id_selection_is_caught_by_the_schema_not_by_variables() -> None:
    tool = SPEC.tool("get_appointment")
    assert tool is not None
    document = _operation(tool).document.replace("appointmentServices {", "appointmentServices { id", 1)
    assert document != _operation(tool).document
    wrong = _with_document(SPEC, "get_appointment", document)
    assert check_spec(_without_schema(wrong)) == []
    problems = [str(issue) for issue in check_spec(wrong)]
    assert problems == [
        f"{BOULEVARD}: tool get_appointment: query does not validate against the schema: "
        "Cannot query field 'id' on type 'AppointmentService'. (line 5)"
    ]


@needs_shared
def test_checkout_appointments_selected_as_full_appointments_are_caught_by_the_schema() -> None:
    tool = SPEC.tool("checkout_cart")
    assert tool is not None
    original = _operation(tool).document
    document = original.replace(
        "appointments { appointmentId clientId forCartOwner }", "appointments { id startAt endAt }"
    )
    assert document != original
    wrong = _with_document(SPEC, "checkout_cart", document)
    assert check_spec(_without_schema(wrong)) == []
    messages = [issue.message for issue in check_spec(wrong)]
    assert [m.split(": ", 1)[1].rsplit(" (line", 1)[0] for m in messages] == [
        f"Cannot query field '{field}' on type 'CartAppointment'." for field in ("id", "startAt", "endAt")
    ]
    assert all(issue.tool == "checkout_cart" for issue in check_spec(wrong))


# ------------------------------------------------ without ../shared beside it


def test_forge_check_is_strict_and_clear_where_the_shared_schema_is_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    (project / "specs").mkdir(parents=True)
    shutil.copy(BOULEVARD, project / "specs" / "boulevard.json")
    monkeypatch.chdir(project)
    assert main(["check", "specs/boulevard.json"]) == 1
    assert capsys.readouterr().out == (
        "specs/boulevard.json: transport.schema: GraphQL schema file "
        "'specs/../../shared/data/boulevard/schema.graphql' does not exist (the path is relative to the spec "
        "file); pass --schema PATH to validate against a copy elsewhere\n"
    )


@needs_shared
def test_a_copy_of_the_schema_elsewhere_can_stand_in_with_the_schema_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "specs").mkdir()
    shutil.copy(BOULEVARD, tmp_path / "specs" / "boulevard.json")
    shutil.copy(SCHEMA, tmp_path / "boulevard.graphql")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--schema", "boulevard.graphql", "specs/boulevard.json"]) == 0
    assert capsys.readouterr().out == f"specs/boulevard.json: ok ({len(TOOL_NAMES)} tools)\n"
