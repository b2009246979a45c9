"""Every HTTP answer docfact's process reads once a model is in use stops at
``MAX_ANSWER_BYTES``.

litellm reaches a model along several roads: the OpenAI SDK (OpenAI-compatible servers), its
own HTTP handler (Anthropic's and Gemini's native APIs and most others), through a proxy
from the environment, over httpx's own transport or aiohttp's. It reads an answer whole
before docfact sees it, so a server (or anything on the way) that sends gigabytes would
cost that memory once before docfact's cap on an answer's length applied. Every one of
those roads sends through ``httpx.Client.send`` or ``httpx.AsyncClient.send`` (a transport
or a proxy mount sits below them), so the cap sits there: the body is counted as it
arrives and the read stops at the cap; a declared Content-Length over it is refused before
any byte is read. Compression is asked away (``Accept-Encoding: identity``) and a
compressed answer refused, as its decoded size is not what arrives (a 32 KiB gzip body
can decode to a gigabyte). The roads that do not use httpx are refused by provider
(``UNCAPPED_PROVIDERS``) and, for Vertex AI, by litellm's route to the model.

Nothing else in docfact's process speaks HTTP (model files are read from disk only), so
the cap is installed for the whole process, once, when litellm is imported.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

# Far above any answer docfact asks for (each is capped at 1,000,000 characters after the
# read, and n samples share one body), far below what would hurt.
MAX_ANSWER_BYTES = 32 << 20

# litellm providers whose answers do not come through httpx: aiohttp_openai speaks aiohttp
# itself; sagemaker's completion route reads through boto3. (petals does too when no
# api_base is given: its SDK joins a swarm.)
UNCAPPED_PROVIDERS = frozenset({"aiohttp_openai", "sagemaker"})
# litellm's Vertex AI routes that send through httpx. Its other one, the models before
# Gemini (chat-bison, text-bison, an endpoint's bare number), answers through Google's own
# SDK (gRPC or requests), past the cap, whenever that SDK is installed.
VERTEX_HTTPX_ROUTES = frozenset(
    {"gemini", "partner_models", "gemma", "model_garden", "agent_engine"}
)


class AnswerTooLarge(Exception):
    """The body of a model's answer is over the cap; the message says so in one line."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is over the {limit:,} bytes docfact reads")


class AnswerCompressed(AnswerTooLarge):
    """The server compressed its answer though docfact asked it not to."""

    def __init__(self, encoding: str) -> None:
        Exception.__init__(
            self, f"the answer is compressed ({encoding}), which docfact does not read"
        )


def uncapped_provider(model: str, api_base: str | None = None) -> str | None:
    """The message refusing ``model`` when litellm would read its answers past the cap
    (asked once litellm is imported: its own routing decides Vertex AI's road)."""
    provider, _, name = model.partition("/")
    if provider == "vertex_ai" and _vertex_route(name, api_base) not in VERTEX_HTTPX_ROUTES:
        return (
            f"model {model} is reached through Google's Vertex AI SDK, which reads answers "
            "outside docfact's size cap; use a Gemini model (vertex_ai/gemini-...) or an "
            "OpenAI-compatible route (openai/...) instead"
        )
    if provider == "petals" and not api_base:
        return (
            "model provider petals without an api_base reaches its swarm through its own "
            "SDK, which reads answers outside docfact's size cap; give its api_base or use "
            "an OpenAI-compatible route (openai/...) instead"
        )
    if provider not in UNCAPPED_PROVIDERS:
        return None
    return (
        f"model provider {provider} reads answers outside docfact's size cap; "
        "use an OpenAI-compatible route (openai/...) instead"
    )


def _vertex_route(name: str, api_base: str | None) -> str | None:
    """The route litellm takes to the Vertex AI model ``name`` (None, and so refused, when
    this litellm cannot say)."""
    try:
        from litellm.llms.vertex_ai.common_utils import get_vertex_ai_model_route
    except ImportError:
        return None
    route = get_vertex_ai_model_route(name, {"api_base": api_base} if api_base else None)
    return str(route.value)


def capped_client() -> httpx.AsyncClient:
    """The AsyncClient litellm's OpenAI-compatible calls use. It keeps no connection
    alive: each `docfact check` pass runs its own event loop, and a pooled connection
    belongs to the loop that opened it. (The cap itself is ``install_cap``'s.)"""
    return httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0))


@functools.cache
def install_cap(limit: int = MAX_ANSWER_BYTES) -> None:
    """Make every httpx client of this process read answers only up to ``limit`` bytes."""
    async_send, sync_send = httpx.AsyncClient.send, httpx.Client.send

    async def capped_async_send(
        self: httpx.AsyncClient, request: httpx.Request, *, stream: bool = False, **kw: Any
    ) -> httpx.Response:
        request.headers["Accept-Encoding"] = "identity"
        response = await async_send(self, request, stream=True, **kw)
        try:
            _refuse_head(response, limit)
            response.stream = _CappedAsyncStream(response.stream, limit)
            if not stream:
                await response.aread()
        except BaseException:
            await response.aclose()
            raise
        return response

    def capped_sync_send(
        self: httpx.Client, request: httpx.Request, *, stream: bool = False, **kw: Any
    ) -> httpx.Response:
        request.headers["Accept-Encoding"] = "identity"
        response = sync_send(self, request, stream=True, **kw)
        try:
            _refuse_head(response, limit)
            response.stream = _CappedSyncStream(response.stream, limit)
            if not stream:
                response.read()
        except BaseException:
            response.close()
            raise
        return response

    httpx.AsyncClient.send = capped_async_send  # type: ignore[method-assign]
    httpx.Client.send = capped_sync_send  # type: ignore[method-assign]


def _refuse_head(response: httpx.Response, limit: int) -> None:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise AnswerTooLarge(limit)
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise AnswerCompressed(encoding[:40])


def _tally(read: int, chunk: bytes, limit: int) -> int:
    read += len(chunk)
    if read > limit:
        raise AnswerTooLarge(limit)
    return read


class _CappedAsyncStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream | httpx.SyncByteStream, limit: int) -> None:
        assert isinstance(inner, httpx.AsyncByteStream)  # an async client's response
        self._inner, self._limit = inner, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._inner:
            read = _tally(read, chunk, self._limit)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CappedSyncStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream | httpx.SyncByteStream, limit: int) -> None:
        assert isinstance(inner, httpx.SyncByteStream)  # a sync client's response
        self._inner, self._limit = inner, limit

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self._inner:
            read = _tally(read, chunk, self._limit)
            yield chunk

    def close(self) -> None:
        self._inner.close()


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
