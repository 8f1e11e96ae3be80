"""pytest --forge-spec with xdist, and with a GraphQL schema file that is not there."""

from __future__ import annotations

import pytest

from tests.plugin.specs import write_specs

ALL_CHECKS = 2 + 4 + 4 + 7 + 5 + 5 + 7  # as in test_collection: every generated check of the two specs


def test_generated_tests_run_under_xdist(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    result = pytester.runpytest_subprocess("--forge-spec", "specs", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=ALL_CHECKS)


def test_a_missing_graphql_schema_file_skips_schema_validation_saying_why(pytester: pytest.Pytester) -> None:
    write_specs(pytester)
    (pytester.path / "specs" / "shop.graphql").unlink()
    result = pytester.runpytest("--forge-spec", "specs", "-rs")
    schema_checks = 2  # one graphql-schema check per GraphQL tool, replaced by one skipped item
    result.assert_outcomes(passed=ALL_CHECKS - schema_checks, skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*GraphQL schema file *shop.graphql* does not exist*"])
