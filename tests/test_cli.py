"""The `forge` command: exit codes, output, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from forge.cli import main
from tests.test_serve_stdio import acme_spec
from tests.upstream import Reply, running_upstream

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, document: object, name: str = "acme.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_check_exits_zero_for_valid_specs_and_one_with_a_line_per_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, acme_spec("https://api.test"))
    broken = acme_spec("https://api.test")
    broken["tools"][0]["request"]["path"] = "/items/{item}"
    bad = write(tmp_path, broken, "bad.json")
    assert main(["check", str(good)]) == 0
    assert capsys.readouterr().out == f"{good}: ok (3 tools)\n"
    assert main(["check", str(good), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"{bad}: tool get_item: path uses {{item}}, which is not a parameter" in out
    assert (
        f"{bad}: tool get_item: parameter 'id' is not used by the request (not in path, query, headers or body)" in out
    )


def test_check_reports_a_missing_file_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "nope.json")]) == 1
    assert capsys.readouterr().out == f"{tmp_path / 'nope.json'}: cannot read file: No such file or directory\n"


def test_every_example_spec_checks_clean(capsys: pytest.CaptureFixture[str]) -> None:
    if not (ROOT.parent / "shared").is_dir():
        pytest.skip("../shared (Boulevard's GraphQL schema) is absent; test_boulevard_spec covers that case")
    assert main(["check", str(ROOT / "specs")]) == 0, capsys.readouterr().out


def test_list_shows_a_table_with_reads_and_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", str(write(tmp_path, acme_spec("https://api.test")))]) == 0
    out = capsys.readouterr().out
    assert "rename_item   write  PATCH /items/{id}" in out
    assert "get_item      read   GET /items/{id}" in out
    assert "auth: bearer from $ACME_TOKEN" in out


def test_schema_prints_a_valid_json_schema_that_accepts_the_example_specs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for path in sorted((ROOT / "specs").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert list(validator.iter_errors(document)) == [], path


def forge(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "forge", *args],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), **env},
        timeout=60,
        check=False,
    )


def test_call_previews_a_write_then_sends_it_once_with_the_printed_token(tmp_path: Path) -> None:
    env = {"ACME_TOKEN": "canary-cli-secret-99", "FORGE_STATE_DIR": str(tmp_path / "state")}
    with running_upstream() as upstream:
        upstream.reply(lambda r: Reply(body={"done": True}))
        spec = str(write(tmp_path, acme_spec(upstream.url)))
        args = json.dumps({"id": "3", "name": "new"})
        held = forge("call", spec, "rename_item", "--args", args, env=env)
        assert held.returncode == 0, held.stderr
        assert upstream.received == []
        token = held.stdout.split("--confirm ")[1].split()[0]
        sent = forge("call", spec, "rename_item", "--args", args, "--confirm", token, env=env)
        reused = forge("call", spec, "rename_item", "--args", args, "--confirm", token, env=env)
    assert "This has NOT been sent" in held.stdout
    assert sent.returncode == 0 and json.loads(sent.stdout) == {"done": True}
    assert reused.returncode == 1 and "already been used" in reused.stdout
    assert len(upstream.received) == 1
    for run in (held, sent, reused):
        assert "canary-cli-secret-99" not in run.stdout + run.stderr
    state = tmp_path / "state" / "tokens.sqlite"
    assert state.stat().st_mode & 0o777 == 0o600


def test_call_dry_run_shows_the_request_and_sends_nothing(tmp_path: Path) -> None:
    with running_upstream() as upstream:
        spec = str(write(tmp_path, acme_spec(upstream.url)))
        run = forge("call", spec, "get_item", "--args", '{"id": "9"}', "--dry-run", env={"ACME_TOKEN": "tok-12345"})
    assert run.returncode == 0, run.stderr
    assert "DRY RUN: nothing was sent" in run.stdout and f"GET {upstream.url}/items/9" in run.stdout
    assert upstream.received == []


def test_a_malformed_spec_gives_clear_lines_and_no_traceback(tmp_path: Path) -> None:
    spec = write(tmp_path, {"name": "x", "transport": {"kind": "rest"}, "tools": []})
    run = forge("serve", str(spec), env={})
    assert run.returncode == 1
    assert run.stderr.strip() == f"{spec}: transport: 'url' is required"
    assert "Traceback" not in run.stderr


def test_bad_call_arguments_on_the_command_line_are_explained(tmp_path: Path) -> None:
    spec = str(write(tmp_path, acme_spec("https://api.test")))
    run = forge("call", spec, "get_item", "--args", "{not json", env={})
    assert run.returncode == 1
    assert run.stderr.startswith("forge: --args is not valid JSON")
