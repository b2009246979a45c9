"""The HTTP client litellm's OpenAI-compatible calls go through: an answer's body is read
only up to ``MAX_ANSWER_BYTES``.

litellm reads a response whole before docfact sees it, so a server (or anything on the way)
that sends gigabytes would cost that memory once before docfact's cap on an answer's
length applied. Here the body is counted as it arrives and the read stops at the cap: a
declared Content-Length over it is refused before any byte is read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

# Far above any answer docfact asks for (each is capped at 1,000,000 characters after the
# read, and n samples share one body), far below what would hurt.
MAX_ANSWER_BYTES = 32 << 20


class AnswerTooLarge(Exception):
    """The body of a model's answer is over the cap; the message says so in one line."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is over the {limit:,} bytes docfact reads")


def capped_client(limit: int = MAX_ANSWER_BYTES) -> httpx.AsyncClient:
    """An AsyncClient whose responses stop at ``limit`` bytes. It keeps no connection
    alive: each `docfact check` pass runs its own event loop, and a pooled connection
    belongs to the loop that opened it."""
    inner = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_keepalive_connections=0))
    return httpx.AsyncClient(transport=_CappedTransport(inner, limit))


class _CappedTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, limit: int) -> None:
        self._inner, self._limit = inner, limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._limit:
            await response.aclose()
            raise AnswerTooLarge(self._limit)
        assert isinstance(response.stream, httpx.AsyncByteStream)  # from an async transport
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_CappedStream(response.stream, self._limit),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CappedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, limit: int) -> None:
        self._inner, self._limit = inner, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._inner:
            read += len(chunk)
            if read > self._limit:
                raise AnswerTooLarge(self._limit)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def too_large(error: BaseException) -> AnswerTooLarge | None:
    """The AnswerTooLarge behind ``error`` (the OpenAI SDK and litellm each wrap it)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, AnswerTooLarge):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
