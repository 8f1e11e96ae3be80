"""Plain JSON values out of parsed documents (YAML gives dates and integer keys)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["json_value", "small"]


def json_value(value: Any) -> Any:
    """`value` as JSON data: dates become ISO text, keys become strings."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    return str(value)


def small(value: Any, limit: int = 200) -> bool:
    """True when `value` is short enough to show in a tool definition."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return len(str(value)) <= limit
    try:
        return len(json.dumps(json_value(value))) <= limit
    except (TypeError, ValueError):
        return False
