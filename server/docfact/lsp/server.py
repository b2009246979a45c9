"""The language server: thin handlers that ask the engine and convert the answers."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import logging
import sys
import threading
from collections.abc import Awaitable
from pathlib import Path
from typing import BinaryIO, ClassVar, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from .. import __version__
from ..checks.evidence import HISTORY
from ..config import ConfigError
from ..graph.documentation import is_documentation_page
from ..model import Finding, Outdated
from ..source.files import SkippedFile, decode_source, read_regular, resolved_inside
from ..source.segment import warm_up
from . import actions, hover
from .background import model_problem, warm_up_models
from .convert import PositionMapper, diagnostic
from .git_history import moves_head
from .judge_pass import EditorJudge
from .lifetime import EndsAtEof, lead_process_group, leave, watch_client
from .ownership import Ownership
from .protocol import DocfactProtocol
from .rewrite_pass import EditorRewriter
from .scheduler import Scheduler
from .score_pass import EditorScorer
from .state import DocumentState, Workspace
from .watched import WatchedFiles

log = logging.getLogger("docfact")
LARGE_TEXT = 256 << 10  # characters: a text whose analysis leaves memory worth giving back


class DocfactServer(LanguageServer):
    protocol: DocfactProtocol

    def __init__(self) -> None:
        super().__init__("docfact", __version__, protocol_cls=DocfactProtocol)
        self.state = Workspace()
        self.scheduler = Scheduler()
        self.pull_diagnostics = False
        # A pull client that cannot be asked to pull again (no refreshSupport: Neovim
        # 0.11) pulls the rules' findings and is sent the model's, which come later.
        self.push_model_findings = False
        self.config_error_shown: str | None = None
        self.initial_settings: dict = {}  # the initializationOptions' docfact section
        self.hover_details = False  # the client shows the card's details by a command link
        self.index_task: asyncio.Future | None = None
        self.judge = EditorJudge(self)
        self.scorer = EditorScorer(self)
        self.rewriter = EditorRewriter(self)
        self._runs: set[asyncio.Future] = (
            set()
        )  # background passes, held: the loop keeps tasks weakly
        self.settled: set[str] = set()  # open documents analysed since they were opened
        self.warnings_shown: set[str] = set()
        self.model_problems: dict[str, str] = {}  # by cause, for the status item
        self._largest_text: dict[str, int] = {}  # per document, since memory was last released
        # Per document, how many times the model's verdicts or scores arrived: part of the
        # pull result id, so a client re-pulling with its previous id gets them.
        self._model_revisions: dict[str, int] = {}
        self.ownership = Ownership(
            lambda: self.state.folders,
            lambda folder: self.state.settings_for(folder / "__init__.py").exclude,
        )
        self.watched = WatchedFiles(self._apply_file_events, self._files_settled, self._indexed)

    # --- what is the user's own ---------------------------------------------------------

    def owned(self, uri: str) -> bool:
        """Whether the document is the user's own source (not a virtual environment's,
        an installed library's, or one that .gitignore or ``exclude`` leaves out)."""
        path = to_fs_path(uri)
        return path is None or self.ownership.owned(Path(path))

    def _apply_file_events(self, batch: list[tuple[Path, bool]]) -> bool:
        """In a worker thread: the events of the user's own files change what is known."""
        changed = pages_changed = False
        for path, deleted in batch:
            if path.name in (".gitignore", "pyproject.toml"):
                self.ownership.forget()
            elif not self.ownership.owned(path):
                continue
            if is_documentation_page(path):
                pages_changed = True  # read once for the batch (a checkout changes hundreds)
            self.state.file_changed(path, deleted)
            changed = True
        if pages_changed:
            self.state.read_documentation()
        return changed

    def _files_settled(self) -> None:
        _recheck_all(self)
        if not self.pull_diagnostics:  # a push client hears of the closed files changed too
            self.start_background(_push_closed_files(self))

    async def read_histories(self) -> None:
        """Read each folder's git history at its HEAD (after the start-up indexing, in a
        worker thread); when what it tells changed, every finding is resolved again and
        shown: open documents re-checked, a pull client refreshed, a push client's closed
        files pushed."""
        await self._indexed()
        if await self.state.histories.update(self.state.folders):
            self._files_settled()

    async def _indexed(self) -> None:
        """Until the start-up indexing is over (file events wait for it)."""
        if self.index_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.index_task)

    # --- analysis --------------------------------------------------------------------

    def document(self, uri: str) -> TextDocument:
        return self.workspace.get_text_document(uri)

    async def refresh(self, uri: str) -> None:
        """Analyse the open document ``uri`` and publish, unless it changed meanwhile."""
        document = self.document(uri)
        version, text = document.version, document.source
        if not self.owned(uri):
            return  # a library's or an environment's file: nothing to say about it
        state = await self.analyzed(uri, text, version)
        if state is None or self.document(uri).version != version:
            return  # a newer edit is already scheduled; never publish stale results
        if not self.pull_diagnostics or self.push_model_findings:
            self.publish(uri, state)
        if state.analysis.skipped:
            self.show_skipped(uri, state.analysis.skipped)
        if uri not in self.settled:
            self.settled.add(uri)
            settle_memory()
        if self.judge.wanted(uri, "onType"):
            self.start_judge(uri)
        if self.state.drifted:
            # Definitions changed: docstrings in other open files may now be wrong (or right).
            self.state.drifted = False
            for other in self.state.open_documents():
                if other != uri:
                    self.schedule(other, 0)

    async def current_state(self, uri: str) -> DocumentState | None:
        """The analysis of an open document's current text; computed now when the
        debounced check has not run yet (a hover or code action right after an edit)."""
        if uri not in self.state.open_documents() or not self.owned(uri):
            return None
        document = self.document(uri)
        state = self.state.current(uri, document.version)
        if state is None:
            state = await self.analyzed(uri, document.source, document.version)
        return state

    async def analyzed(self, uri: str, text: str, version: int | None) -> DocumentState | None:
        """The analysis of this version of an open document, off the event loop; None when
        a newer version arrived meanwhile (the thread cannot be cancelled, so it stops
        itself between statements and units, and a large paste undone at once costs
        nothing more)."""

        def outdated() -> bool:
            return self.document(uri).version != version

        def analyze() -> DocumentState | None:  # in the thread: its awaiter may be cancelled
            try:
                return self.state.analyze(uri, self.path_of(uri), text, version, outdated)
            except Outdated:
                log.info("analysis of %s version %s dropped: a newer version arrived", uri, version)
                return None
            finally:
                self._give_back_memory(uri, len(text))

        return await asyncio.to_thread(analyze)

    def _give_back_memory(self, uri: str, size: int) -> None:
        """After a large text of a document is gone (a paste undone), return the memory
        its analysis used to the system: the allocator keeps freed pages otherwise."""
        largest = max(self._largest_text.get(uri, 0), size)
        if largest >= LARGE_TEXT and size < largest // 4:
            release_memory()
            largest = size
        self._largest_text[uri] = largest

    def text_of(self, uri: str) -> str | None:
        """The text of ``uri``: the editor's when it is open; else the file's, read only
        when it is a regular file of a workspace folder (pygls would read any path, FIFOs
        and /dev/zero included); None, said in the log, when it is not."""
        if uri in self.state.open_documents():
            return self.document(uri).source
        path = resolved_inside(Path(self.path_of(uri)), self.state.folders)
        try:
            if path is None:
                raise SkippedFile("outside the workspace folders (links followed)")
            limit = self.state.settings_for(path).max_file_bytes
            return decode_source(read_regular(path, limit, self.state.folders))
        except SkippedFile as reason:
            log.info("%s, which is not open, is not read: %s", uri, reason)
            return None

    def path_of(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    def start_judge(self, uri: str) -> None:
        self.start_background(self.judge.run(uri))

    def start_scores(self, uri: str, symbol: str | None, trigger: str) -> None:
        self.start_background(self.scorer.run(uri, symbol, trigger))

    def start_background(self, coroutine: Awaitable[None]) -> None:
        run = asyncio.ensure_future(coroutine)
        self._runs.add(run)
        run.add_done_callback(self._runs.discard)

    def republish(self, uri: str) -> None:
        """Send the document's findings again (the model's verdicts arrived)."""
        self._model_revisions[uri] = self._model_revisions.get(uri, 0) + 1
        state = self.state.current(uri, self.document(uri).version)
        if state is None:
            return
        if self.push_model_findings:
            self.publish(uri, state)
        elif self.pull_diagnostics:
            _refresh_pull(self)
        else:
            self.publish(uri, state)

    def publish(self, uri: str, state: DocumentState) -> None:
        """Push the document's findings (to a pull client: those that arrive later only)."""
        shown = _arriving_later(state) if self.push_model_findings else state.all_findings
        diagnostics = self.diagnostics(uri, state, shown)
        log.debug("%s version %s: %d diagnostics", uri, state.version, len(diagnostics))
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=state.version, diagnostics=diagnostics)
        )

    def diagnostics(
        self, uri: str, state: DocumentState, findings: list[Finding] | None = None
    ) -> list[types.Diagnostic]:
        """LSP diagnostics of ``findings`` (the state's, all of them, by default)."""
        mapper = PositionMapper(state.analysis.lines, self.workspace.position_encoding)
        shown = state.all_findings if findings is None else findings
        return [diagnostic(f, mapper, uri, state.analysis.path) for f in shown]

    def scoring_note(self, uri: str) -> str:
        """How to get the scores of a document: configure a model, fix what keeps the
        configured one from working, or ask for them (once its server answers, when it
        did not the last time)."""
        llm = self.state.settings_for(self.path_of(uri)).llm
        if not llm.model:
            return hover.NO_MODEL
        unanswered = self.model_problems.get("answer")
        if unanswered is not None:
            return f"{unanswered}; then {hover.HOW_TO_SCORE}"
        return model_problem(llm) or hover.HOW_TO_SCORE

    def result_id(self, uri: str, state: DocumentState) -> str:
        """The pull result id of the document's report: its text, settings and project, and
        the model's verdicts and scores that arrived for it."""
        return f"{state.result_id}:m{self._model_revisions.get(uri, 0)}"

    def schedule(self, uri: str, delay_s: float | None = None) -> None:
        if delay_s is None:
            delay_s = self.state.settings_for(to_fs_path(uri) or uri).debounce_ms / 1000
        self.scheduler.schedule(uri, delay_s, lambda: self.refresh(uri))

    def prune_request_futures(self) -> None:
        """pygls 2.1.1 keeps a future per notification forever; drop the finished ones."""
        futures = self.protocol._request_futures
        for key in [k for k, f in futures.items() if f.done()]:
            futures.pop(key, None)

    def show_skipped(self, uri: str, reason: str) -> None:
        """Say why a document has no diagnostics (once; the log says it every time)."""
        log.warning("%s: %s", uri, reason)
        self.warn_once(f"{Path(self.path_of(uri)).name} is not analysed: {reason}")

    def warn_once(self, message: str) -> None:
        """A warning the user sees once per session (a toast at every edit would nag)."""
        if message not in self.warnings_shown:
            self.warnings_shown.add(message)
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"docfact: {message}"
                )
            )

    def show_config_error(self, error: ConfigError) -> None:
        message = str(error)
        log.error("configuration: %s", message)
        if message != self.config_error_shown:  # once per distinct problem
            self.config_error_shown = message
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=f"docfact: {message}")
            )


