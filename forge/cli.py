"""`forge`: a thin shell over the library. Parse, call, print, exit code; no tracebacks."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from forge import __version__
from forge.cache import SpecCache
from forge.engine import Engine
from forge.errors import ForgeError, SpecError
from forge.gate import DEFAULT_LIFETIME, Gate
from forge.issues import Issue
from forge.listing import tool_definitions
from forge.loading import find_specs, inspect_spec, load_spec
from forge.openapi import OpenAPIOptions
from forge.serve_args import http_options
from forge.spec import GraphQLOperation, Spec
from forge.spec_format import SPEC_SCHEMA
from forge.state import state_dir
from forge.tokenstore import MemoryTokenStore, SqliteTokenStore, TokenStore

if TYPE_CHECKING:
    from forge.client import HttpClient

__all__ = ["main"]

log = logging.getLogger("forge")


def _options(args: argparse.Namespace) -> OpenAPIOptions:
    auth_env: dict[str, str] = {}
    for item in args.auth_env or ():
        scheme, _, variable = item.partition("=")
        if not variable:
            raise ForgeError(f"--auth-env wants SCHEME=VARIABLE, got {item!r}")
        auth_env[scheme] = variable
    return OpenAPIOptions(
        base_url=args.base_url,
        max_name_length=args.max_name_length,
        include=tuple(args.include or ()),
        exclude=tuple(args.exclude or ()),
        auth_env=auth_env,
    )


def _load(args: argparse.Namespace, path: str) -> Spec:
    cache = None if os.environ.get("FORGE_CACHE") == "0" else SpecCache(state_dir() / "cache")
    return load_spec(Path(path), _options(args), cache=cache)


def _cmd_check(args: argparse.Namespace) -> int:
    problems: list[Issue] = []
    paths = list(find_specs([Path(p) for p in args.specs]))
    if not paths:
        print("forge: no spec files found in " + ", ".join(args.specs), file=sys.stderr)
        return 1
    for path in paths:
        spec, issues = inspect_spec(path, _options(args), Path(args.schema) if args.schema else None)
        problems += issues
        if spec is not None and not issues:
            skipped = f", {len(spec.skipped)} operations skipped" if spec.skipped else ""
            print(f"{path}: ok ({len(spec.tools)} tools{skipped})")
            for item in spec.skipped if args.verbose else ():
                print(f"  skipped {item.operation}: {item.reason}")
    for issue in problems:
        print(issue)
    return 1 if problems else 0


def _params(spec: Spec, name: str) -> str:
    tool = spec.tool(name)
    assert tool is not None
    return ", ".join(p.name + ("" if p.required else "?") for p in tool.params)


def _cmd_list(args: argparse.Namespace) -> int:
    spec = _load(args, args.spec)
    engine = Engine([spec], gate=Gate(MemoryTokenStore()))
    if args.json:
        print(json.dumps(tool_definitions(engine.entries.values()), indent=2, ensure_ascii=False))
        return 0
    rows = [("TOOL", "KIND", "REQUEST", "PARAMS")]
    for tool in spec.tools:
        if isinstance(tool.request, GraphQLOperation):
            target = f"{tool.request.operation_type} {tool.request.operation_name or '(anonymous)'}"
        else:
            target = f"{tool.request.method} {tool.request.path}"
        rows.append((tool.name, "write" if tool.write else "read", target, _params(spec, tool.name)))
    widths = [min(max(len(r[i]) for r in rows), 60) for i in range(3)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])
    print(f"\n{spec.name}: {len(spec.tools)} tools at {spec.transport.url}")
    # Every credential any tool may read: the transport's, then per-tool overrides (OpenAPI
    # operations with their own security), each once.
    auths = list(dict.fromkeys([*spec.transport.auth, *(a for t in spec.tools for a in (t.auth or ()))]))
    for auth in auths:
        where = f" ({auth.name})" if auth.name else ""
        extra = f", password from ${auth.password_env}" if auth.password_env else ""
        users = [t.name for t in spec.tools if auth in t.auth_from(spec.transport)]
        scope = "" if len(users) == len(spec.tools) else f" [{len(users)} of {len(spec.tools)} tools]"
        print(f"auth: {auth.kind}{where} from ${auth.env}{extra}{scope}")
    if spec.skipped:
        print(f"{len(spec.skipped)} operations skipped (forge check -v lists them)")
    return 0


def _token_store(kind: str) -> TokenStore:
    if kind == "memory":
        return MemoryTokenStore()
    if kind == "sqlite":
        return SqliteTokenStore(state_dir() / "tokens.sqlite")
    if kind.startswith("sqlite:"):
        return SqliteTokenStore(Path(kind.removeprefix("sqlite:")))
    if kind.startswith(("redis://", "rediss://", "unix://")):
        from forge.redis_store import RedisTokenStore

        return RedisTokenStore(kind)
    raise ForgeError(f"unknown token store {kind!r}: use memory, sqlite, sqlite:PATH or redis://HOST:PORT")


def _replay_http(args: argparse.Namespace, specs: list[Spec]) -> HttpClient | None:
    """An HttpClient answering from recorded cassettes (`--replay`), or None for the network."""
    if not args.replay:
        return None
    from forge.client import HttpClient
    from forge.replay import ReplayTransport, credential_query_names, load_cassettes

    return HttpClient(ReplayTransport(load_cassettes(Path(args.replay)), credential_query_names(specs)))


def _cmd_call(args: argparse.Namespace) -> int:
    spec = _load(args, args.spec)
    try:
        arguments: Any = json.loads(args.args) if args.args else {}
    except json.JSONDecodeError as exc:
        raise ForgeError(f"--args is not valid JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(arguments, dict):
        raise ForgeError("--args must be a JSON object of argument names to values")
    if args.confirm:
        arguments["confirm"] = args.confirm
    gate = Gate(_token_store(args.token_store), lifetime=args.token_lifetime)
    engine = Engine([spec], gate=gate, dry_run=args.dry_run, http=_replay_http(args, [spec]))

    async def run() -> Any:
        try:
            return await engine.call(args.tool, arguments)
        finally:
            await engine.aclose()

    outcome = anyio.run(run)
    print(outcome.text)
    if outcome.token:
        extra = f" --args '{args.args}'" if args.args else ""
        print(f"\nTo send it: forge call {args.spec} {args.tool}{extra} --confirm {outcome.token}")
    return 1 if outcome.is_error else 0


def _cmd_serve(args: argparse.Namespace) -> int:
    options = http_options(args)  # refuses an unsafe endpoint before loading anything
    specs = [_load(args, str(path)) for path in find_specs([Path(p) for p in args.specs])]
    if not specs:
        raise ForgeError("no spec files found in " + ", ".join(args.specs))
    # The SDK is imported only now: a large OpenAPI document's parsed form is garbage by
    # here, and its memory is reused for the SDK's instead of adding to the peak (GitHub's
    # REST document, cold: peak RSS 153 -> 116 MB).
    gc.collect()
    gc.freeze()  # the specs live as long as the process: later collections need not walk them
    from forge.server import serve_stdio
    from forge.serving import audit_sink, check_spec_names, serve_http, serve_policy

    check_spec_names(specs)
    gate = Gate(_token_store(args.token_store), lifetime=args.token_lifetime)
    engine = Engine(
        specs,
        gate=gate,
        dry_run=args.dry_run,
        namespace=len(specs) > 1,
        http=_replay_http(args, specs),
        audit=audit_sink(args),
        max_name_length=args.max_name_length,
    )
    if options is None:
        serve_stdio(engine, serve_policy(args))
    else:
        serve_http(engine, serve_policy(args), options)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from forge.loading import read_document
    from forge.openapi import curated_spec

    source, output = Path(args.document), Path(args.output)
    spec, notes = curated_spec(read_document(source), document_path=source, output=output, options=_options(args))
    output.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for note in notes:
        print(note, file=sys.stderr)
    print(f"{output}: {len(spec['tools'])} operations of {source}; edit it, then: forge check {output}")
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(SPEC_SCHEMA, indent=2))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="forge", description="HTTP APIs as MCP servers, with writes held until confirmed."
    )
    parser.add_argument("--version", action="version", version=f"forge {__version__}")
    parser.add_argument("--log-level", default=os.environ.get("FORGE_LOG_LEVEL", "WARNING"), help="stderr log level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    openapi = argparse.ArgumentParser(add_help=False)
    group = openapi.add_argument_group("OpenAPI documents")
    group.add_argument("--base-url", help="the API's base URL (overrides the document's servers)")
    group.add_argument("--max-name-length", type=int, default=64, help="longest tool name (default 64)")
    group.add_argument(
        "--include", action="append", metavar="SELECTOR", help="tag:NAME, op:GLOB, method:GET, path:GLOB"
    )
    group.add_argument("--exclude", action="append", metavar="SELECTOR", help="as --include; wins over it")
    group.add_argument("--auth-env", action="append", metavar="SCHEME=VAR", help="credential variable for a scheme")

    gate = argparse.ArgumentParser(add_help=False)
    gate.add_argument(
        "--token-lifetime",
        type=float,
        default=DEFAULT_LIFETIME,
        metavar="SECONDS",
        help="how long a confirmation token stays valid (default 300)",
    )
    gate.add_argument("--dry-run", action="store_true", help="render every call and send nothing")
    gate.add_argument(
        "--replay", metavar="CASSETTE_DIR", help="answer calls from recorded cassettes (offline; nothing is sent)"
    )

    p = sub.add_parser("check", parents=[openapi], help="validate specs; one line per problem")
    p.add_argument("specs", nargs="+", metavar="SPEC")
    p.add_argument("--schema", help="GraphQL schema (SDL or introspection JSON) to validate operations against")
    p.add_argument("-v", "--verbose", action="store_true", help="also list skipped operations")
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("list", parents=[openapi], help="show a spec's tools")
    p.add_argument("spec", metavar="SPEC")
    p.add_argument("--json", action="store_true", help="print exactly the MCP tools array serve answers")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("call", parents=[openapi, gate], help="make one tool call from the terminal")
    p.add_argument("spec", metavar="SPEC")
    p.add_argument("tool", metavar="TOOL")
    p.add_argument("--args", help="arguments as a JSON object")
    p.add_argument("--confirm", metavar="TOKEN", help="the token a write's preview gave")
    p.add_argument("--token-store", default="sqlite", help="sqlite (default, in the state dir), sqlite:PATH, memory")
    p.set_defaults(func=_cmd_call)

    p = sub.add_parser("serve", parents=[openapi, gate], help="serve specs over MCP (stdio, or HTTP with --http)")
    p.add_argument("specs", nargs="+", metavar="SPEC")
    p.add_argument(
        "--token-store", default="memory", help="memory (default), sqlite, sqlite:PATH, redis://HOST:PORT[/DB]"
    )
    from forge.serve_args import add_serve_arguments

    add_serve_arguments(p)
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("schema", help="print the JSON Schema of the spec format")
    p.set_defaults(func=_cmd_schema)

    p = sub.add_parser("import", parents=[openapi], help="write a curated spec of an OpenAPI document's operations")
    p.add_argument("document", metavar="DOC")
    p.add_argument("-o", "--output", required=True, metavar="SPEC", help="the forge spec to write")
    p.set_defaults(func=_cmd_import)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="%(name)s: %(levelname)s: %(message)s")
    try:
        return int(args.func(args))
    except SpecError as exc:
        for issue in exc.issues:
            print(issue, file=sys.stderr)
        return exc.exit_code
    except ForgeError as exc:
        print(f"forge: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if os.environ.get("FORGE_DEBUG"):
            raise
        print(
            f"forge: internal error: {type(exc).__name__}: {exc} (set FORGE_DEBUG=1 for a traceback)", file=sys.stderr
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
