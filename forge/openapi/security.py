"""securitySchemes -> forge `Auth`s, with credentials read from environment variables.

Default variable names are `<SPEC>_<SUFFIX>` (the spec name upper-cased): `_TOKEN` for
bearer/OAuth 2/OpenID Connect, `_API_KEY` for API keys, `_USERNAME` and `_PASSWORD` for
basic auth. When two schemes of one document would get the same name, each uses
`<SPEC>_<SCHEME>` instead (`bearerAuth` -> `GITHUB_BEARER_AUTH`). `auth_env` (`--auth-env SCHEME=VAR`)
overrides a scheme's variable (basic: the password is read from `VAR_PASSWORD`).
The first requirement alternative that forge can satisfy is used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from forge.openapi.params import Unsupported
from forge.spec import Auth

__all__ = ["SecurityMap"]

_SUFFIX = {"bearer": "TOKEN", "basic": "USERNAME", "header": "API_KEY", "query": "API_KEY", "cookie": "API_KEY"}


def _env_part(text: str) -> str:
    """`apiKeyQuery` -> `API_KEY_QUERY`: camelCase split, anything else to `_`."""
    split = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"_+", "_", re.sub(r"[^A-Z0-9]", "_", split.upper())).strip("_")


def _kind(scheme: Mapping[str, Any]) -> tuple[str, str | None] | None:
    kind = str(scheme.get("type", "")).lower()
    if kind in ("oauth2", "openidconnect"):
        return "bearer", None
    if kind == "http":
        name = str(scheme.get("scheme", "")).lower()
        return (name, None) if name in ("bearer", "basic") else None
    if kind == "basic":
        return "basic", None
    if kind == "apikey":
        where = str(scheme.get("in", "")).lower()
        field = scheme.get("name")
        if where in ("header", "query", "cookie") and isinstance(field, str) and field:
            return where, field
    return None


class SecurityMap:
    """The document's schemes as Auths, and requirement lists resolved to them."""

    def __init__(self, document: Mapping[str, Any], spec_name: str, overrides: Mapping[str, str]) -> None:
        schemes = document.get("securityDefinitions")
        components = document.get("components")
        if isinstance(components, Mapping) and isinstance(components.get("securitySchemes"), Mapping):
            schemes = components["securitySchemes"]
        self.schemes: dict[str, Auth] = {}
        prefix = _env_part(spec_name) or "API"
        kinds: dict[str, tuple[str, str | None] | None] = {}
        if isinstance(schemes, Mapping):
            kinds = {str(name): _kind(s) for name, s in schemes.items() if isinstance(s, Mapping)}
        suffixes = [_SUFFIX[k[0]] for k in kinds.values() if k]
        for name, found in kinds.items():
            if found is None:
                continue
            kind, field = found
            variable = overrides.get(name)
            if variable is None:
                unique = suffixes.count(_SUFFIX[kind]) == 1
                variable = f"{prefix}_{_SUFFIX[kind] if unique else _env_part(name) or 'AUTH'}"
            password = None
            if kind == "basic":
                stem = variable if name in overrides else re.sub(r"_USERNAME$", "", variable)
                password = f"{stem}_PASSWORD"
            self.schemes[name] = Auth(kind=kind, env=variable, password_env=password, name=field)  # type: ignore[arg-type]
        try:
            self.default = self.resolve(document.get("security"), ()) or ()
        except Unsupported:  # e.g. only HTTP digest: send no credentials rather than refuse every call
            self.default = ()

    def resolve(self, requirements: Any, fallback: tuple[Auth, ...] | None) -> tuple[Auth, ...] | None:
        """The first satisfiable alternative; `fallback` when `requirements` is absent."""
        if requirements is None:
            return fallback
        if not isinstance(requirements, list):
            return fallback
        if not requirements:
            return ()
        unknown: list[str] = []
        for alternative in requirements:
            if not isinstance(alternative, Mapping):
                continue
            names = [str(n) for n in alternative]
            if all(n in self.schemes for n in names):
                return tuple(self.schemes[n] for n in names)
            unknown += [n for n in names if n not in self.schemes]
        raise Unsupported("needs security scheme " + ", ".join(sorted(set(unknown))) + ", which forge cannot send")

    def for_operation(self, operation: Mapping[str, Any]) -> tuple[Auth, ...] | None:
        """Tool.auth: None for the transport's, () for public, else this operation's."""
        if "security" not in operation:
            return None
        resolved = self.resolve(operation["security"], None)
        return None if resolved == self.default else resolved