server = DocfactServer()


class _ClientLogHandler(logging.Handler):
    """Forwards docfact's log records to the editor (window/logMessage)."""

    _LEVELS: ClassVar = {
        logging.ERROR: types.MessageType.Error,
        logging.WARNING: types.MessageType.Warning,
        logging.INFO: types.MessageType.Info,
    }

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = self._LEVELS.get(record.levelno, types.MessageType.Log)
            server.window_log_message(
                types.LogMessageParams(type=level, message=self.format(record))
            )
        except Exception:  # the transport may be gone at shutdown
            pass


@server.feature(types.INITIALIZE)
def initialize(ls: DocfactServer, params: types.InitializeParams) -> None:
    capabilities = params.capabilities.text_document
    ls.pull_diagnostics = bool(capabilities and capabilities.diagnostic)
    pulls = params.capabilities.workspace and params.capabilities.workspace.diagnostics
    refreshable = bool(pulls and pulls.refresh_support)
    ls.push_model_findings = ls.pull_diagnostics and not refreshable
    folders = [to_fs_path(f.uri) for f in params.workspace_folders or []]
    if not folders and params.root_uri:
        folders = [to_fs_path(params.root_uri)]
    ls.state.folders = [Path(f) for f in folders if f]
    watch_client(params.process_id)
    ls.initial_settings = _section(params.initialization_options)
    ls.state.trust(params.initialization_options, ls.warn_once)
    ls.hover_details = hover.shows_details(params.initialization_options)
    try:
        ls.state.set_editor_settings(ls.initial_settings)
    except ConfigError as error:
        ls.show_config_error(error)
    # The sentence splitter's import, while the client finishes the handshake and opens
    # its first document.
    threading.Thread(target=warm_up, name="docfact-warm-up", daemon=True).start()


