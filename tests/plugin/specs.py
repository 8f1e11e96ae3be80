"""Spec documents for the plugin's tests: a good one of each kind, broken one way at a time."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

SDL = """
type Item { id: ID!, name: String! }
type Query { item(id: ID!): Item }
type Mutation { renameItem(id: ID!, name: String!): Item }
"""


def rest_spec() -> dict[str, Any]:
    return {
        "name": "acme",
        "transport": {
            "kind": "rest",
            "url": "https://api.acme.test/v1",
            "auth": {"kind": "bearer", "env": "ACME_TOKEN"},
        },
        "tools": [
            {
                "name": "get_item",
                "description": "Get one item.",
                "params": [{"name": "item_id", "type": "integer", "required": True}],
                "request": {"method": "GET", "path": "/items/{item_id}"},
            },
            {
                "name": "cancel_item",
                "description": "Cancel an item.",
                "params": [
                    {"name": "item_id", "type": "integer", "required": True},
                    {"name": "reason", "type": "string", "enum": ["late", "duplicate"]},
                    {"name": "notify", "type": "boolean", "default": True},
                ],
                "request": {
                    "method": "POST",
                    "path": "/items/{item_id}/cancel",
                    "body": {"reason": "reason", "notify": "notify"},
                },
                "write": True,
            },
        ],
    }


def graphql_spec() -> dict[str, Any]:
    return {
        "name": "shop",
        "transport": {"kind": "graphql", "url": "https://shop.test/graphql", "schema": "shop.graphql"},
        "tools": [
            {
                "name": "get_item",
                "description": "Get one item.",
                "params": [{"name": "id", "type": "string", "required": True}],
                "query": "query GetItem($id: ID!) { item(id: $id) { id name } }",
                "variables": ["id"],
            },
            {
                "name": "rename_item",
                "description": "Rename an item.",
                "params": [
                    {"name": "id", "type": "string", "required": True},
                    {"name": "name", "type": "string", "required": True},
                ],
                "query": "mutation Rename($id: ID!, $name: String!) { renameItem(id: $id, name: $name) { id } }",
                "variables": ["id", "name"],
                "write": True,
            },
        ],
    }


def write_specs(
    pytester: pytest.Pytester, rest: dict[str, Any] | None = None, graphql: dict[str, Any] | None = None
) -> None:
    specs = pytester.mkdir("specs")
    (specs / "acme.json").write_text(json.dumps(rest or rest_spec()), encoding="utf-8")
    (specs / "shop.json").write_text(json.dumps(graphql or graphql_spec()), encoding="utf-8")
    (specs / "shop.graphql").write_text(SDL, encoding="utf-8")


def broken(spec: dict[str, Any], tool: int, **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(spec)
    out["tools"][tool].update(changes)
    return out
