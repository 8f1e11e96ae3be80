"""Curating: a forge spec that names an OpenAPI document, and `forge import` writing one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from forge.cli import main
from forge.loading import inspect_spec, load_spec
from forge.spec import RestRequest
from tests.openapi.helpers import FIXTURES


def _write(tmp_path: Path, spec: dict[str, Any]) -> Path:
    shutil.copy(FIXTURES / "petstore-3.0.yaml", tmp_path / "api.yaml")
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(spec))
    return path


def test_a_curated_spec_serves_the_listed_operations_with_overrides(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "name": "pets",
            "openapi": "api.yaml",
            "tools": [
                {"operation": "listPets", "name": "pets_list", "params": {"limit": "At most this many."}},
                {"operation": "delete /pets/{petId}", "description": "Remove a pet for good.", "write": True},
                {"operation": "replacePet", "write": True, "examples": [{"petId": "1"}]},
            ],
        },
    )
    spec = load_spec(path)
    assert [t.name for t in spec.tools] == ["pets_list", "deletePet", "replacePet"]
    assert spec.openapi == tmp_path / "api.yaml" and spec.path == path
    listed, deleted, replaced = spec.tools
    limit = listed.param("limit")
    assert limit is not None and limit.schema["description"] == "At most this many."
    assert deleted.description == "Remove a pet for good." and deleted.write
    assert replaced.write and replaced.hints.destructive and replaced.examples == ({"petId": "1"},)
    assert spec.transport.url == "http://127.0.0.1:9/v1"
    assert [a.env for a in spec.transport.auth] == ["PETS_TOKEN"]


def test_a_curated_transport_overrides_the_documents_url_and_auth(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "name": "pets",
            "openapi": "api.yaml",
            "transport": {
                "kind": "rest",
                "url": "https://pets.example/v1",
                "auth": {"kind": "bearer", "env": "PETS_KEY"},
            },
            "tools": [{"operation": "listPets"}, {"operation": "createCharge"}],
        },
    )
    spec = load_spec(path)
    assert spec.transport.url == "https://pets.example/v1"
    assert [a.env for a in spec.transport.auth] == ["PETS_KEY"]
    assert all(t.auth is None for t in spec.tools)


def test_an_operation_missing_from_the_document_is_an_issue_naming_the_file_and_tool(tmp_path: Path) -> None:
    path = _write(tmp_path, {"name": "pets", "openapi": "api.yaml", "tools": [{"operation": "listPet"}]})
    _, issues = inspect_spec(path)
    assert len(issues) == 1
    issue = issues[0]
    assert issue.file == str(path) and issue.tool == "listPet"
    assert "'listPet' is not in" in issue.message and "did you mean 'listPets'?" in issue.message


def test_an_unknown_parameter_override_is_an_issue_with_a_hint(tmp_path: Path) -> None:
    path = _write(
        tmp_path, {"name": "pets", "openapi": "api.yaml", "tools": [{"operation": "listPets", "params": {"limt": "x"}}]}
    )
    _, issues = inspect_spec(path)
    assert [i.message for i in issues] == ["params: 'limt' is not a parameter of this operation; did you mean 'limit'?"]


def test_a_skipped_operation_listed_in_a_curated_spec_is_an_issue(tmp_path: Path) -> None:
    path = _write(tmp_path, {"name": "pets", "openapi": "api.yaml", "tools": [{"operation": "postRaw"}]})
    _, issues = inspect_spec(path)
    assert len(issues) == 1 and "application/xml" in issues[0].message


def test_forge_import_writes_a_curated_spec_that_checks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(FIXTURES / "petstore-3.0.yaml", tmp_path / "api.yaml")
    out = tmp_path / "specs" / "pets.json"
    out.parent.mkdir()
    assert main(["import", str(tmp_path / "api.yaml"), "-o", str(out), "--include", "tag:pets"]) == 0
    written = json.loads(out.read_text())
    assert written["openapi"] == "../api.yaml" and written["name"] == "petstore"
    assert [t["operation"] for t in written["tools"]] == [
        "listPets",
        "createPet",
        "showPetById",
        "replacePet",
        "deletePet",
    ]
    spec, issues = inspect_spec(out)
    assert issues == [] and spec is not None and len(spec.tools) == 5
    assert isinstance(spec.tools[0].request, RestRequest)
    assert "5 operations" in capsys.readouterr().out


def test_forge_import_names_operations_without_an_id_by_method_and_path(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    assert main(["import", str(FIXTURES / "collisions.yaml"), "-o", str(out), "--include", "path:/things/*"]) == 0
    written = json.loads(out.read_text())
    assert written["tools"] == [
        {"operation": "GET /things/{thingId}/parts", "name": "get_things_thingId_parts"},
        {"operation": "DELETE /things/{thingId}/parts", "name": "delete_things_thingId_parts"},
    ]


def test_a_curated_spec_carries_its_serving_settings(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "name": "pets",
            "openapi": "api.yaml",
            "confirm": "elicit",
            "credential_passthrough": {"X-Pets-Token": "PETS_TOKEN"},
            "tools": [{"operation": "listPets"}],
        },
    )
    spec = load_spec(path)
    assert spec.confirm == "elicit"
    assert spec.credential_passthrough == (("X-Pets-Token", "PETS_TOKEN"),)