@server.feature(types.INITIALIZED)
async def initialized(ls: DocfactServer, params: types.InitializedParams) -> None:
    watched = (
        ls.client_capabilities.workspace
        and ls.client_capabilities.workspace.did_change_watched_files
    )
    if watched and watched.dynamic_registration:
        await _register(
            ls,
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="docfact-watch",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[
                                types.FileSystemWatcher(glob_pattern="**/*.{py,pyi,java}"),
                                types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                                types.FileSystemWatcher(glob_pattern="**/.gitignore"),
                                # the names the project's documentation defines
                                types.FileSystemWatcher(
                                    glob_pattern="**/{docs,doc,Doc,documentation}/**"
                                ),
                                # a commit or a checkout: git's history is read again
                                types.FileSystemWatcher(glob_pattern="**/.git/HEAD"),
                                types.FileSystemWatcher(glob_pattern="**/.git/refs/**"),
                                types.FileSystemWatcher(glob_pattern="**/.git/packed-refs"),
                            ]
                        ),
                    )
                ]
            ),
        )
    await _pull_configuration(ls)
    # Keep a reference: the event loop holds tasks weakly.
    ls.index_task = asyncio.ensure_future(_index_workspace(ls))
    ls.start_background(ls.read_histories())
    warm_up_models(
        [ls.state.settings_for(folder / "__init__.py") for folder in ls.state.folders]
        or [ls.state.settings_for(Path.cwd() / "__init__.py")]
    )


