"""Namespaced tool names stay within the configured length, readable and unique."""

from __future__ import annotations

from forge.engine import namespaced_name, shorten_name


def test_a_name_that_fits_is_left_alone() -> None:
    assert namespaced_name("acme", "list_items", 64) == "acme_list_items"
    assert namespaced_name("acme", "list_items") == "acme_list_items"


def test_a_long_spec_name_is_cut_and_hashed_while_the_tool_name_stays_whole() -> None:
    spec = "inventory_service_for_the_northern_warehouses_and_their_suppliers"
    tools = ("get_item", "create_item", "delete_item")
    names = [namespaced_name(spec, tool, 48, longest_tool=11) for tool in tools]
    assert all(len(n) <= 48 for n in names) and len(set(names)) == 3
    assert all(n.endswith("_" + tool) for n, tool in zip(names, tools, strict=True))
    prefixes = {n[: -len(tool) - 1] for n, tool in zip(names, tools, strict=True)}
    assert len(prefixes) == 1 and next(iter(prefixes)).startswith("inventory_service")


def test_two_specs_sharing_a_long_prefix_still_get_distinct_names() -> None:
    first = namespaced_name("warehouse_inventory_service_north_region", "get_item", 32)
    second = namespaced_name("warehouse_inventory_service_south_region", "get_item", 32)
    assert first != second and len(first) <= 32 and len(second) <= 32


def test_a_tool_name_too_long_for_any_prefix_is_cut_with_a_hash() -> None:
    long_tool = "x" * 70
    name = namespaced_name("acme", long_tool, 64)
    assert len(name) == 64 and name == shorten_name(f"acme_{long_tool}", 64)
    assert shorten_name(f"acme_{long_tool}", 64) != shorten_name(f"acme_{long_tool}y", 64)
