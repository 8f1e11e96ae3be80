"""Pure: what a caller sees: previews of held writes, and API responses as tool results."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from forge.render import RenderedRequest
from forge.schema import CONFIRM, validate_response
from forge.spec import GraphQLOperation, Tool

if TYPE_CHECKING:
    from forge.client import Response

__all__ = ["Outcome", "error", "format_response", "preview", "truncate"]

ERROR_EXCERPT = 2_000


@dataclass(frozen=True, slots=True)
class Outcome:
    """A tool call's result, independent of MCP (the server and the CLI both render it)."""

    text: str
    is_error: bool = False
    structured: Mapping[str, Any] | None = None
    token: str | None = None


def error(text: str) -> Outcome:
    return Outcome(text=text, is_error=True)


def truncate(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters with a notice saying how much went."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    return (
        text[:limit] + f"\n\n[forge: response truncated: {cut:,} of {len(text):,} characters cut; "
        "what is shown is not complete JSON]"
    )


def _body_text(body: bytes | None, content_type: str) -> str:
    if not body:
        return "(no body)"
    text = body.decode("utf-8", errors="replace")
    if "json" in content_type:
        try:
            return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        except ValueError:
            return text
    return text


def describe_request(request: RenderedRequest) -> str:
    """The request as a person reads it: method, URL, query, header names, body. Redacted."""
    lines = [f"{request.method} {request.redact(request.url)}"]
    query = parse_qsl(urlsplit(request.url).query, keep_blank_values=True)
    if query:
        lines.append("Query:")
        lines += [f"  {request.redact(k)} = {request.redact(v)}" for k, v in query]
    lines.append("Headers (names only): " + ", ".join(request.header_names))
    content_type = request.header("content-type") or ""
    if request.body is not None and content_type.startswith("application/x-www-form-urlencoded"):
        lines.append("Body (form):")
        fields = parse_qsl(request.body.decode("utf-8", errors="replace"), keep_blank_values=True)
        lines += [f"  {request.redact(k)} = {request.redact(v)}" for k, v in fields]
    elif request.body is not None:
        lines.append("Body:")
        body = _body_text(request.body, content_type)
        lines += ["  " + line for line in request.redact(body).splitlines()]
    return "\n".join(lines)


def preview(tool: Tool, request: RenderedRequest, token: str, lifetime: float) -> Outcome:
    minutes = f"{lifetime / 60:g} minutes" if lifetime >= 60 else f"{lifetime:g} seconds"
    text = (
        f"This has NOT been sent. {tool.name} is a write; this is the exact request it would send:\n\n"
        f"{describe_request(request)}\n\n"
        f'To send it, call {tool.name} again with the same arguments and {CONFIRM}="{token}". '
        f"The token works once, for exactly this request, within {minutes}."
    )
    return Outcome(text=text, token=token)


def _decode_json(response: Response) -> Any:
    if "json" not in response.content_type and not response.body.lstrip().startswith((b"{", b"[")):
        return None
    try:
        return json.loads(response.body)
    except ValueError:
        return None


def format_response(tool: Tool, request: RenderedRequest, response: Response, limit: int) -> Outcome:
    """Turn an API response into the tool's result (errors for 4xx/5xx and GraphQL errors)."""
    text = response.body.decode("utf-8", errors="replace")
    if 300 <= response.status < 400:
        location = next((v for k, v in response.headers if k.lower() == "location"), "(no Location header)")
        return error(
            f"HTTP {response.status} {response.reason} from {request.method} {request.redact(request.url)}: "
            f"redirect to {request.redact(location)} not followed (forge sends each request exactly once, "
            "to the URL it previewed)"
        )
    if response.status >= 400:
        excerpt = request.redact(text[:ERROR_EXCERPT])
        more = (
            f"\n[forge: {len(text) - ERROR_EXCERPT:,} more characters not shown]" if len(text) > ERROR_EXCERPT else ""
        )
        return error(
            f"HTTP {response.status} {response.reason} from {request.method} "
            f"{request.redact(request.url)}\n{excerpt}{more}"
        )
    if response.cut:
        size = len(response.body)
        return Outcome(
            text=request.redact(truncate(text, limit)) + f"\n\n[forge: the response was over {size:,} "
            "bytes; only that much was read]",
            structured={"drift": [f"response over {size:,} bytes; only the text (cut) is returned"]}
            if tool.response_schema is not None
            else None,
        )
    data = _decode_json(response)
    if isinstance(tool.request, GraphQLOperation) and isinstance(data, dict) and data.get("errors"):
        shown = json.dumps(data["errors"], indent=2, ensure_ascii=False)
        return error(request.redact(truncate(f"GraphQL errors:\n{shown}", limit)))
    full = text if data is None else json.dumps(data, ensure_ascii=False)
    body = request.redact(truncate(full, limit))
    if tool.response_schema is None:
        return Outcome(text=body or f"HTTP {response.status} {response.reason} (no body)")
    if len(full) > limit:
        # Structured content is not truncated by anyone, so a huge body would reach the
        # model whole; the text carries the cut version and the drift list says why.
        return Outcome(
            text=body,
            structured={
                "drift": [
                    f"response of {len(full):,} characters is over the "
                    f"{limit:,}-character limit; only the text (cut) is returned"
                ]
            },
        )
    if any(secret in full for secret in request.secrets):
        data = json.loads(request.redact(json.dumps(data)))
    drift = validate_response(tool, data)
    if not drift:
        return Outcome(text=body, structured={"result": data})
    note = "[forge: the response differs from the API's documented schema: " + "; ".join(drift) + "]"
    return Outcome(text=f"{body}\n\n{note}", structured={"unvalidated": data, "drift": drift})
