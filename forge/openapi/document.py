"""A whole OpenAPI document -> Spec: every operation a tool, or skipped with the reason."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from forge.issues import Issue
from forge.openapi.naming import Namer
from forge.openapi.operations import Operation, ToolBuilder, iter_operations
from forge.openapi.options import OpenAPIOptions
from forge.openapi.params import Unsupported
from forge.openapi.refs import RefError, Resolver
from forge.openapi.security import SecurityMap
from forge.openapi.select import Selection, selector_problems
from forge.openapi.servers import base_url
from forge.spec import Skipped, Spec, Tool, Transport

__all__ = ["Compiled", "compile_openapi", "detect_version", "selected", "spec_name"]

_NOISE = re.compile(r"^(api|apis|rest|openapi|swagger|the|a|v\d+(\.\d+)*|\d+)$")


def detect_version(document: Mapping[str, Any]) -> str | None:
    """ "2.0", "3.0" or "3.1", from the document itself; None for anything else."""
    swagger = document.get("swagger")
    if swagger is not None:
        return "2.0" if str(swagger).startswith("2.") or str(swagger) == "2" else None
    version = document.get("openapi")
    if isinstance(version, str) and version.startswith(("3.0", "3.1")):
        return version[:3]
    return None


def spec_name(document: Mapping[str, Any], path: Path) -> str:
    """The first word of the title that is not `api`, `rest`, `openapi`, `swagger`, `the`,
    `a` or a version (`v3`), lower-cased: "GitHub v3 REST API" -> `github`; else the file's."""
    info = document.get("info")
    title = info.get("title") if isinstance(info, Mapping) else None
    for source in (title, path.stem):
        if not isinstance(source, str):
            continue
        words = [w for w in re.split(r"[^a-z0-9]+", source.lower().replace("'s ", " ")) if w]
        kept = [w for w in words if not _NOISE.match(w)] or words
        if kept:
            return kept[0][:40]
    return "api"


class Compiled:
    """The shared state of one document: resolver, builder, names, auth, base URL."""

    def __init__(self, document: Mapping[str, Any], path: Path, options: OpenAPIOptions, name: str) -> None:
        self.document = document
        self.path = path
        self.issues: list[Issue] = []
        self.version = detect_version(document) or ""
        if not self.version:
            found = document.get("openapi", document.get("swagger"))
            raise Unsupported(
                f"not a supported OpenAPI document (found version {found!r}); "
                "forge reads swagger: '2.0', openapi: 3.0.x and 3.1.x"
            )
        self.resolver = Resolver(document)
        self.security = SecurityMap(document, name, options.auth_env)
        self.builder = ToolBuilder(document, self.resolver, self.security, self.version)
        url, problem = base_url(document, options.base_url)
        if problem:
            self.issues.append(Issue(str(path), problem))
        self.url = url or ""
        namer = Namer(options.max_name_length)
        self.operations: list[tuple[Operation, str]] = []
        self.unreadable: list[Skipped] = []
        for found_op in iter_operations(document, self.resolver):
            if isinstance(found_op, tuple):
                self.unreadable.append(Skipped(*found_op))
            else:
                self.operations.append((found_op, namer.name(found_op.operation_id, found_op.method, found_op.path)))

    def build(self, operation: Operation, name: str) -> Tool | Skipped:
        """The tool, or why not; a remote reference becomes an issue (forge never fetches)."""
        try:
            return self.builder.build(operation, name)
        except Unsupported as exc:
            return Skipped(operation.label, str(exc))
        except RefError as exc:
            if exc.remote:
                self.issues.append(Issue(str(self.path), f"{operation.label}: {exc}", name, "openapi"))
            return Skipped(operation.label, str(exc))
        except RecursionError:
            return Skipped(operation.label, "a schema nests too deeply to convert")

    def transport(self) -> Transport:
        return Transport(kind="rest", url=self.url, auth=self.security.default)


def selected(compiled: Compiled, options: OpenAPIOptions) -> Iterator[tuple[Operation, Tool | Skipped]]:
    """The operations `--include`/`--exclude` select, each built (or skipped)."""
    selection = Selection(options.include, options.exclude)
    for operation, tool_name in compiled.operations:
        if selection.wants(operation.operation_id, operation.method, operation.path, operation.tags):
            yield operation, compiled.build(operation, tool_name)


def compile_openapi(document: Mapping[str, Any], *, path: Path, options: OpenAPIOptions) -> tuple[Spec, list[Issue]]:
    name = options.name or spec_name(document, path)
    try:
        compiled = Compiled(document, path, options, name)
    except Unsupported as exc:
        return Spec(name=name, transport=Transport("rest", ""), tools=(), path=path, openapi=path), [
            Issue(str(path), str(exc))
        ]
    issues = [Issue(str(path), p) for p in selector_problems(options.include + options.exclude)]
    tools: list[Tool] = []
    skipped: list[Skipped] = list(compiled.unreadable)
    for _, result in selected(compiled, options):
        if isinstance(result, Tool):
            tools.append(result)
        else:
            skipped.append(result)
    spec = Spec(
        name=name,
        transport=compiled.transport(),
        tools=tuple(tools),
        path=path,
        openapi=path,
        skipped=tuple(skipped),
    )
    return spec, issues + compiled.issues
