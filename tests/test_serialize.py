from __future__ import annotations

import pytest

from forge.serialize import flatten_form, scalar_text, serialize_path, serialize_query


@pytest.mark.parametrize(("value", "text"), [(True, "true"), (False, "false"), (3.0, "3"), (2.5, "2.5"), ("x", "x")])
def test_scalars_render_the_way_apis_expect(value: object, text: str) -> None:
    assert scalar_text(value) == text


@pytest.mark.parametrize(
    ("style", "explode", "value", "expected"),
    [
        ("form", True, [3, 4], [("id", "3"), ("id", "4")]),
        ("form", False, [3, 4], [("id", "3,4")]),
        ("spaceDelimited", False, [3, 4], [("id", "3 4")]),
        ("pipeDelimited", False, [3, 4], [("id", "3|4")]),
        ("form", True, {"role": "admin", "n": 5}, [("role", "admin"), ("n", "5")]),
        ("form", False, {"role": "admin", "n": 5}, [("id", "role,admin,n,5")]),
        ("deepObject", True, {"role": "admin"}, [("id[role]", "admin")]),
    ],
)
def test_query_serialization_follows_openapi_styles(
    style: str, explode: bool, value: object, expected: list[tuple[str, str]]
) -> None:
    assert serialize_query("id", value, style, explode) == expected


@pytest.mark.parametrize(
    ("style", "explode", "value", "expected"),
    [
        ("simple", False, [3, 4], "3,4"),
        ("simple", False, {"a": 1, "b": 2}, "a,1,b,2"),
        ("simple", True, {"a": 1, "b": 2}, "a=1,b=2"),
        ("label", False, [3, 4], ".3,4"),
        ("label", True, [3, 4], ".3.4"),
        ("matrix", False, 5, ";id=5"),
        ("matrix", True, [3, 4], ";id=3;id=4"),
        ("simple", False, "a/b", "a%2Fb"),
    ],
)
def test_path_serialization_follows_openapi_styles(style: str, explode: bool, value: object, expected: str) -> None:
    assert serialize_path("id", value, style, explode) == expected


def test_forms_use_bracket_notation_for_nested_values() -> None:
    assert flatten_form({"items": [{"price": "p_1", "qty": 2}], "meta": {"a": None, "b": True}}) == [
        ("items[0][price]", "p_1"),
        ("items[0][qty]", "2"),
        ("meta[b]", "true"),
    ]


def test_deep_object_forms_index_arrays_of_scalars() -> None:
    assert flatten_form({"expand": ["customer", "invoice"]}, indexed_arrays=True) == [
        ("expand[0]", "customer"),
        ("expand[1]", "invoice"),
    ]
