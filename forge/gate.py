"""The write gate: a write is sent only with a token bound to exactly that request.

A token is `<id>.<tag>` where tag = HMAC(key, id + request fingerprint). The store
remembers what tag each id was issued with, so the gate tells apart a token it never
issued (or one forged), one issued for another request, one already spent and one
expired. Spending is one atomic store operation, so two concurrent confirmations of
one token send at most once.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable

from forge.errors import TokenExpired, TokenMismatch, TokenSpent, TokenUnknown
from forge.tokenstore import TokenStore

__all__ = ["DEFAULT_LIFETIME", "Gate"]

DEFAULT_LIFETIME = 300.0


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


class Gate:
    """Issues and redeems confirmation tokens.

    Args:
        store: where tokens live (and the key that signs them).
        lifetime: seconds a token stays valid.
        clock: the time source (injectable for tests).
    """

    def __init__(
        self, store: TokenStore, *, lifetime: float = DEFAULT_LIFETIME, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.lifetime = lifetime
        self.clock = clock
        self._key = store.key()

    def _tag(self, token_id: str, binding: bytes) -> str:
        mac = hmac.new(self._key, token_id.encode() + b"\x00" + binding, hashlib.sha256).digest()
        return _b64(mac[:18])

    def issue(self, binding: bytes) -> str:
        """Record and return a new token bound to `binding` (a request fingerprint)."""
        token_id = _b64(secrets.token_bytes(12))
        tag = self._tag(token_id, binding)
        now = self.clock()
        self.store.issue(token_id, tag, now + self.lifetime, now)
        return f"{token_id}.{tag}"

    def redeem(self, token: str, binding: bytes) -> None:
        """Spend `token` for the request with fingerprint `binding`, or raise.

        Raises:
            TokenUnknown: not issued here, or forged.
            TokenSpent: used before.
            TokenExpired: past its lifetime.
            TokenMismatch: issued for another request; the token stays valid for its own.
        """
        token_id, _, tag = token.strip().partition(".")
        record = self.store.lookup(token_id) if token_id and tag else None
        if record is None or not hmac.compare_digest(record.tag, tag):
            raise TokenUnknown()
        now = self.clock()
        if record.spent:
            raise TokenSpent()
        if record.expires_at <= now:
            raise TokenExpired()
        if not hmac.compare_digest(self._tag(token_id, binding), tag):
            raise TokenMismatch()
        if not self.store.consume(token_id, now):
            # Lost a race with a concurrent confirmation, or expired in between.
            again = self.store.lookup(token_id)
            if again is not None and not again.spent:
                raise TokenExpired()
            raise TokenSpent()

    def fingerprint(self, token: str) -> str:
        """A short, non-secret identifier of a token for audit lines."""
        return hashlib.sha256(token.encode()).hexdigest()[:12]
