"""Credentials from the environment, applied to a request; their values tracked for redaction.

Values are read by variable name at call time and never stored in a spec. Every value
read here is reported back as a secret so that previews, errors and logs can redact it.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

from forge.errors import MissingVariable
from forge.spec import Auth

__all__ = ["Credentials", "resolve_credentials", "secret_variants"]

_MIN_SECRET_LENGTH = 4  # shorter values cannot be redacted without mangling ordinary text


@dataclass(frozen=True, slots=True)
class Credentials:
    """Where credentials go in one request. `secrets` holds every form of every value."""

    headers: tuple[tuple[str, str], ...] = ()
    query: tuple[tuple[str, str], ...] = ()
    cookies: tuple[tuple[str, str], ...] = ()
    secrets: frozenset[str] = frozenset()


def secret_variants(value: str) -> set[str]:
    """A secret as it may appear in text: raw, URL-encoded, form-encoded."""
    if len(value) < _MIN_SECRET_LENGTH:
        return set()
    return {value, quote(value, safe=""), quote_plus(value)}


def _read(env: Mapping[str, str], name: str, purpose: str) -> str:
    value = env.get(name)
    if value is None or value == "":
        raise MissingVariable(name, purpose)
    return value


def resolve_credentials(auths: tuple[Auth, ...], env: Mapping[str, str]) -> Credentials:
    """Read every credential; raise MissingVariable naming the first one unset."""
    headers: list[tuple[str, str]] = []
    query: list[tuple[str, str]] = []
    cookies: list[tuple[str, str]] = []
    secrets: set[str] = set()
    for auth in auths:
        value = _read(env, auth.env, f"{auth.kind} credential")
        secrets |= secret_variants(value)
        if auth.kind == "bearer":
            headers.append(("Authorization", f"Bearer {value}"))
        elif auth.kind == "basic":
            password = env.get(auth.password_env, "") if auth.password_env else ""
            secrets |= secret_variants(password)
            token = base64.b64encode(f"{value}:{password}".encode()).decode("ascii")
            secrets |= secret_variants(token)
            headers.append(("Authorization", f"Basic {token}"))
        elif auth.kind == "header":
            headers.append((auth.name or "X-API-Key", value))
        elif auth.kind == "query":
            query.append((auth.name or "api_key", value))
        else:
            cookies.append((auth.name or "session", value))
    return Credentials(tuple(headers), tuple(query), tuple(cookies), frozenset(secrets))
