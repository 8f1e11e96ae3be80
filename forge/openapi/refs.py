"""Local `$ref` resolution: JSON pointers into the document, memoized, never fetched.

Only same-document references (`#/...`) are followed. A reference to another file or URL
is refused (`RefError`), so reading a document never touches the disk or the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

__all__ = ["RefError", "Resolver"]


class RefError(Exception):
    """A `$ref` that cannot be followed: remote/file, missing target, or a cycle of refs."""

    def __init__(self, ref: str, reason: str) -> None:
        self.ref = ref
        self.reason = reason
        super().__init__(f"$ref {ref!r}: {reason}")

    @property
    def remote(self) -> bool:
        return not self.ref.startswith("#")


class Resolver:
    """Follows local references in one document; each pointer is looked up once."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self._cache: dict[str, Any] = {}

    def lookup(self, ref: str) -> Any:
        """The value `ref` points at (one step; the value may itself be a `$ref`)."""
        if ref in self._cache:
            return self._cache[ref]
        if not ref.startswith("#"):
            raise RefError(
                ref,
                "refers to another file or URL, which forge never fetches; "
                "bundle the document into one file first (e.g. `redocly bundle`)",
            )
        node: Any = self.document
        pointer = ref[1:]
        if pointer and not pointer.startswith("/"):
            raise RefError(ref, "is not a JSON pointer (only '#/...' references are supported)")
        for raw in pointer.split("/")[1:] if pointer else ():
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise RefError(ref, "points at nothing in the document")
        self._cache[ref] = node
        return node

    def deref(self, node: Any) -> Any:
        """Follow `$ref` chains (parameters, bodies, responses, path items) to a value."""
        seen: list[str] = []
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen:
                raise RefError(ref, "is part of a cycle of references: " + " -> ".join([*seen, ref]))
            seen.append(ref)
            node = self.lookup(ref)
        return node