async def _register(ls: DocfactServer, params: types.RegistrationParams) -> None:
    """Ask for file events; a client that refuses must not stop configuration and indexing."""
    try:
        await ls.client_register_capability_async(params)
    except Exception as error:
        log.warning(
            "client/registerCapability failed: %s; files changed outside the editor are not seen",
            error,
        )


async def _pull_configuration(ls: DocfactServer) -> None:
    """Ask the editor for the `docfact` settings section (outside any cancellable task)."""
    workspace = ls.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    try:
        answer = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="docfact")])
            ),
            5,
        )
    except Exception as error:  # an editor that does not answer keeps the current settings
        log.warning("workspace/configuration failed: %s", error)
        return
    if answer and isinstance(answer[0], dict):
        try:
            # What the editor answers refines the initialization options, not replaces them.
            ls.state.set_editor_settings({**ls.initial_settings, **answer[0]})
        except ConfigError as error:
            ls.show_config_error(error)


def release_memory() -> None:
    """Free what is garbage now and hand the allocator's free pages back to the system."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: the allocator keeps them
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def settle_memory() -> None:
    """Move what exists now (the project graph, an opened document's first analysis) out
    of the cyclic garbage collector's sight: a full collection would otherwise walk all of
    it and stall an edit's diagnostics by 100 ms on a large file. What is dropped later is
    still freed by reference counting (the model has no cycles)."""
    gc.collect()
    gc.freeze()


async def _index_workspace(ls: DocfactServer) -> None:
    """Learn every name the workspace defines, with work-done progress that always ends."""
    if not ls.state.folders:
        return
    token: str | None = None
    progress = ls.work_done_progress
    window = ls.client_capabilities.window
    if window and window.work_done_progress:  # the client offers window/workDoneProgress/create
        try:
            await progress.create_async("docfact-index")
            token = "docfact-index"
        except Exception:
            log.debug("the client refused the indexing progress", exc_info=True)
    if token:
        progress.begin(
            token,
            types.WorkDoneProgressBegin(title="docfact: indexing workspace", cancellable=False),
        )
    try:
        await asyncio.to_thread(ls.state.index)
    except Exception:
        log.exception("indexing the workspace failed; names in other files are unknown")
    finally:
        if token:
            progress.end(
                token, types.WorkDoneProgressEnd(message=f"{ls.state.indexed_files} files")
            )
    settle_memory()
    for uri in list(ls.state.open_documents()):
        ls.schedule(uri, 0)
    if ls.pull_diagnostics:
        _refresh_pull(ls)
    else:
        await _push_closed_files(ls)


async def _push_closed_files(ls: DocfactServer, only: str | None = None) -> None:
    """With ``workspaceDiagnostics`` on, a push client sees the findings of the files it
    has not opened too (a pull client asks for them with workspace/diagnostic)."""
    reports = await _owned_reports(ls)
    for uri, (_, diagnostics) in reports.items():
        if (only is None or uri == only) and ls.state.settings_for(
            ls.path_of(uri)
        ).workspace_diagnostics:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
            )


async def _owned_reports(ls: DocfactServer) -> dict[str, tuple[str, list[types.Diagnostic]]]:
    """The closed files' reports, but for files that are not the user's own (indexed before
    a .gitignore said so, or reported by an older server's cache)."""

    def reports() -> dict[str, tuple[str, list[types.Diagnostic]]]:
        found = ls.state.workspace_reports(ls.workspace.position_encoding)
        return {uri: report for uri, report in found.items() if ls.owned(uri)}

    return await asyncio.to_thread(reports)


def _model_findings(state: DocumentState) -> list[Finding]:
    """What the model judge and the scores found, as shown (the rules' are the rest)."""
    made = [f for result in state.judged.values() for f in result.findings]
    return state.rules.apply(made + state.score_findings)


def _arriving_later(state: DocumentState) -> list[Finding]:
    """What is found after the rules' first findings of a document, so that a pull client
    that cannot be asked to pull again is sent it: the model's findings, and those that
    git's history (read in the background) tells."""
    model = _model_findings(state)
    told = [
        f
        for f in state.all_findings
        if f not in model and any(e.kind == HISTORY for e in f.evidence)
    ]
    return model + told


def _refresh_pull(ls: DocfactServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace and workspace.diagnostics and workspace.diagnostics.refresh_support:
        ls.workspace_diagnostic_refresh(None)


def _section(options: object) -> dict:
    if not isinstance(options, dict):
        return {}
    section = options.get("docfact", options)
    return section if isinstance(section, dict) else {}


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DocfactServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.state.opened(params.text_document.uri)
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DocfactServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.prune_request_futures()
    if ls.judge.wanted(params.text_document.uri, "onType"):
        ls.judge.cancel(params.text_document.uri)  # the run for the new text replaces it
    # (a run on save goes on: its verdicts are kept for the units the edit left alone)
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DocfactServer, params: types.DidSaveTextDocumentParams) -> None:
    if not ls.protocol.is_open(params.text_document.uri, types.TEXT_DOCUMENT_DID_SAVE):
        return
    ls.schedule(params.text_document.uri, 0)
    if ls.judge.wanted(params.text_document.uri, "onSave"):
        ls.start_judge(params.text_document.uri)
    if ls.scorer.wanted(params.text_document.uri, "onSave"):
        ls.start_scores(params.text_document.uri, None, "onSave")


@server.command("docfact.judge")
def judge_command(ls: DocfactServer, *arguments: object) -> None:
    """Run the model judge on a document now (``run = "manual"`` or any other mode)."""
    uri = arguments[0] if arguments else None
    if isinstance(uri, str) and uri in ls.state.open_documents() and ls.judge.wanted(uri, "manual"):
        ls.start_judge(uri)


@server.command("docfact.score")
def score_command(ls: DocfactServer, *arguments: object) -> None:
    """SONAR and SSC scores now: ``[uri]`` for every documented function, ``[uri, symbol]``
    for one (needs a model)."""
    uri = arguments[0] if arguments else None
    symbol = arguments[1] if len(arguments) > 1 and isinstance(arguments[1], str) else None
    if not (isinstance(uri, str) and uri in ls.state.open_documents()):
        return
    if not ls.scorer.wanted(uri, "manual"):
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message="docfact: scores need a model: "
                "set model in [tool.docfact.llm] or docfact.llm.model",
            )
        )
        return
    ls.start_scores(uri, symbol, "manual")


