"""FastMCP's OpenAPI integration serving a document over stdio (run with FastMCP's Python).

    .bench/fastmcp-venv/bin/python bench/fastmcp_server.py DOC [--base-url URL]

Defaults as a user would have them: `FastMCP.from_openapi(document, client)`, every route a
tool, output validation on. The base URL is the document's first server unless given.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import httpx2
from fastmcp import FastMCP


def build(document: Path, base_url: str | None) -> FastMCP:
    spec = json.loads(document.read_text())
    url = base_url or next((s["url"] for s in spec.get("servers", []) if "url" in s), "http://127.0.0.1:9")
    client = httpx2.AsyncClient(base_url=url, timeout=30)
    return FastMCP.from_openapi(spec, client=client, name=document.stem)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("document", type=Path)
    parser.add_argument("--base-url")
    args = parser.parse_args()
    build(args.document, args.base_url).run(transport="stdio", show_banner=False)


if __name__ == "__main__":
    main()
