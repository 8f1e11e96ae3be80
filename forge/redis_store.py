"""Tokens in Redis, so every replica of `forge serve` shares one gate.

Implements the `forge.tokenstore.TokenStore` protocol. A token is a hash
`<prefix>token:<id>` with its tag, expiry and spent flag, deleted by Redis itself
`RETENTION` seconds after it expires. Spending is one Lua script (atomic on the Redis
server), so a token confirmed on two replicas at once is accepted by exactly one. The
HMAC key is created once with `SET NX` and then read by every replica, so a token
issued by one replica verifies on any other.
"""

from __future__ import annotations

import math
import secrets
from typing import Any

import redis

from forge.errors import ForgeError
from forge.tokenstore import RETENTION, TokenRecord

__all__ = ["RedisTokenStore"]

# KEYS[1] = token hash; ARGV[1] = now. 1 for the one caller that spends it, else 0.
_CONSUME = """
local record = redis.call('HMGET', KEYS[1], 'spent', 'expires_at')
if not record[1] then return 0 end
if record[1] ~= '0' then return 0 end
if tonumber(record[2]) <= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'spent', '1')
return 1
"""


class RedisTokenStore:
    """Tokens in a Redis server shared by every forge process pointing at it.

    Args:
        url: `redis://[user:password@]host:port/db` (or `rediss://`, `unix://`).
        prefix: namespace for forge's keys (lets several deployments share one Redis).
        timeout: seconds before a Redis operation counts as failed.
    """

    def __init__(self, url: str, *, prefix: str = "forge:", timeout: float = 2.0, client: Any = None) -> None:
        self.prefix = prefix
        self._redis: redis.Redis = client or redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=30
        )
        self._consume = self._redis.register_script(_CONSUME)
        self._key: bytes | None = None

    def _token(self, token_id: str) -> str:
        return f"{self.prefix}token:{token_id}"

    def key(self) -> bytes:
        if self._key is None:
            name = f"{self.prefix}hmac_key"
            try:
                self._redis.set(name, secrets.token_bytes(32), nx=True)
                value = self._redis.get(name)
            except redis.RedisError as exc:
                raise ForgeError(f"token store: cannot reach Redis to read the signing key: {exc}") from None
            if not isinstance(value, bytes) or len(value) < 32:
                raise ForgeError(f"token store: the Redis key {name} does not hold a signing key")
            self._key = value
        return self._key

    def issue(self, token_id: str, tag: str, expires_at: float, now: float) -> None:
        name = self._token(token_id)
        pipe = self._redis.pipeline(transaction=True)
        pipe.hset(name, mapping={"tag": tag, "expires_at": repr(expires_at), "spent": "0"})
        pipe.expire(name, max(1, math.ceil(expires_at - now + RETENTION)))
        pipe.execute()

    def lookup(self, token_id: str) -> TokenRecord | None:
        raw: dict[bytes, bytes] = self._redis.hgetall(self._token(token_id))  # type: ignore[assignment]
        if not raw or b"tag" not in raw:
            return None
        return TokenRecord(raw[b"tag"].decode(), float(raw[b"expires_at"]), raw.get(b"spent", b"0") != b"0")

    def consume(self, token_id: str, now: float) -> bool:
        return bool(self._consume(keys=[self._token(token_id)], args=[repr(now)]))

    def ping(self) -> bool:
        try:
            return bool(self._redis.ping())
        except redis.RedisError:
            return False

    def close(self) -> None:
        self._redis.close()
