"""pytest --forge-spec end to end (pytester): collection, ids, and each generated check's verdict."""

from __future__ import annotations

import pytest

from tests.plugin.specs import broken, graphql_spec, rest_spec, write_specs


def test_each_tool_gets_one_test_per_check_with_readable_ids(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    result = pytester.runpytest("--forge-spec", "specs", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "specs/acme.json::load",
            "specs/acme.json::get_item::path-placeholders",
            "specs/acme.json::get_item::mappings",
            "specs/acme.json::get_item::params",
            "specs/acme.json::get_item::input-schema",
            "specs/acme.json::cancel_item::gate-first-call-sends-nothing",
            "specs/acme.json::cancel_item::gate-single-use",
            "specs/acme.json::cancel_item::gate-confirm-sends-preview",
            "specs/shop.json::get_item::graphql-variables",
            "specs/shop.json::get_item::graphql-schema",
        ],
        consecutive=False,
    )
    assert "shop.graphql" not in result.stdout.str()


def test_good_specs_pass_every_generated_check(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    result = pytester.runpytest("--forge-spec", "specs")
    result.assert_outcomes(passed=2 + 4 + 4 + 7 + 5 + 5 + 7)


def test_a_spec_that_fails_to_load_is_one_failing_test_with_the_loaders_message(pytester: pytest.Pytester) -> None:
    pytester.mkdir("specs")
    (pytester.path / "specs" / "bad.json").write_text('{"name": "bad",\n "tools": [}', encoding="utf-8")
    result = pytester.runpytest("--forge-spec", "specs/bad.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*specs/bad.json::load*", "*not valid JSON at line 2*"])


def test_removing_a_placeholders_param_fails_only_path_placeholders(pytester: pytest.Pytester) -> None:
    spec = broken(rest_spec(), 0, params=[])
    write_specs(pytester, rest=spec)
    result = pytester.runpytest("--forge-spec", "specs", "-rf")
    result.assert_outcomes(failed=1, passed=2 + 3 + 4 + 7 + 5 + 5 + 7)
    result.stdout.fnmatch_lines(
        [
            "*specs/acme.json: tool get_item: path uses {item_id}, which is not a parameter*",
            "FAILED specs/acme.json::get_item::path-placeholders*",
        ]
    )


def test_renaming_a_graphql_variable_fails_graphql_variables(pytester: pytest.Pytester) -> None:
    spec = broken(graphql_spec(), 0, query="query GetItem($itemId: ID!) { item(id: $itemId) { id name } }")
    write_specs(pytester, graphql=spec)
    result = pytester.runpytest("--forge-spec", "specs", "-rf")
    result.assert_outcomes(failed=1, passed=2 + 4 + 4 + 7 + 4 + 5 + 7)
    result.stdout.fnmatch_lines(
        [
            "*variables lists 'id', which the query does not declare*",
            "FAILED specs/shop.json::get_item::graphql-variables*",
        ]
    )


# pytester runs in this process: the patch is undone when the inner session ends.
BROKEN_GATE = """
import forge.engine

original = forge.engine.Engine.call

async def call(self, name, arguments, env=None):
    arguments = {k: v for k, v in (arguments or {}).items() if k != "confirm"}
    return await self.send(self.prepare(name, arguments, env))

def pytest_sessionstart(session):
    forge.engine.Engine.call = call

def pytest_sessionfinish(session):
    forge.engine.Engine.call = original
"""


def test_a_gate_that_sends_on_the_first_call_fails_the_gate_checks(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    pytester.makeconftest(BROKEN_GATE)
    result = pytester.runpytest("--forge-spec", "specs/acme.json", "-k", "gate", "-rf")
    result.stdout.fnmatch_lines(
        [
            "*specs/acme.json::cancel_item::gate-first-call-sends-nothing*",
            "*write tool 'cancel_item' sent 1 request(s) on its first call (POST https://api.acme.test/v1/items/1/cancel)*",
        ]
    )
    # every check that needs a held first call fails; only the redaction check has nothing to see
    result.assert_outcomes(failed=6, passed=1)


def test_a_preview_showing_a_credential_fails_gate_preview_redacted(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    pytester.makeconftest(
        """
import forge.results

original = forge.results.describe_request

def pytest_sessionstart(session):
    forge.results.describe_request = lambda request: original(request) + str(request.headers)

def pytest_sessionfinish(session):
    forge.results.describe_request = original
"""
    )
    result = pytester.runpytest("--forge-spec", "specs/acme.json", "-k", "gate-preview-redacted")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the preview of 'cancel_item' shows a credential value*"])


def test_spec_tests_combine_with_the_users_tests_and_k(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    pytester.makepyfile(test_mine="def test_mine():\n    assert True\n")
    result = pytester.runpytest("--forge-spec", "specs", "-k", "gate-single-use or test_mine", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*test_mine.py::test_mine PASSED*"])


def test_x_stops_at_the_first_failing_spec_test(pytester: pytest.Pytester) -> None:
    write_specs(pytester, rest=broken(rest_spec(), 0, params=[]))
    result = pytester.runpytest("--forge-spec", "specs", "-x")
    result.assert_outcomes(failed=1, passed=1)


def test_specs_can_be_named_in_the_project_configuration(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    pytester.makeini("[pytest]\nforge_specs = specs/acme.json\n")
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["specs/acme.json::cancel_item::gate-expiry"])
    assert "shop.json" not in result.stdout.str()


def test_a_bad_base_url_option_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    result = pytester.runpytest("--forge-spec", "specs", "--forge-base-url", "acme")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--forge-base-url wants NAME=URL*"])
