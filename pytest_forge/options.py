"""The plugin's settings, read once from the command line and the ini file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

__all__ = ["OPTIONS", "ForgeOptions", "parse_base_urls"]


@dataclass(frozen=True, slots=True)
class ForgeOptions:
    """What `--forge-*`, `--record*` and the `forge_*` ini settings asked for."""

    specs: tuple[Path, ...] = ()
    cassettes: Path = Path("cassettes")
    record: bool = False
    record_writes: bool = False
    base_urls: Mapping[str, str] = field(default_factory=dict)
    drift: bool = False
    drift_writes: bool = False
    drift_examples: int = 20


OPTIONS = pytest.StashKey[ForgeOptions]()


def parse_base_urls(items: list[str]) -> dict[str, str]:
    """`NAME=URL` pairs -> {name: url}.

    Raises:
        pytest.UsageError: an item is not NAME=URL.
    """
    urls = {}
    for item in items:
        name, sep, url = item.partition("=")
        if not sep or not name or not url.startswith(("http://", "https://")):
            raise pytest.UsageError(f"--forge-base-url wants NAME=URL (a spec name and an http(s) URL), got {item!r}")
        urls[name] = url
    return urls
