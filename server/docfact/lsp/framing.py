"""Reading LSP frames (``Content-Length: N``, a blank line, N bytes of JSON) so that no
frame stops the server.

pygls's loop, which this replaces, had two ways to go quiet for good: a frame without a
valid ``Content-Length`` (missing, negative, not a number) left its body glued to the next
header line, and every later frame with it, so nothing was ever answered again; and a body
nested deeper than the JSON decoder can go (RecursionError) was logged as a traceback and
its request never answered; a length of terabytes was a MemoryError. Here such a frame
costs only itself: one line in the log, the
reader finds the next ``Content-Length`` header, and a request too deep to read is answered
with InvalidRequest when its id can be found.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.protocol import JsonRPCProtocol

log = logging.getLogger("docfact")

_HEADER = b"content-length:"
# A larger length is not believed: reading it would allocate it at once (MemoryError), and
# no document an editor sends comes near it.
MAX_MESSAGE_BYTES = 256 << 20
# The tokens that decide nesting: strings (which may hold brackets), brackets, and the
# top-level "id" member with its value.
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_ID_VALUE = re.compile(rb'\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


class Reader(Protocol):
    def readline(self) -> Awaitable[bytes]: ...
    def readexactly(self, n: int) -> Awaitable[bytes]: ...


async def read_messages(
    stop_event: threading.Event,
    reader: Reader,
    protocol: JsonRPCProtocol,
    logger: logging.Logger | None = None,
    error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None,
) -> None:
    """pygls's ``run_async``, with the same arguments, that survives any frame."""
    length: int | None = None
    unsaid = False  # a header line of the current frame was read, and nothing logged of it
    while not stop_event.is_set():
        line = await reader.readline()
        if not line:
            return
        at = line.lower().find(_HEADER)
        if at > 0:  # the body of a frame that had no valid length, then the next header
            log.warning("LSP: %d bytes without a valid Content-Length were skipped", at)
            line = line[at:]
        if line.strip():
            unsaid = True
            name, _, value = line.partition(b":")
            if name.strip().lower() == _HEADER[:-1]:
                length = _length(value)
                unsaid = length is not None
            continue
        if length is None:
            if unsaid:
                log.warning(
                    "LSP: a message without a Content-Length header was skipped; "
                    "reading on from the next header"
                )
            unsaid = False
            continue
        try:
            body = await reader.readexactly(length)
        except asyncio.IncompleteReadError:
            return
        if len(body) < length:
            return  # the input ended
        length, unsaid = None, False
        _handle(body, protocol, error_handler)


def _length(value: bytes) -> int | None:
    try:
        length = int(value.strip())
    except ValueError:
        length = -1
    if not 0 <= length <= MAX_MESSAGE_BYTES:
        log.warning(
            "LSP: Content-Length %r is not a length docfact reads (at most %d)",
            value.strip()[:40].decode("latin-1"),
            MAX_MESSAGE_BYTES,
        )
        return None
    return length


def _handle(
    body: bytes,
    protocol: JsonRPCProtocol,
    error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None,
) -> None:
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except RecursionError:
        _refuse(body, protocol, JsonRpcInvalidRequest, "the message is nested too deep to read")
        return
    except ValueError as error:  # not JSON, not UTF-8
        _refuse(body, protocol, JsonRpcParseError, f"the message is not JSON: {error}")
        return
    try:
        protocol.handle_message(message)
    except RecursionError:
        _refuse(body, protocol, JsonRpcInvalidRequest, "the message is nested too deep to handle")
    except Exception as error:  # as pygls's loop: said, and the server goes on
        log.warning("LSP: a message could not be handled: %s", error)
        if error_handler is not None:
            error_handler(error, JsonRpcException)


def _refuse(
    body: bytes, protocol: JsonRPCProtocol, error: type[JsonRpcException], reason: str
) -> None:
    """Say ``reason`` in the log, and answer the request with ``error`` when its id can be
    found (a notification is only logged)."""
    request_id = top_level_id(body)
    log.warning("LSP: %s (%d bytes, id %s)", reason, len(body), request_id)
    if request_id is not None:
        protocol._send_response(request_id, error=error(message=reason).to_response_error())


def top_level_id(body: bytes) -> int | str | None:
    """The ``id`` member of the JSON object ``body``, found without decoding its nesting."""
    depth = 0
    for token in _TOKEN.finditer(body):
        text = token.group()
        if text in (b"[", b"{"):
            depth += 1
        elif text in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and text == b'"id"':
            value = _ID_VALUE.match(body, token.end())
            if value is not None:
                found = json.loads(value.group(1))
                return found if isinstance(found, (int, str)) else None
    return None
