"""End-to-end harness: a real LSP client (pytest-lsp) talking to ``docfact serve`` over stdio.

Every test starts its own server process (the ``start`` fixture of conftest.py) with its own
cache folder (DOCFACT_CACHE_DIR) and its own workspace folder: a tmp copy of
``fixtures/shop``. Waiting is done by polling what the client has received, with a
deadline, so no test depends on sleeps being long enough.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

FIXTURES = Path(__file__).parent / "fixtures"
SERVER_COMMAND = [sys.executable, "-m", "docfact", "serve"]
# A stats-exposing wrapper around the same server (see stats_server.py).
STATS_SERVER_COMMAND = [sys.executable, str(Path(__file__).parent / "stats_server.py")]
TIMEOUT = 15.0  # generous: CI machines are slow; a passing test never waits this long
# Editor settings of most tests. DF102 is a preview rule, selected by its code: the shop's
# `cuont` near miss is the finding most editor tests act on.
EDITOR = {"debounceMs": 10, "select": ["DF102"]}
FAST = {"docfact": EDITOR}
# A second module of the shop that names a helper defined in another file.
USES = '''"""Uses the helpers."""


def unique(items: list) -> list:
    """The items without repeats, as `dedupe_items()` gives them.

    Args:
        items: The items.
    """
    return list(set(items))
'''
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def capabilities(
    *,
    pull: bool = False,
    encodings: list[str] | None = None,
    configuration: bool = False,
    progress: bool = True,
    watched_dynamic: bool = False,
    refresh: bool = False,
) -> types.ClientCapabilities:
    """Client capabilities of a modern editor, with the knobs the tests turn."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings)
        if encodings
        else None,
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True,
                version_support=True,
                code_description_support=True,
                data_support=True,
            ),
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
            ),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[
                            types.CodeActionKind.QuickFix,
                            types.CodeActionKind.SourceFixAll,
                            types.CodeActionKind.Source,
                        ]
                    )
                ),
                is_preferred_support=True,
                data_support=True,
            ),
            diagnostic=types.DiagnosticClientCapabilities(related_document_support=False)
            if pull
            else None,
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(),
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=watched_dynamic
            ),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=refresh)
            if pull
            else None,
            workspace_folders=True,
        ),
        window=types.WindowClientCapabilities(work_done_progress=progress, show_message=None),
    )