@server.command(actions.REWRITE_COMMAND)
def rewrite_command(ls: DocfactServer, *arguments: object) -> None:
    """Look for verified rewrites: ``[uri, symbol]`` of a function's description (SONAR),
    ``[uri, symbol, sentence, reason]`` of one sentence (the model judge). Found ones are
    offered as code actions."""
    strings = [a for a in arguments if isinstance(a, str)]
    if len(strings) < 2 or len(strings) != len(arguments):
        return
    uri, symbol, *sentence = strings
    if uri in ls.state.open_documents() and ls.scorer.wanted(uri, "manual"):
        ls.start_background(ls.rewriter.run(uri, symbol, *sentence[:2]))


@server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def on_progress_cancel(ls: DocfactServer, params: types.WorkDoneProgressCancelParams) -> None:
    for background in (ls.judge, ls.scorer, ls.rewriter):
        background.cancel_progress(params.token)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: DocfactServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.scheduler.cancel(uri)
    ls.judge.cancel(uri)
    ls.scorer.cancel(uri)
    ls.rewriter.cancel(uri)
    ls.state.closed(uri)
    ls.settled.discard(uri)
    if ls.pull_diagnostics:
        return
    # The editor's text is gone: clear, then (workspace diagnostics) report the file on disk.
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    if ls.state.settings_for(ls.path_of(uri)).workspace_diagnostics:
        await _push_closed_files(ls, only=uri)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: DocfactServer, params: types.DidChangeConfigurationParams
) -> None:
    settings = params.settings
    ls.ownership.forget()  # `exclude` may have changed
    if isinstance(settings, dict) and settings.get("docfact") is not None:
        try:
            ls.state.set_editor_settings(_section(settings))
        except ConfigError as error:
            ls.show_config_error(error)
    else:
        await _pull_configuration(ls)
    _recheck_all(ls)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: DocfactServer, params: types.DidChangeWatchedFilesParams) -> None:
    """Recorded only: a burst of thousands (a package installed) is sorted off the loop.
    A HEAD that may have moved has git's history read again."""
    changes = []
    head_moved = False
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path and moves_head(Path(path)):
            head_moved = True
        elif path:
            changes.append((Path(path), change.type == types.FileChangeType.Deleted))
    if changes:
        ls.watched.add(changes)
    if head_moved:
        ls.start_background(ls.read_histories())


