"""Where issued confirmation tokens live: in memory, or in a SQLite file shared by processes.

A store keeps, per token id, the request tag it was issued for, its expiry and whether
it has been spent, and it owns the HMAC key (the key must be shared exactly as widely
as the tokens). `consume` is the single atomic step that makes a token single use.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["RETENTION", "MemoryTokenStore", "SqliteTokenStore", "TokenRecord", "TokenStore"]

# Records outlive their expiry by this long, so a late reuse is told "spent" or "expired"
# rather than "unknown"; after that they are deleted.
RETENTION = 3600.0


@dataclass(frozen=True, slots=True)
class TokenRecord:
    tag: str
    expires_at: float
    spent: bool


class TokenStore(Protocol):
    """The gate's storage. Implementations must make `consume` atomic across callers."""

    def key(self) -> bytes:
        """The HMAC key tokens are made with (created on first use)."""
        ...

    def issue(self, token_id: str, tag: str, expires_at: float, now: float) -> None: ...

    def lookup(self, token_id: str) -> TokenRecord | None: ...

    def consume(self, token_id: str, now: float) -> bool:
        """Mark the token spent if it is unspent and unexpired; True only for the one winner."""
        ...

    def ping(self) -> bool:
        """True when the store is reachable."""
        ...


class MemoryTokenStore:
    """Tokens for one process; the key dies with it."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)
        self._records: dict[str, TokenRecord] = {}
        self._purge_at = 1024
        self._lock = threading.Lock()

    def key(self) -> bytes:
        return self._key

    def issue(self, token_id: str, tag: str, expires_at: float, now: float) -> None:
        with self._lock:
            if len(self._records) >= self._purge_at:
                self._records = {k: r for k, r in self._records.items() if r.expires_at > now - RETENTION}
                self._purge_at = max(1024, 2 * len(self._records))
            self._records[token_id] = TokenRecord(tag, expires_at, spent=False)

    def lookup(self, token_id: str) -> TokenRecord | None:
        with self._lock:
            return self._records.get(token_id)

    def consume(self, token_id: str, now: float) -> bool:
        with self._lock:
            record = self._records.get(token_id)
            if record is None or record.spent or record.expires_at <= now:
                return False
            self._records[token_id] = TokenRecord(record.tag, record.expires_at, spent=True)
            return True

    def ping(self) -> bool:
        return True

    def __len__(self) -> int:
        return len(self._records)


class SqliteTokenStore:
    """Tokens in a SQLite file, so `forge call` invocations (and other local processes) share them.

    The file is created with owner-only permissions. Single use is enforced by one
    conditional UPDATE, which SQLite serializes across connections and processes.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, tag TEXT NOT NULL,"
            " expires_at REAL NOT NULL, spent INTEGER NOT NULL DEFAULT 0)"
        )
        self._conn.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)")
        self._conn.execute(
            "INSERT OR IGNORE INTO meta (name, value) VALUES ('hmac_key', ?)", (secrets.token_bytes(32),)
        )

    def key(self) -> bytes:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE name = 'hmac_key'").fetchone()
        return bytes(row[0])

    def issue(self, token_id: str, tag: str, expires_at: float, now: float) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM tokens WHERE expires_at < ?", (now - RETENTION,))
            self._conn.execute(
                "INSERT INTO tokens (id, tag, expires_at, spent) VALUES (?, ?, ?, 0)", (token_id, tag, expires_at)
            )

    def lookup(self, token_id: str) -> TokenRecord | None:
        with self._lock:
            row = self._conn.execute("SELECT tag, expires_at, spent FROM tokens WHERE id = ?", (token_id,)).fetchone()
        return None if row is None else TokenRecord(row[0], float(row[1]), bool(row[2]))

    def consume(self, token_id: str, now: float) -> bool:
        with self._lock:
            cursor = self._conn.execute(
                "UPDATE tokens SET spent = 1 WHERE id = ? AND spent = 0 AND expires_at > ?", (token_id, now)
            )
        return cursor.rowcount == 1

    def ping(self) -> bool:
        try:
            with self._lock:
                self._conn.execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    def close(self) -> None:
        self._conn.close()
