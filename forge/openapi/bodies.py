"""Request bodies -> one argument (3.x `requestBody`, 2.0 `in: body`) or form fields (2.0 `formData`).

JSON bodies (`application/json`, `*+json`, `*/*`) are sent as JSON; form-urlencoded and
multipart bodies as forms, with nested objects in bracket notation (Stripe's style).
Other media types (XML, plain text, octet streams) cannot be rendered: if the body is
the only way to call the operation, the operation is skipped with that reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from forge.openapi.params import Unsupported
from forge.openapi.refs import Resolver
from forge.openapi.schemas import Converter, conform_top, describe
from forge.spec import BodyEncoding

__all__ = ["Body", "FormField", "request_body", "swagger_body"]

_FORM = "application/x-www-form-urlencoded"
_MULTIPART = "multipart/form-data"


@dataclass(frozen=True, slots=True)
class Body:
    """The whole body as one argument."""

    schema: Mapping[str, Any]
    required: bool
    encoding: BodyEncoding
    indexed_arrays: bool = False


@dataclass(frozen=True, slots=True)
class FormField:
    """One Swagger 2.0 formData parameter."""

    name: str
    schema: Mapping[str, Any]
    required: bool


def _is_json(media: str) -> bool:
    media = media.split(";")[0].strip().lower()
    return media in ("application/json", "*/*", "application/*") or media.endswith(("+json", "/json"))


def _encoding(media_types: Sequence[str]) -> tuple[str, BodyEncoding] | None:
    for media in media_types:
        if _is_json(media):
            return media, "json"
    for media in media_types:
        base = media.split(";")[0].strip().lower()
        if base == _FORM:
            return media, "form"
        if base == _MULTIPART:
            return media, "multipart"
    return None


def request_body(operation: Mapping[str, Any], resolver: Resolver, converter: Converter) -> Body | None:
    """The 3.x request body, or None when the operation has none."""
    if "requestBody" not in operation:
        return None
    body = resolver.deref(operation["requestBody"])
    if not isinstance(body, Mapping):
        return None
    content = body.get("content")
    required = body.get("required") is True
    if not isinstance(content, Mapping) or not content:
        return None
    chosen = _encoding([str(k) for k in content])
    if chosen is None:
        if not required:
            return None
        raise Unsupported("request body only as " + ", ".join(sorted(map(str, content))) + ", which forge cannot send")
    media, encoding = chosen
    entry = content[media] if isinstance(content[media], Mapping) else {}
    schema = dict(converter.input(entry.get("schema", {})))
    desc = describe(body.get("description"))
    if "description" not in schema:
        # Every argument gets a description: without the document's, say what it is.
        schema["description"] = desc or f"The request body, sent as {media}."
    if encoding != "json" and schema.get("type") not in (None, "object"):
        raise Unsupported(f"a {media} body whose schema is not an object")
    styles = entry.get("encoding")
    deep = isinstance(styles, Mapping) and any(
        isinstance(e, Mapping) and e.get("style") == "deepObject" for e in styles.values()
    )
    return Body(conform_top(schema), required, encoding, indexed_arrays=deep and encoding != "json")


def swagger_body(
    raw_params: Sequence[Mapping[str, Any]],
    operation: Mapping[str, Any],
    document: Mapping[str, Any],
    converter: Converter,
) -> tuple[Body | None, list[FormField], BodyEncoding]:
    """2.0: the `in: body` parameter, or the `formData` fields and how to encode them."""
    body: Body | None = None
    fields: list[FormField] = []
    multipart = False
    for raw in raw_params:
        if raw.get("in") == "body":
            schema = dict(converter.input(raw.get("schema", {})))
            desc = describe(raw.get("description"))
            if desc and "description" not in schema:
                schema["description"] = desc
            body = Body(conform_top(schema), raw.get("required") is True, "json")
        elif raw.get("in") == "formData":
            schema = dict(converter.input({k: v for k, v in raw.items() if k not in ("name", "in", "required")}))
            multipart = multipart or raw.get("type") == "file"
            fields.append(FormField(str(raw["name"]), conform_top(schema), raw.get("required") is True))
    if body is not None:
        consumes = operation.get("consumes", document.get("consumes"))
        if isinstance(consumes, list) and consumes and _encoding([str(c) for c in consumes]) is None and body.required:
            raise Unsupported("request body only as " + ", ".join(map(str, consumes)) + ", which forge cannot send")
    consumes = operation.get("consumes", document.get("consumes")) or []
    if (
        isinstance(consumes, list)
        and any(str(c).lower().startswith(_MULTIPART) for c in consumes)
        and not any(str(c).lower().startswith(_FORM) for c in consumes)
    ):
        multipart = True
    return body, fields, "multipart" if multipart else "form"
