"""pygls's protocol, made to answer every request and to keep quiet about harmless
notifications.

- A request whose params cannot be read (a negative line, a string for a number) was
  dropped by pygls before it reached any handler: the client waited for ever. It is
  answered with InvalidParams; a notification like it is logged and dropped.
- A client may send didChange or didClose for a document it never opened (or closed twice,
  after a reconnect); pygls raised KeyError there and showed "Error in server" to the user.
  Such a notification changes nothing: it is logged and dropped.
- After ``shutdown`` pygls dropped every request unanswered; LSP says they get
  InvalidRequest (notifications other than ``exit`` are dropped).
- Frames are read by ``framing.read_messages``, which no frame stops (see there)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from enum import Enum
from typing import TYPE_CHECKING, Any

import pygls.server
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, lsp_method

from .framing import read_messages

if TYPE_CHECKING:
    from pygls.protocol.json_rpc import RPCMessage

log = logging.getLogger(__name__)


class _Dealt(Enum):
    WITH = "a message already answered or dropped while it was read"


_DEALT_WITH = _Dealt.WITH
# What pygls's built-in handlers yield: the user's handler, its arguments, its keywords.
_Dispatch = Iterator[tuple[Callable[..., object], tuple[object, ...], dict[str, Any] | None]]


class DocfactProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> RPCMessage | _Dealt:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            method = data.get("method", "?")
            if "id" in data and "method" in data:  # a request: it is owed an answer
                log.warning(
                    "%s request with params that cannot be read: %s", method, error.__cause__
                )
                self._send_response(
                    data["id"],
                    error=JsonRpcInvalidParams(
                        message=f"invalid params for {method}: {error.__cause__}"
                    ).to_response_error(),
                )
            else:
                log.warning("%s message that cannot be read, ignored: %s", method, error.__cause__)
            return _DEALT_WITH

    def handle_message(self, message: RPCMessage | _Dealt) -> None:
        if message is _DEALT_WITH:
            return
        method = getattr(message, "method", None)
        if self._shutdown and method not in (None, types.EXIT) and hasattr(message, "id"):
            log.warning("%s request after shutdown: refused", method)
            self._send_response(
                message.id,
                error=JsonRpcInvalidRequest(
                    message=f"{method}: the server is shut down"
                ).to_response_error(),
            )
            return
        super().handle_message(message)

    def is_open(self, uri: str, method: str) -> bool:
        if uri in self.workspace.text_documents:
            return True
        log.info("%s for %s, which is not open: ignored", method, uri)
        return False

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> _Dispatch:
        if self.is_open(params.text_document.uri, types.TEXT_DOCUMENT_DID_CHANGE):
            yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> _Dispatch:
        if self.is_open(params.text_document.uri, types.TEXT_DOCUMENT_DID_CLOSE):
            yield from super().lsp_text_document__did_close(params)


# Every docfact server reads its frames with read_messages (pygls.server's loop is a name
# looked up at start: start_io and start_tcp both use it).
pygls.server.run_async = read_messages
