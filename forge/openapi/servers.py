"""The base URL: `servers[0]` with variable defaults (3.x), `schemes`/`host`/`basePath` (2.0).

A relative server URL is resolved against `--base-url`; `--base-url` overrides the
document; a document without an absolute URL needs `--base-url` and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

__all__ = ["base_url"]

_VARIABLE = re.compile(r"\{([^{}]+)\}")


def _absolute(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _document_url(document: Mapping[str, Any]) -> str | None:
    if "swagger" in document:
        host = document.get("host")
        base_path = document.get("basePath") if isinstance(document.get("basePath"), str) else ""
        if not isinstance(host, str) or not host:
            return base_path or None
        schemes = [s for s in document.get("schemes") or () if s in ("https", "http")]
        scheme = "https" if "https" in schemes or not schemes else schemes[0]
        return f"{scheme}://{host}{base_path}"
    servers = document.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], Mapping):
        return None
    server = servers[0]
    url = server.get("url")
    if not isinstance(url, str):
        return None
    variables = server.get("variables") if isinstance(server.get("variables"), Mapping) else {}

    def fill(match: re.Match[str]) -> str:
        spec = variables.get(match.group(1)) if variables else None
        if isinstance(spec, Mapping):
            if spec.get("default") is not None:
                return str(spec["default"])
            enum = spec.get("enum")
            if isinstance(enum, list) and enum:
                return str(enum[0])
        return match.group(0)

    return _VARIABLE.sub(fill, url)


def base_url(document: Mapping[str, Any], override: str | None) -> tuple[str | None, str | None]:
    """(url, problem): the URL to send to, or why there is none.

    `override` replaces the document's URL, except that a relative document URL (`/v1`)
    is joined onto an override that has no path of its own.
    """
    url = _document_url(document)
    if override:
        if url and not _absolute(url) and not _VARIABLE.search(url) and urlsplit(override).path in ("", "/"):
            return urljoin(override.rstrip("/") + "/", url.lstrip("/")).rstrip("/") or override, None
        return override, None
    if url is not None and _VARIABLE.search(url):
        return None, f"the server URL {url!r} has variables without defaults; pass --base-url"
    if url is not None and _absolute(url):
        return url, None
    if url:
        return None, f"the server URL {url!r} is relative; pass --base-url to say where the API is"
    return None, "the document names no server URL; pass --base-url to say where the API is"
