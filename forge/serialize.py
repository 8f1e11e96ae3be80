"""Pure value serialization for URLs and forms, following OpenAPI's style rules.

See https://spec.openapis.org/oas/v3.1.0#style-values. Scalars become text the way
APIs expect: booleans lowercase, integral numbers without a fraction, null omitted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

__all__ = [
    "encode_path_value",
    "flatten_form",
    "scalar_text",
    "serialize_path",
    "serialize_query",
]

_DELIMITERS = {"form": ",", "spaceDelimited": " ", "pipeDelimited": "|"}


def scalar_text(value: Any) -> str:
    """One value as text: `true`/`false`, `3` not `3.0`, JSON for nested structures."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def encode_path_value(text: str) -> str:
    """Percent-encode text for one path segment.

    `/` is encoded, so a value cannot add segments, and a value made only of dots is
    encoded too, because clients resolve `.` and `..` segments (RFC 3986 section 5.2.4):
    an id of `..` must not reach the parent endpoint.
    """
    encoded = quote(text, safe="")
    if encoded and set(encoded) == {"."}:
        return "%2E" * len(encoded)
    return encoded


def serialize_path(name: str, value: Any, style: str = "simple", explode: bool = False) -> str:
    """Render a path parameter, already percent-encoded."""
    enc = encode_path_value
    if isinstance(value, Mapping):
        pairs = [(str(k), scalar_text(v)) for k, v in value.items() if v is not None]
        if explode:
            body = ("," if style == "simple" else "." if style == "label" else ";").join(
                f"{enc(k)}={enc(v)}" for k, v in pairs
            )
        else:
            body = ",".join(f"{enc(k)},{enc(v)}" for k, v in pairs)
        if style == "label":
            return "." + body
        if style == "matrix":
            return (";" + body) if explode else f";{enc(name)}={body}"
        return body
    if isinstance(value, (list, tuple)):
        items = [enc(scalar_text(v)) for v in value if v is not None]
        if style == "label":
            return "." + ("." if explode else ",").join(items)
        if style == "matrix":
            if explode:
                return "".join(f";{enc(name)}={item}" for item in items)
            return f";{enc(name)}=" + ",".join(items)
        return ",".join(items)
    text = enc(scalar_text(value))
    if style == "label":
        return "." + text
    if style == "matrix":
        return f";{enc(name)}={text}"
    return text


def serialize_query(name: str, value: Any, style: str = "form", explode: bool = True) -> list[tuple[str, str]]:
    """Render one query (or cookie) parameter as (key, value) pairs, not yet encoded."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        items = [(str(k), v) for k, v in value.items() if v is not None]
        if style == "deepObject":
            return [(f"{name}[{k}]", scalar_text(v)) for k, v in items]
        if explode:
            return [(k, scalar_text(v)) for k, v in items]
        delimiter = _DELIMITERS.get(style, ",")
        return [(name, delimiter.join(f"{k}{delimiter}{scalar_text(v)}" for k, v in items))]
    if isinstance(value, (list, tuple)):
        texts = [scalar_text(v) for v in value if v is not None]
        if explode and style == "form":
            return [(name, text) for text in texts]
        return [(name, _DELIMITERS.get(style, ",").join(texts))]
    return [(name, scalar_text(value))]


def flatten_form(value: Mapping[str, Any], *, indexed_arrays: bool = False) -> list[tuple[str, str]]:
    """Flatten a body object into form fields.

    Arrays of scalars repeat the key (`tags=a&tags=b`, OpenAPI's form style), or with
    `indexed_arrays` take an index (`tags[0]=a`, deepObject style, as Stripe reads them);
    nested objects and arrays of objects always use bracket notation
    (`metadata[plan]=pro`, `items[0][price]=p_1`).
    """
    return list(_flatten("", value, indexed_arrays))


def _flatten(prefix: str, value: Any, indexed: bool) -> Iterator[tuple[str, str]]:
    if value is None:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _flatten(f"{prefix}[{key}]" if prefix else str(key), item, indexed)
    elif isinstance(value, (list, tuple)):
        if not indexed and all(not isinstance(v, (Mapping, list, tuple)) for v in value):
            for item in value:
                if item is not None:
                    yield prefix, scalar_text(item)
        else:
            for index, item in enumerate(value):
                yield from _flatten(f"{prefix}[{index}]", item, indexed)
    else:
        yield prefix, scalar_text(value)
