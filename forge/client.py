"""The only HTTP I/O: send a RenderedRequest once, map transport failures to forge errors.

No retries, ever: a write that may have reached the API is reported as OutcomeUnknown,
never sent again. The transport is injectable (tests pass `httpx.MockTransport`).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from forge.errors import OutcomeUnknown, UpstreamUnreachable
from forge.render import RenderedRequest

__all__ = ["MAX_BODY", "HttpClient", "Response"]

MAX_BODY = 8 * 1024 * 1024  # bytes of a response body read; the rest is left unread


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    cut: bool = False  # the body was longer than MAX_BODY and only its start was read

    @property
    def content_type(self) -> str:
        return next((v for k, v in self.headers if k.lower() == "content-type"), "")


class HttpClient:
    """Sends rendered requests over one pooled httpx client."""

    def __init__(self, transport: httpx.AsyncBaseTransport | None = None, max_body: int = MAX_BODY) -> None:
        self._client = httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False)
        self._max_body = max_body

    async def send(self, request: RenderedRequest, timeout: float) -> Response:
        """Send `request` exactly once.

        Raises:
            UpstreamUnreachable: no connection was made, so nothing was sent.
            OutcomeUnknown: the request may have been received; it is not retried.
        """
        outgoing = self._client.build_request(
            request.method, request.url, headers=list(request.headers), content=request.body, timeout=timeout
        )
        try:
            response = await self._client.send(outgoing, stream=True)
            try:
                body, cut = await self._read(response)
            finally:
                await response.aclose()
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
            body=body,
            cut=cut,
        )

    async def _read(self, response: httpx.Response) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > self._max_body:
                return b"".join(chunks)[: self._max_body], True
        return b"".join(chunks), False

    async def aclose(self) -> None:
        await self._client.aclose()


def _origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode()}"
