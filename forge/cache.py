"""A cache of compiled, checked specs, so big OpenAPI documents start fast.

Compiling and checking GitHub's 13 MB document takes about a second of CPU and the
parsed document dominates peak memory; a `forge serve` that restarts with the same
inputs needs neither. An entry is the pickled Spec plus the size and modification time
of every file it was built from, and is used only while all of them are unchanged (and
for the same forge version and options). Entries live in the user's private state
directory (0700, files 0600); anything unreadable is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from forge import __version__
from forge.openapi import OpenAPIOptions
from forge.spec import Spec

__all__ = ["MIN_SIZE", "SpecCache"]

MIN_SIZE = 256 * 1024  # smaller inputs compile faster than a cache entry is checked

log = logging.getLogger("forge")


@lru_cache(maxsize=1)
def _code_stamp() -> str:
    """forge's own source files, so an edited compiler (not only a new version) invalidates entries."""
    package = Path(__file__).resolve().parent
    stamps = sorted(
        (str(p.relative_to(package)), p.stat().st_size, p.stat().st_mtime_ns) for p in package.rglob("*.py")
    )
    return hashlib.sha256(repr(stamps).encode()).hexdigest()


def _stamp(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns


@dataclass(frozen=True, slots=True)
class _Entry:
    inputs: tuple[tuple[str, int, int], ...]
    spec: Spec


class SpecCache:
    """Compiled specs keyed by input file, forge version and options."""

    def __init__(self, directory: Path, min_size: int = MIN_SIZE) -> None:
        self.directory = directory
        self.min_size = min_size

    def _file(self, path: Path, options: OpenAPIOptions) -> Path:
        key = repr((__version__, _code_stamp(), sys.version_info[:2], str(path.resolve()), options))
        return self.directory / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".pickle")

    def _trusted(self, entry: Path) -> bool:
        # Unpickling runs code, so only files that nobody else could have written are read:
        # the directory and the entry owned by this user and writable by no one else.
        for item in (self.directory, entry):
            stat = item.stat()
            if stat.st_uid != os.geteuid() or stat.st_mode & 0o022:
                log.warning("not using the spec cache: %s is writable by others or not ours", item)
                return False
        return True

    def get(self, path: Path, options: OpenAPIOptions) -> Spec | None:
        """The cached spec for `path`, or None when absent, out of date or not safe to read."""
        try:
            if path.stat().st_size < self.min_size:
                return None
            entry_file = self._file(path, options)
            if not entry_file.exists() or not self._trusted(entry_file):
                return None
            with entry_file.open("rb") as handle:
                entry = pickle.load(handle)
            if not isinstance(entry, _Entry) or any(
                _stamp(Path(name)) != (name, size, mtime) for name, size, mtime in entry.inputs
            ):
                return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
            return None
        log.info("%s: compiled spec from cache", path)
        return entry.spec

    def put(self, path: Path, options: OpenAPIOptions, spec: Spec) -> None:
        """Remember `spec`, built from `path` (and its OpenAPI document, if any)."""
        try:
            sizes = [path.stat().st_size] + ([spec.openapi.stat().st_size] if spec.openapi is not None else [])
            if max(sizes) < self.min_size:
                return
            inputs = {_stamp(path)}
            if spec.openapi is not None:
                inputs.add(_stamp(spec.openapi))
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(_Entry(tuple(sorted(inputs)), spec), handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self._file(path, options))
        except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
            log.warning("could not cache the compiled spec for %s: %s", path, exc)
