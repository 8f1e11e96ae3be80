"""Pure: OpenAPI documents (Swagger 2.0, OpenAPI 3.0, 3.1) -> Spec + issues.

(Being built: see issue 3.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forge.errors import SpecError
from forge.issues import Issue
from forge.spec import Spec

__all__ = ["OpenAPIOptions", "compile_curated", "compile_document", "is_openapi"]


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


def is_openapi(document: Any) -> bool:
    """True for an OpenAPI/Swagger document (as opposed to a forge spec)."""
    if not isinstance(document, dict):
        return False
    if "swagger" in document or "paths" in document:
        return True
    version = document.get("openapi")
    return isinstance(version, str) and version[:2] in ("3.", "2.")


def compile_document(document: Mapping[str, Any], *, path: Path, options: OpenAPIOptions) -> tuple[Spec, list[Issue]]:
    raise SpecError([Issue(str(path), "OpenAPI documents are not supported yet")])


def compile_curated(
    raw: Mapping[str, Any], document: Mapping[str, Any], *, path: Path, document_path: Path, options: OpenAPIOptions
) -> tuple[Spec, list[Issue]]:
    raise SpecError([Issue(str(path), "OpenAPI documents are not supported yet")])
