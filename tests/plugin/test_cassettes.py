"""--record, offline replay and `forge call --replay` against a real HTTP API on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from forge.cli import main
from pytest_forge.cassettes import CredentialInCassette, GuardedPersister
from tests.plugin.petstore import Petstore, pets_spec, running_petstore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def petstore(monkeypatch: pytest.MonkeyPatch) -> Iterator[Petstore]:
    with running_petstore() as state:
        monkeypatch.setenv("PETSTORE_TOKEN", state.token)
        yield state


def _write_pets_spec(pytester: pytest.Pytester) -> None:
    # The spec names an unreachable host: recording goes to --forge-base-url, replay needs no host.
    pytester.mkdir("specs")
    (pytester.path / "specs" / "pets.json").write_text(json.dumps(pets_spec("http://pets.invalid")), encoding="utf-8")


def _record(pytester: pytest.Pytester, petstore: Petstore, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--forge-spec",
        "specs",
        "--record",
        "--forge-base-url",
        f"pets=http://127.0.0.1:{petstore.url.rsplit(':', 1)[1]}",
        "-k",
        "example",
        "-rs",
        *extra,
    )


def test_record_writes_scrubbed_cassettes_that_replay_offline(pytester: pytest.Pytester, petstore: Petstore) -> None:
    _write_pets_spec(pytester)
    result = _record(pytester, petstore)
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*recording pets/get_pet/1: GET http://127.0.0.1:*/pets/1*",
            "*create_pet is a write: recorded only with --record-writes*",
        ]
    )
    assert not any(r.startswith("POST") for r in petstore.requests)

    cassettes = sorted((pytester.path / "cassettes" / "pets").rglob("*.yaml"))
    assert [p.relative_to(pytester.path).as_posix() for p in cassettes] == [
        "cassettes/pets/get_pet/1.yaml",
        "cassettes/pets/list_pets/1.yaml",
        "cassettes/pets/whoami/1.yaml",
    ]
    for path in cassettes:
        text = path.read_text(encoding="utf-8")
        assert petstore.token not in text and "authorization" not in text.lower()
    whoami = yaml.safe_load((pytester.path / "cassettes/pets/whoami/1.yaml").read_text(encoding="utf-8"))
    assert json.loads(whoami["interactions"][0]["response"]["body"]["string"]) == {"token": "[REDACTED]"}
    assert whoami["metadata"]["host"] == petstore.url and whoami["metadata"]["recorded_at"]

    result = _record(pytester, petstore, "--record-writes")
    result.assert_outcomes(passed=4)
    assert [r for r in petstore.requests if r.startswith("POST")] == ["POST /pets"]  # preview sent nothing

    petstore.received.clear()
    result = pytester.runpytest("--forge-spec", "specs", "-k", "example")
    result.assert_outcomes(passed=4)
    assert petstore.requests == []


def test_a_changed_recorded_body_fails_replay_field_by_field(pytester: pytest.Pytester, petstore: Petstore) -> None:
    _write_pets_spec(pytester)
    _record(pytester, petstore, "--record-writes").assert_outcomes(passed=4)
    path = pytester.path / "cassettes/pets/create_pet/1.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('{"name": "tom"}', '{"name": "jerry"}'), encoding="utf-8")
    result = pytester.runpytest("--forge-spec", "specs", "-k", "example")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the request create_pet renders today differs from the one recorded in *create_pet/1.yaml:",
            '*body field \'name\': recorded "jerry", rendered "tom"',
            "*re-record it if the change is intended: pytest --forge-spec specs/pets.json --record --record-writes*",
        ]
    )


def test_examples_without_cassettes_are_skipped_with_the_recording_command(pytester: pytest.Pytester) -> None:
    _write_pets_spec(pytester)
    result = pytester.runpytest("--forge-spec", "specs", "-k", "get_pet and example", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*no cassette at *cassettes/pets/get_pet/1.yaml; record it with: pytest --forge-spec specs/pets.json --record --forge-base-url pets=URL -k 'get_pet and example-1'"
        ]
    )


def test_a_cassette_still_holding_a_credential_is_not_written(tmp_path: Path) -> None:
    from vcr.request import Request
    from vcr.serializers import yamlserializer

    secret = "s3cret-value-1234"
    persister = GuardedPersister(frozenset({secret}), {"host": "http://127.0.0.1"})
    request = Request("POST", "http://127.0.0.1/login", f'{{"password": "{secret}"}}', {})
    response = {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}}
    with pytest.raises(CredentialInCassette):
        persister.save_cassette(
            str(tmp_path / "c.yaml"), {"requests": [request], "responses": [response]}, yamlserializer
        )
    assert not (tmp_path / "c.yaml").exists()


def test_forge_call_replay_answers_from_the_postgrest_cassettes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("POSTGREST_TOKEN", "not-a-real-token")
    spec, cassettes = str(ROOT / "specs/postgrest_todos.json"), str(ROOT / "cassettes/postgrest_todos")
    assert main(["call", spec, "list_todos", "--args", '{"limit": 5}', "--replay", cassettes]) == 0
    assert '"title": "buy milk"' in capsys.readouterr().out

    assert main(["call", spec, "list_todos", "--args", '{"limit": 7}', "--replay", cassettes]) == 1
    out = capsys.readouterr().out
    assert "no recorded request matches GET /todos; nothing was sent" in out
    assert "Nearest recorded request: GET /todos?limit=5&order=id.asc" in out and "query: recorded" in out


def test_forge_call_replay_holds_and_confirms_a_recorded_write(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("POSTGREST_TOKEN", "not-a-real-token")
    common = ["--replay", str(ROOT / "cassettes/postgrest_todos"), "--token-store", f"sqlite:{tmp_path / 't.sqlite'}"]
    args = [
        "call",
        str(ROOT / "specs/postgrest_todos.json"),
        "create_todo",
        "--args",
        '{"title": "record the forge cassettes"}',
    ]
    assert main(args + common) == 0
    token = capsys.readouterr().out.split("--confirm ")[1].split()[0]
    assert main(args + common + ["--confirm", token]) == 0
    assert '"id": 3' in capsys.readouterr().out
