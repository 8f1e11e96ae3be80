"""Tool and argument names: legal, deterministic, stable, unique.

Rules (docs/openapi.md):
- a tool is named after its operationId with every character outside `[a-zA-Z0-9_-]`
  replaced by `_`; without an operationId, `method_path_slug` (`get_pets_petId`);
- a name longer than the maximum keeps its beginning and ends in `_` plus 6 hex digits
  of a hash of the full name, so it stays readable and unique;
- when two operations would share a name, the first (in document order) keeps it and the
  others get `_` plus a hash of their `METHOD /path`: names depend only on the operation
  itself, so adding an unrelated operation never renames another.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["Namer", "argument_name", "base_name", "shorten"]

_ILLEGAL = re.compile(r"[^a-zA-Z0-9_-]+")
_ARG_ILLEGAL = re.compile(r"[^a-zA-Z0-9_.-]+")
MIN_LENGTH = 12


def _digest(text: str, size: int = 6) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:size]


def _clean(text: str, pattern: re.Pattern[str] = _ILLEGAL) -> str:
    return re.sub(r"_{2,}", "_", pattern.sub("_", text)).strip("_")


def base_name(operation_id: str | None, method: str, path: str) -> str:
    """The name before shortening and de-duplication."""
    if operation_id:
        cleaned = _clean(operation_id)
        if cleaned:
            return cleaned
    slug = _clean(path.replace("{", "").replace("}", "").replace("/", "_"))
    return f"{method.lower()}_{slug}" if slug else method.lower()


def shorten(name: str, limit: int, seed: str | None = None) -> str:
    """`name` if it fits in `limit`, else its beginning + `_` + a short hash of `seed or name`."""
    if len(name) <= limit:
        return name
    tag = _digest(seed or name)
    return name[: limit - len(tag) - 1].rstrip("_-") + "_" + tag


class Namer:
    """Hands out unique tool names in document order."""

    def __init__(self, max_length: int = 64) -> None:
        self.max_length = max(MIN_LENGTH, min(64, max_length))
        self.used: set[str] = set()

    def name(self, operation_id: str | None, method: str, path: str) -> str:
        base = base_name(operation_id, method, path)
        name = shorten(base, self.max_length)
        seed = f"{method.upper()} {path}"
        size = 6
        while name in self.used:
            tag = _digest(seed + ("" if size == 6 else str(size)), min(size, 40))
            name = base[: self.max_length - len(tag) - 1].rstrip("_-") + "_" + tag
            size += 1
        self.used.add(name)
        return name

    def claim(self, name: str) -> bool:
        """Reserve an explicit name; False when it is already taken."""
        if name in self.used:
            return False
        self.used.add(name)
        return True


def argument_name(name: str) -> str:
    """An argument name clients accept (`^[a-zA-Z0-9_.-]{1,64}$`) for an API field name."""
    return shorten(_clean(name, _ARG_ILLEGAL) or "value", 64, name)