def _recheck_all(ls: DocfactServer) -> None:
    for uri in ls.state.open_documents():
        ls.schedule(uri, 0)
    if ls.pull_diagnostics:
        _refresh_pull(ls)


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(
        identifier="docfact", inter_file_dependencies=True, workspace_diagnostics=True
    ),
)
async def document_diagnostic(
    ls: DocfactServer, params: types.DocumentDiagnosticParams
) -> types.UnchangedDocumentDiagnosticReport | types.FullDocumentDiagnosticReport:
    uri = params.text_document.uri
    if not ls.owned(uri):
        return types.FullDocumentDiagnosticReport(result_id="not-owned", items=[])
    text = ls.text_of(uri)
    if text is None:
        return types.FullDocumentDiagnosticReport(items=[])
    state = await ls.analyzed(uri, text, ls.document(uri).version)
    if state is None:  # the client will ask again for the newer version
        raise JsonRpcContentModified("the document changed while it was analysed")
    result_id = ls.result_id(uri, state)
    if params.previous_result_id == result_id:
        return types.UnchangedDocumentDiagnosticReport(result_id=result_id)
    pulled = state.all_findings
    if ls.push_model_findings:  # those found later are pushed
        pushed = _arriving_later(state)
        pulled = [f for f in pulled if f not in pushed]
    return types.FullDocumentDiagnosticReport(
        result_id=result_id, items=ls.diagnostics(uri, state, pulled)
    )


