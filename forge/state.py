"""Where forge keeps per-user state: the SQLite token store and the compiled-spec cache."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["state_dir"]


def state_dir() -> Path:
    """`$FORGE_STATE_DIR`, else the platform's user state directory for forge."""
    override = os.environ.get("FORGE_STATE_DIR")
    return Path(override) if override else Path(platformdirs.user_state_dir("forge"))
