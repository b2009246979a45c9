"""pygls's protocol, less its errors for notifications about documents that are not open.

A client may send didChange or didClose for a document it never opened (or closed twice,
after a reconnect); pygls raises KeyError there and shows "Error in server" to the user.
Such a notification changes nothing: it is logged and dropped."""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method

log = logging.getLogger(__name__)


class DocfactProtocol(LanguageServerProtocol):
    def is_open(self, uri: str, method: str) -> bool:
        if uri in self.workspace.text_documents:
            return True
        log.info("%s for %s, which is not open: ignored", method, uri)
        return False

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if self.is_open(params.text_document.uri, types.TEXT_DOCUMENT_DID_CHANGE):
            yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        if self.is_open(params.text_document.uri, types.TEXT_DOCUMENT_DID_CLOSE):
            yield from super().lsp_text_document__did_close(params)