@server.feature(types.WORKSPACE_DIAGNOSTIC)
async def workspace_diagnostic(
    ls: DocfactServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    previous = {p.uri: p.value for p in params.previous_result_ids}
    reports = await _owned_reports(ls)
    items: list[types.WorkspaceDocumentDiagnosticReport] = []
    for uri, (result_id, diagnostics) in reports.items():
        if previous.get(uri) == result_id:
            items.append(
                types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, result_id=result_id, version=None
                )
            )
        else:
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, result_id=result_id, version=None, items=diagnostics
                )
            )
    return types.WorkspaceDiagnosticReport(items=items)


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: DocfactServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    state = await ls.current_state(uri)
    if state is None:
        return None
    mapper = PositionMapper(state.analysis.lines, ls.workspace.position_encoding)
    return hover.card(
        state,
        mapper,
        mapper.offset(params.position),
        ls.state.evidence,
        ls.scoring_note(uri),
        details_for=uri if ls.hover_details else None,
    )


@server.command(hover.DETAILS_COMMAND)
async def card_details(ls: DocfactServer, *arguments: object) -> str | None:
    """The details of the hover card at ``[uri, line, character]``, as markdown (the VS Code
    extension shows them in an editor tab: its hover cannot unfold them)."""
    if len(arguments) != 3:
        return None
    uri, line, character = arguments
    if not (isinstance(uri, str) and isinstance(line, int) and isinstance(character, int)):
        return None
    state = await ls.current_state(uri)
    if state is None:
        return None
    mapper = PositionMapper(state.analysis.lines, ls.workspace.position_encoding)
    offset = mapper.offset(types.Position(line=line, character=character))
    return hover.details(state, offset, ls.state.evidence, ls.scoring_note(uri))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[
            types.CodeActionKind.QuickFix,
            actions.FIX_ALL_KIND,
            actions.REWRITE_KIND,
        ]
    ),
)
async def on_code_action(
    ls: DocfactServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    state = await ls.current_state(uri)
    if state is None:
        return None
    mapper = PositionMapper(state.analysis.lines, ls.workspace.position_encoding)
    llm = ls.state.settings_for(ls.path_of(uri)).llm
    usable = llm.model and model_problem(llm) is None  # else the command would only fail
    rewrites = (lambda key, unit_text: ls.state.rewrites(uri, key, unit_text)) if usable else None
    return actions.code_actions(uri, state, mapper, params, rewrites)


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: DocfactServer, *args: object) -> None:
    ls.state.close()


@server.feature(types.EXIT)
def on_exit(ls: DocfactServer, *args: object) -> None:
    """Leave now, as the protocol asks: work still running in threads (a model call, a model
    being loaded, a sandbox run) must not hold the process; sandboxed programs end with it."""
    leave(0 if ls.protocol._shutdown else 1)


def serve(
    tcp: tuple[str, int] | None = None, verbose: bool = False, log_file: Path | None = None
) -> int:
    """Run the server. The editor gets docfact's log (DEBUG too with ``verbose``); ``log_file``
    gets them all, and with ``verbose`` every LSP message too (pygls's debug log)."""
    root = logging.getLogger("docfact")
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    root.propagate = False
    to_editor = _ClientLogHandler()
    to_editor.setFormatter(logging.Formatter("%(message)s"))
    root.addHandler(to_editor)
    if log_file is not None:
        to_file = logging.FileHandler(log_file, encoding="utf-8")
        to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(to_file)
        if verbose:
            protocol = logging.getLogger("pygls")
            protocol.setLevel(logging.DEBUG)
            protocol.addHandler(to_file)
    log.info("docfact %s language server, Python %s", __version__, sys.version.split()[0])
    if tcp:
        server.start_tcp(*tcp)
    else:
        lead_process_group()
        server.start_io(cast(BinaryIO, EndsAtEof(sys.stdin.buffer)))
    return 0
