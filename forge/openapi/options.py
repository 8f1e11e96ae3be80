"""How to turn a document into tools (filled from the CLI's OpenAPI flags)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["OpenAPIOptions"]


@dataclass(frozen=True, slots=True)
class OpenAPIOptions:
    """How to turn a document into tools.

    Attributes:
        base_url: overrides (or supplies) the document's server URL.
        max_name_length: longest tool name produced (clients prefix names with the server's).
        include/exclude: selectors: `tag:NAME`, `op:GLOB` (operationId), `method:GET`, `path:GLOB`.
        auth_env: security scheme name -> environment variable, overriding the default names.
        name: the spec's name; derived from the document's title when None.
    """

    base_url: str | None = None
    max_name_length: int = 64
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    auth_env: Mapping[str, str] = field(default_factory=dict)
    name: str | None = None
