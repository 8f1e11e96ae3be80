"""The audit sink: one JSON line per write that was sent (or whose sending was attempted).

The Engine builds each record (time, spec, tool, method, redacted URL, body hash, how it
was confirmed, outcome) and never puts credential values in it; this module only appends
the lines, one whole line per write, flushed at once, safe from many threads.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

__all__ = ["AuditLog"]


class AuditLog:
    """Appends records as JSON lines to a file (created owner-only) or to stderr (`-`)."""

    def __init__(self, target: str | Path) -> None:
        self._lock = threading.Lock()
        self._owned = str(target) != "-"
        self.target = str(target)
        if self._owned:
            path = Path(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._stream: IO[str] = os.fdopen(fd, "a", encoding="utf-8")
        else:
            self._stream = sys.stderr

    def __call__(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(dict(record), ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            self._stream.write(line)
            self._stream.flush()

    def close(self) -> None:
        with self._lock:
            if self._owned and not self._stream.closed:
                self._stream.close()
