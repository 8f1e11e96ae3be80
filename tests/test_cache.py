from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forge.cache import SpecCache
from forge.loading import load_spec
from forge.openapi import OpenAPIOptions
from tests.test_serve_stdio import acme_spec


def write(path: Path, url: str) -> Path:
    path.write_text(json.dumps(acme_spec(url)), encoding="utf-8")
    return path


def test_a_second_load_of_unchanged_inputs_comes_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = SpecCache(tmp_path / "cache", min_size=0)
    spec_path = write(tmp_path / "acme.json", "https://one.test")
    first = load_spec(spec_path, cache=cache)
    monkeypatch.setattr("forge.loading.inspect_spec", lambda *a, **k: pytest.fail("compiled again"))
    again = load_spec(spec_path, cache=cache)
    assert again.transport.url == first.transport.url and [t.name for t in again.tools] == [t.name for t in first.tools]
    assert [p.stat().st_mode & 0o777 for p in (tmp_path / "cache").iterdir()] == [0o600]
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700


def test_a_changed_input_is_compiled_again(tmp_path: Path) -> None:
    cache = SpecCache(tmp_path / "cache", min_size=0)
    spec_path = write(tmp_path / "acme.json", "https://one.test")
    load_spec(spec_path, cache=cache)
    write(spec_path, "https://two.example.test")
    os.utime(spec_path, ns=(1, 1))
    assert load_spec(spec_path, cache=cache).transport.url == "https://two.example.test"


def test_other_options_get_their_own_entry(tmp_path: Path) -> None:
    cache = SpecCache(tmp_path / "cache", min_size=0)
    spec_path = write(tmp_path / "acme.json", "https://one.test")
    load_spec(spec_path, OpenAPIOptions(), cache=cache)
    load_spec(spec_path, OpenAPIOptions(max_name_length=40), cache=cache)
    assert len(list((tmp_path / "cache").iterdir())) == 2


def test_a_corrupt_entry_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    cache = SpecCache(tmp_path / "cache", min_size=0)
    spec_path = write(tmp_path / "acme.json", "https://one.test")
    load_spec(spec_path, cache=cache)
    [entry] = (tmp_path / "cache").iterdir()
    entry.write_bytes(b"not a pickle")
    assert cache.get(spec_path, OpenAPIOptions()) is None
    assert load_spec(spec_path, cache=cache).transport.url == "https://one.test"


def test_small_inputs_are_not_cached(tmp_path: Path) -> None:
    cache = SpecCache(tmp_path / "cache")
    load_spec(write(tmp_path / "acme.json", "https://one.test"), cache=cache)
    assert not (tmp_path / "cache").exists()


def test_an_entry_others_could_write_is_not_read(tmp_path: Path) -> None:
    cache = SpecCache(tmp_path / "cache", min_size=0)
    spec_path = write(tmp_path / "acme.json", "https://one.test")
    load_spec(spec_path, cache=cache)
    assert cache.get(spec_path, OpenAPIOptions()) is not None
    (tmp_path / "cache").chmod(0o777)
    assert cache.get(spec_path, OpenAPIOptions()) is None
