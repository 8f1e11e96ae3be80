"""The only HTTP I/O: send a RenderedRequest once, map transport failures to forge errors.

No retries, ever: a write that may have reached the API is reported as OutcomeUnknown,
never sent again. The transport is injectable (tests pass `httpx.MockTransport`).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from forge.errors import OutcomeUnknown, UpstreamUnreachable
from forge.render import RenderedRequest

__all__ = ["HttpClient", "Response"]


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    @property
    def content_type(self) -> str:
        return next((v for k, v in self.headers if k.lower() == "content-type"), "")


class HttpClient:
    """Sends rendered requests over one pooled httpx client."""

    def __init__(self, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._client = httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False)

    async def send(self, request: RenderedRequest, timeout: float) -> Response:
        """Send `request` exactly once.

        Raises:
            UpstreamUnreachable: no connection was made, so nothing was sent.
            OutcomeUnknown: the request may have been received; it is not retried.
        """
        try:
            response = await self._client.request(
                request.method,
                request.url,
                headers=list(request.headers),
                content=request.body,
                timeout=timeout,
            )
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise UpstreamUnreachable(
                f"could not connect to {request.redact(_origin(request.url))}: {type(exc).__name__}; nothing was sent"
            ) from None
        except httpx.TimeoutException as exc:
            raise OutcomeUnknown(
                f"no answer within {timeout:g}s after the request was sent ({type(exc).__name__}): "
                "the API may or may not have acted on it; it was not retried"
            ) from None
        except httpx.HTTPError as exc:
            raise OutcomeUnknown(
                f"the connection failed after the request was sent ({type(exc).__name__}): "
                "the API may or may not have acted on it; it was not retried"
            ) from None
        return Response(
            status=response.status_code,
            reason=response.reason_phrase,
            headers=tuple(response.headers.multi_items()),
            body=response.content,
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def _origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode()}"
