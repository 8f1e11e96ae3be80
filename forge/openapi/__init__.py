"""Pure: OpenAPI documents (Swagger 2.0, OpenAPI 3.0, 3.1) -> Spec + issues.

Modules, one job each:
- `refs`: local `$ref` lookup (memoized; remote and file references refused);
- `schemas`: Schema Objects -> compact JSON Schema 2020-12 (recursion placeholders);
- `params`, `bodies`: parameters and request bodies -> arguments and bindings;
- `security`: securitySchemes -> `Auth`s with environment variable names;
- `naming`, `select`, `servers`: tool names, `--include/--exclude`, the base URL;
- `operations`: one operation -> one Tool; `document`: a whole document -> Spec;
- `curated`: a forge spec naming an OpenAPI document; `importer`: `forge import`.

Issues returned are errors (loading refuses the spec); operations that cannot become
tools are listed in `Spec.skipped` with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forge.issues import Issue
from forge.openapi.curated import compile_curated
from forge.openapi.document import compile_openapi
from forge.openapi.importer import curated_spec
from forge.openapi.options import OpenAPIOptions
from forge.spec import Spec

__all__ = ["OpenAPIOptions", "compile_curated", "compile_document", "curated_spec", "is_openapi"]


def is_openapi(document: Any) -> bool:
    """True for an OpenAPI/Swagger document (as opposed to a forge spec)."""
    if not isinstance(document, dict):
        return False
    if "swagger" in document or "paths" in document:
        return True
    version = document.get("openapi")
    return isinstance(version, str) and version[:2] in ("3.", "2.")


def compile_document(document: Mapping[str, Any], *, path: Path, options: OpenAPIOptions) -> tuple[Spec, list[Issue]]:
    """Every operation of `document` (as selected) as a tool; issues are errors only."""
    return compile_openapi(document, path=path, options=options)
