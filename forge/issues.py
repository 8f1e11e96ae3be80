"""Problems found in a spec, as values: checks return them, the edges print them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Issue"]


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem in one place of a spec.

    Attributes:
        file: the spec or document the problem is in, as the user named it.
        message: what is wrong, naming the field (`path uses {id}, which is not a parameter`).
        tool: the tool it belongs to, or None for spec-level problems.
        check: a short stable name for the kind of check (`path-placeholders`), used to
            group issues into generated tests.
    """

    file: str
    message: str
    tool: str | None = None
    check: str = "format"

    def __str__(self) -> str:
        where = f"{self.file}: tool {self.tool}: " if self.tool else f"{self.file}: "
        return where + self.message
