"""`--include` / `--exclude` selectors: `tag:NAME`, `op:GLOB`, `method:GET`, `path:GLOB`.

A bare selector is an operationId glob. Globs are shell-style (`repos/*`, `/v1/charges*`);
tags and methods compare case-insensitively. An operation is served when it matches some
include (or there are none) and no exclude.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

__all__ = ["Selection", "selector_problems"]

_KINDS = ("tag", "op", "method", "path")


def selector_problems(selectors: Sequence[str]) -> list[str]:
    problems = []
    for selector in selectors:
        kind, sep, value = selector.partition(":")
        if sep and kind not in _KINDS and not kind.startswith(("/", "*")):
            problems.append(f"selector {selector!r}: unknown kind {kind!r}; use tag:, op:, method: or path:")
        elif sep and not value:
            problems.append(f"selector {selector!r} has nothing after {kind}:")
    return problems


def _matches(selector: str, operation_id: str | None, method: str, path: str, tags: Sequence[str]) -> bool:
    kind, sep, value = selector.partition(":")
    if not sep or kind not in _KINDS:
        kind, value = "op", selector
    if kind == "tag":
        return value.lower() in (t.lower() for t in tags)
    if kind == "method":
        return method.upper() == value.upper()
    if kind == "path":
        return fnmatchcase(path, value)
    return operation_id is not None and fnmatchcase(operation_id, value)


@dataclass(frozen=True, slots=True)
class Selection:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def wants(self, operation_id: str | None, method: str, path: str, tags: Sequence[str]) -> bool:
        if self.include and not any(_matches(s, operation_id, method, path, tags) for s in self.include):
            return False
        return not any(_matches(s, operation_id, method, path, tags) for s in self.exclude)