class DocfactClient(LanguageClient):
    """pytest-lsp's client, plus a log of every publishDiagnostics and document helpers."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []
        self.configuration_requests = 0
        self.statuses: list = []  # the server's docfact/status notifications (the status item)
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.server_pid: int | None = None
        self.init_result: types.InitializeResult | None = None

    # --- documents -----------------------------------------------------------------

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.resolve().as_uri()
        text = path.read_text(encoding="utf-8") if text is None else text
        self.texts[uri], self.versions[uri] = text, 1
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri,
                    language_id="java" if path.suffix == ".java" else "python",
                    version=1,
                    text=text,
                )
            )
        )
        return uri

    def replace_all(self, uri: str, text: str) -> int:
        """A full-text didChange; returns the new version."""
        self.versions[uri] += 1
        self.texts[uri] = text
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return self.versions[uri]

    def edit(self, uri: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> int:
        """Incremental didChange(s) applying ``edits``; returns the new version."""
        text = self.texts[uri]
        # Apply (and send) from the end so earlier ranges stay valid.
        ordered = sorted(
            edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
        )
        changes = []
        for e in ordered:
            text = apply_edit(text, e, encoding)
            changes.append(types.TextDocumentContentChangePartial(range=e.range, text=e.new_text))
        self.versions[uri] += 1
        self.texts[uri] = text
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=changes,
            )
        )
        return self.versions[uri]

    def close(self, uri: str) -> None:
        self.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    # --- waiting -------------------------------------------------------------------

    def published_for(self, uri: str) -> list[types.PublishDiagnosticsParams]:
        return [p for p in self.published if p.uri == uri]

    async def diagnostics_for(
        self,
        uri: str,
        version: int | None = None,
        until: Callable[[list[types.Diagnostic]], bool] | None = None,
        timeout: float = TIMEOUT,
    ) -> list[types.Diagnostic]:
        """The newest published diagnostics of ``uri`` once they are for ``version`` (the
        document's current version by default) and satisfy ``until``."""
        version = self.versions.get(uri) if version is None else version

        def ready():
            mine = self.published_for(uri)
            if not mine or (version is not None and mine[-1].version != version):
                return None
            if until is not None and not until(list(mine[-1].diagnostics)):
                return None
            return list(mine[-1].diagnostics)

        return await wait_until(
            ready,
            timeout,
            f"diagnostics of {uri} (version {version})",
            lambda: [(p.version, codes(p.diagnostics)) for p in self.published_for(uri)[-5:]],
        )


async def wait_until(
    check: Callable[[], Any],
    timeout: float = TIMEOUT,
    what: str = "condition",
    seen: Callable[[], Any] | None = None,
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            detail = f"; last seen: {seen()!r}" if seen else ""
            raise AssertionError(f"timed out after {timeout}s waiting for {what}{detail}")
        await asyncio.sleep(0.01)


def _record_diagnostics(client: DocfactClient, params: types.PublishDiagnosticsParams):
    client.published.append(params)
    client.diagnostics[params.uri] = params.diagnostics


def _record_registration(client: DocfactClient, params: types.RegistrationParams):
    client.registrations.extend(params.registrations)
    return None


def _record_status(client: DocfactClient, params) -> None:
    client.statuses.append(params)


def _answer_configuration(client: DocfactClient, params: types.ConfigurationParams):
    client.configuration_requests += 1
    return [
        client.get_configuration(section=item.section, scope_uri=item.scope_uri)
        for item in params.items
    ]


def make_client(without: tuple[str, ...] = ()) -> DocfactClient:
    """The test client; ``without`` names client-side methods it does not implement."""
    client = DocfactClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_diagnostics
    features[types.CLIENT_REGISTER_CAPABILITY] = _record_registration
    features[types.WORKSPACE_CONFIGURATION] = _answer_configuration
    features["docfact/status"] = _record_status
    for method in without:
        features.pop(method, None)
    register_lsp_features(client, features)
    return client


# --- text edits, as an editor applies them -----------------------------------------------


def _units(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(ch) > 0xFFFF else 1


def offset_of(text: str, position: types.Position, encoding: str = "utf-16") -> int:
    """The string offset of an LSP position; lines end at \\n, \\r\\n or \\r as in LSP."""
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    end = starts[position.line + 1] if position.line + 1 < len(starts) else len(text)
    line = text[start:end].rstrip("\r\n")
    units = 0
    for column, ch in enumerate(line):
        if units >= position.character:
            return start + column
        units += _units(ch, encoding)
    return start + len(line)


def apply_edit(text: str, edit: types.TextEdit, encoding: str = "utf-16") -> str:
    start = offset_of(text, edit.range.start, encoding)
    end = offset_of(text, edit.range.end, encoding)
    return text[:start] + edit.new_text + text[end:]


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> str:
    for e in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        text = apply_edit(text, e, encoding)
    return text


def find_position(
    text: str, needle: str, occurrence: int = 0, encoding: str = "utf-16", within: int = 0
) -> types.Position:
    """Position of the ``occurrence``-th ``needle`` (optionally ``within`` characters in)."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    index += within
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    prefix = text[line_start:index]
    return types.Position(line=line, character=sum(_units(c, encoding) for c in prefix))


async def wait_for_index(client: DocfactClient) -> None:
    """Until the start-up indexing's work-done progress has ended."""

    def ended():
        reports = client.progress_reports.get("docfact-index", [])
        return any(isinstance(r, types.WorkDoneProgressEnd) for r in reports)

    await wait_until(
        ended,
        TIMEOUT,
        "the end of the workspace indexing progress",
        lambda: client.progress_reports,
    )


async def open_written(client: DocfactClient, path: Path, source: str) -> str:
    """Write ``source`` to ``path``, open it, and wait for its first diagnostics: its uri."""
    path.write_text(source)
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    return uri


def codes(diagnostics) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


def linked_heading(href: str) -> str:
    """The line a rule link opens: the heading of the local docs/rules.md at ``#L<n>``."""
    location, _, fragment = href.partition("#L")
    assert location.startswith("file://") and location.endswith("/docs/rules.md"), href
    lines = Path(location[len("file://") :]).read_text(encoding="utf-8").splitlines()
    return lines[int(fragment) - 1]
