"""The only spec-file I/O: a path -> parsed document -> the right compiler -> Spec.

forge specs (JSON) and OpenAPI documents (JSON or YAML) load through here, so every
consumer (CLI, server, pytest plugin) sees the same compiled model and the same issues.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from forge.cache import SpecCache
from forge.check import MISSING_SCHEMA, check_spec
from forge.errors import SpecError
from forge.issues import Issue
from forge.openapi import OpenAPIOptions, compile_curated, compile_document, is_openapi
from forge.spec import Spec
from forge.specfile import compile_spec, shape_issues, undeclared_writes

__all__ = ["find_specs", "inspect_spec", "load_spec", "read_document"]

_SUFFIXES = (".json", ".yaml", ".yml")
log = logging.getLogger("forge")


def read_document(path: Path) -> Any:
    """Parse a JSON or YAML file.

    Raises:
        SpecError: the file cannot be read or parsed (the issue names the line).
    """
    label = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError([Issue(label, f"cannot read file: {exc.strerror or exc}")]) from exc
    except UnicodeDecodeError as exc:
        raise SpecError([Issue(label, f"cannot read file: not UTF-8 text ({exc.reason})")]) from exc
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise SpecError([Issue(label, f"not valid YAML{where}: {getattr(exc, 'problem', exc)}")]) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError([Issue(label, f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")]) from exc


def _compile(path: Path, options: OpenAPIOptions) -> tuple[Spec, list[Issue]]:
    document = read_document(path)
    if is_openapi(document):
        return compile_document(document, path=path, options=options)
    issues = shape_issues(document, str(path))
    if issues:
        raise SpecError(issues)
    if "openapi" in document:
        source = path.parent / document["openapi"]
        return compile_curated(document, read_document(source), path=path, document_path=source, options=options)
    spec = compile_spec(document, path)
    return spec, undeclared_writes(document, spec, str(path))


def inspect_spec(
    path: Path, options: OpenAPIOptions | None = None, schema_override: Path | None = None
) -> tuple[Spec | None, list[Issue]]:
    """Load and check `path`: the spec (None if it cannot be compiled) and every issue found."""
    try:
        spec, issues = _compile(path, options or OpenAPIOptions())
    except SpecError as exc:
        return None, list(exc.issues)
    return spec, issues + check_spec(spec, schema_override)


def load_spec(path: Path, options: OpenAPIOptions | None = None, *, cache: SpecCache | None = None) -> Spec:
    """Load a spec for use, refusing one with any problem.

    Args:
        cache: where compiled, checked specs of big documents are kept between runs.

    Raises:
        SpecError: with every issue found.
    """
    options = options or OpenAPIOptions()
    cached = cache.get(path, options) if cache is not None else None
    if cached is not None:
        return cached
    spec, issues = inspect_spec(path, options)
    # A GraphQL schema file only serves validation: serving goes on without it, with a warning.
    fatal = [issue for issue in issues if issue.check != MISSING_SCHEMA]
    if spec is None or fatal:
        raise SpecError(fatal or issues)
    for issue in issues:
        log.warning("%s (operations are not validated against a schema)", issue)
    if cache is not None and not issues:
        cache.put(path, options, spec)
    return spec


def find_specs(paths: list[Path]) -> Iterator[Path]:
    """Spec files named directly, and every .json/.yaml/.yml file under named folders (sorted)."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in _SUFFIXES and p.is_file())
        else:
            yield path
