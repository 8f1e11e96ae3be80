"""`forge import`: a curated forge spec listing a document's (selected) operations."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forge.errors import SpecError
from forge.issues import Issue
from forge.openapi.curated import operation_key
from forge.openapi.document import Compiled, selected, spec_name
from forge.openapi.options import OpenAPIOptions
from forge.openapi.params import Unsupported
from forge.openapi.select import selector_problems
from forge.spec import Tool

__all__ = ["curated_spec"]


def curated_spec(
    document: Any, *, document_path: Path, output: Path, options: OpenAPIOptions
) -> tuple[dict[str, Any], list[Issue]]:
    """The spec dict to write to `output`, and notes (operations skipped, missing base URL).

    Raises:
        SpecError: `document` is not an OpenAPI document, or a selector is malformed.
    """
    label = str(document_path)
    if not isinstance(document, Mapping):
        raise SpecError([Issue(label, "not an OpenAPI document")])
    problems = selector_problems(options.include + options.exclude)
    if problems:
        raise SpecError([Issue(label, p) for p in problems])
    name = options.name or spec_name(document, document_path)
    try:
        compiled = Compiled(document, document_path, options, name)
    except Unsupported as exc:
        raise SpecError([Issue(label, str(exc))]) from None
    notes = list(compiled.issues)
    tools: list[dict[str, Any]] = []
    for operation, result in selected(compiled, options):
        if isinstance(result, Tool):
            tools.append({"operation": operation_key(operation), "name": result.name})
        else:
            notes.append(Issue(label, f"skipped {result.operation}: {result.reason}"))
    relative = os.path.relpath(document_path.resolve(), output.resolve().parent)
    spec: dict[str, Any] = {"name": name, "openapi": Path(relative).as_posix()}
    if options.base_url:
        spec["transport"] = {"kind": "rest", "url": options.base_url}
    spec["tools"] = tools
    return spec, notes
