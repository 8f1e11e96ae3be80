"""forge: HTTP APIs as MCP servers, from a declarative description, with writes held until confirmed."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
