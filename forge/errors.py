"""forge's one exception hierarchy.

```
ForgeError                      root; `exit_code` is the CLI's exit status
├── SpecError                   a spec or document cannot be loaded (carries issues)
├── RenderError                 a request cannot be built; nothing was sent
│   └── MissingVariable         an environment variable (credential or URL part) is unset
├── GateError                   a confirmation token was refused; nothing was sent
│   ├── TokenUnknown            never issued by this server (or forged)
│   ├── TokenSpent              already used once
│   ├── TokenExpired            past its lifetime
│   └── TokenMismatch           issued for a different request
└── UpstreamError               the HTTP exchange failed
    ├── UpstreamUnreachable     the request never left (connect failure): safe to retry
    └── OutcomeUnknown          sent, but no answer (timeout): never retried
```

Messages never contain credential values: the renderer redacts them before any
exception text is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from forge.issues import Issue

__all__ = [
    "ForgeError",
    "GateError",
    "MissingVariable",
    "OutcomeUnknown",
    "RenderError",
    "SpecError",
    "TokenExpired",
    "TokenMismatch",
    "TokenSpent",
    "TokenUnknown",
    "UpstreamError",
    "UpstreamUnreachable",
]


class ForgeError(Exception):
    """Root of every error forge raises on purpose."""

    exit_code: ClassVar[int] = 1


class SpecError(ForgeError):
    """A spec or OpenAPI document could not be loaded; `issues` says why, one per problem."""

    exit_code: ClassVar[int] = 1

    def __init__(self, issues: Sequence[Issue]) -> None:
        self.issues = tuple(issues)
        super().__init__("\n".join(str(issue) for issue in self.issues))


class RenderError(ForgeError):
    """The request could not be built from the arguments; nothing was sent."""


class MissingVariable(RenderError):
    """An environment variable the request needs is not set."""

    def __init__(self, variable: str, purpose: str) -> None:
        self.variable = variable
        super().__init__(f"environment variable {variable} is not set ({purpose}); nothing was sent")


class GateError(ForgeError):
    """A confirmation token was refused; nothing was sent."""


class TokenUnknown(GateError):
    def __init__(self) -> None:
        super().__init__(
            "confirmation token refused: it was not issued by this server; nothing was sent. "
            "Call the tool again without confirm to get a new preview and token."
        )


class TokenSpent(GateError):
    def __init__(self) -> None:
        super().__init__(
            "confirmation token refused: it has already been used; nothing was sent. "
            "Each token confirms one request once."
        )


class TokenExpired(GateError):
    def __init__(self) -> None:
        super().__init__(
            "confirmation token refused: it has expired; nothing was sent. "
            "Call the tool again without confirm to get a new preview and token."
        )


class TokenMismatch(GateError):
    def __init__(self) -> None:
        super().__init__(
            "confirmation token refused: it was issued for a different request "
            "(an argument, the record or the tool changed); nothing was sent. "
            "Call the tool again without confirm to preview this request."
        )


class UpstreamError(ForgeError):
    """The HTTP exchange with the API failed."""


class UpstreamUnreachable(UpstreamError):
    """The request never reached the API (connection refused, DNS failure, connect timeout)."""


class OutcomeUnknown(UpstreamError):
    """The request was sent but no complete answer came back; it is never retried."""
