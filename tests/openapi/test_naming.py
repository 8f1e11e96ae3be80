"""Tool names: legal, unique, stable, shortened readably."""

from __future__ import annotations

import copy
import re

from forge.loading import read_document
from forge.openapi import OpenAPIOptions, compile_document
from forge.openapi.naming import Namer, base_name
from tests.openapi.helpers import FIXTURES, spec_of

LEGAL = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_an_operation_id_is_sanitised_into_a_legal_name() -> None:
    assert base_name("repos/get-content", "GET", "/x") == "repos_get-content"
    assert base_name("get item", "GET", "/x") == "get_item"


def test_an_operation_without_an_id_is_named_method_path_slug() -> None:
    assert base_name(None, "GET", "/things/{thingId}/parts") == "get_things_thingId_parts"


def test_colliding_names_never_overwrite_a_tool() -> None:
    spec = spec_of("collisions.yaml")
    names = [t.name for t in spec.tools]
    assert len(names) == len(set(names)) == 6
    assert names[0] == "getItem" and names[1].startswith("getItem_")
    assert "get_item" in names and any(n.startswith("get_item_") for n in names)
    assert all(LEGAL.match(n) for n in names)


def test_over_long_names_are_shortened_readably_with_a_short_hash() -> None:
    spec = spec_of("long-names.json")
    names = [t.name for t in spec.tools]
    assert all(len(n) <= 64 and LEGAL.match(n) for n in names)
    assert len(set(names)) == 4
    assert all(n.startswith("reposListOrganizationRepositories") for n in names[:3])
    assert all(re.search(r"_[0-9a-f]{6}$", n) for n in names)


def test_the_maximum_name_length_is_configurable() -> None:
    spec = spec_of("long-names.json", max_name_length=30)
    assert all(len(t.name) <= 30 for t in spec.tools) and len({t.name for t in spec.tools}) == 4


def test_an_operation_keeps_its_name_when_unrelated_operations_are_added() -> None:
    path = FIXTURES / "collisions.yaml"
    document = read_document(path)
    before = {t.origin: t.name for t in compile_document(document, path=path, options=OpenAPIOptions())[0].tools}
    grown = copy.deepcopy(document)
    grown["paths"] = {"/aaa": {"get": {"operationId": "zzz", "responses": {}}}, **grown["paths"]}
    grown["paths"]["/zzz"] = {"post": {"responses": {}}}
    after = {t.origin: t.name for t in compile_document(grown, path=path, options=OpenAPIOptions())[0].tools}
    assert all(after[origin] == name for origin, name in before.items())


def test_a_suffixed_name_depends_on_the_operation_not_on_its_position() -> None:
    one, two = Namer(), Namer()
    one.name("x", "GET", "/a")
    first = one.name("x", "POST", "/b")
    two.name("x", "PUT", "/c")
    assert two.name("x", "POST", "/b") == first
