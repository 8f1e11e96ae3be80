"""--forge-drift against a real API on 127.0.0.1 that serves its own OpenAPI document and can drift."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.plugin.petstore import Petstore, running_petstore


@pytest.fixture
def petstore() -> Iterator[Petstore]:
    with running_petstore() as state:
        yield state


def _drift(pytester: pytest.Pytester, petstore: Petstore, *extra: str) -> pytest.RunResult:
    pytester.mkdir("api")
    document = httpx.get(f"{petstore.url}/openapi.json").text
    (pytester.path / "api" / "petstore.json").write_text(document, encoding="utf-8")
    return pytester.runpytest(
        "--forge-spec",
        "api",
        "--forge-drift",
        "--forge-base-url",
        f"petstore={petstore.url}",
        "--forge-drift-examples",
        "5",
        "-k",
        "drift",
        "-rs",
        "-v",
        *extra,
    )


def test_an_api_that_matches_its_document_passes_drift_and_writes_are_skipped(
    pytester: pytest.Pytester, petstore: Petstore
) -> None:
    result = _drift(pytester, petstore)
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["*POST /pets is a write: drift runs writes only with --forge-drift-writes*"])
    assert not any(r.startswith("POST") for r in petstore.requests)


def test_an_undocumented_status_is_caught_on_exactly_that_operation(
    pytester: pytest.Pytester, petstore: Petstore
) -> None:
    petstore.drift.add("status")
    result = _drift(pytester, petstore)
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["*ist*ets::drift FAILED*", "*drift in GET /pets at http://127.0.0.1:*", "*Undocumented status code*", "*418*"]
    )


def test_a_dropped_required_field_is_caught_on_exactly_that_operation(
    pytester: pytest.Pytester, petstore: Petstore
) -> None:
    petstore.drift.add("field")
    result = _drift(pytester, petstore)
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["*et*et::drift FAILED*", "*drift in GET /pets/{petId}*", '*"name" is a required property*']
    )


def test_drift_without_a_base_url_is_skipped_with_the_option_to_pass(
    pytester: pytest.Pytester, petstore: Petstore
) -> None:
    pytester.mkdir("api")
    (pytester.path / "api" / "petstore.json").write_text(
        httpx.get(f"{petstore.url}/openapi.json").text, encoding="utf-8"
    )
    result = pytester.runpytest("--forge-spec", "api", "--forge-drift", "-k", "drift", "-rs")
    result.assert_outcomes(skipped=3)
    result.stdout.fnmatch_lines(["*--forge-drift needs a base URL: --forge-base-url petstore=URL*"])


def test_a_recorded_response_that_drifts_from_the_document_fails_replay_offline(
    pytester: pytest.Pytester, petstore: Petstore
) -> None:
    pytester.mkdir("specs")
    (pytester.path / "specs" / "petstore.json").write_text(
        httpx.get(f"{petstore.url}/openapi.json").text, encoding="utf-8"
    )
    curated = {
        "name": "pets",
        "openapi": "petstore.json",
        "tools": [{"operation": "getPet", "examples": [{"petId": 1}]}],
    }
    (pytester.path / "specs" / "pets.json").write_text(json.dumps(curated), encoding="utf-8")
    record = [
        "--forge-spec",
        "specs/pets.json",
        "--record",
        "--forge-base-url",
        f"pets={petstore.url}",
        "-k",
        "example",
    ]
    pytester.runpytest(*record).assert_outcomes(passed=1)
    pytester.runpytest("--forge-spec", "specs/pets.json", "-k", "example").assert_outcomes(passed=1)

    petstore.drift.add("field")
    pytester.runpytest(*record).assert_outcomes(passed=1)
    result = pytester.runpytest("--forge-spec", "specs/pets.json", "-k", "example")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the response recorded in *getPet/1.yaml does not conform to *petstore.json (GET /pets/{petId})*",
            '*"name" is a required property*',
        ]
    )
