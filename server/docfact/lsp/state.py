"""What the server knows: settings per folder, open documents' analyses, and the project
graph of the workspace (so findings resolve across files, and drift is seen)."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis import FileAnalysis, UnitAnalysis
from ..cache import Cache
from ..checks.project_rules import project_findings
from ..config import ConfigError, Settings, load_settings
from ..engine import UnitMemo, analyze, facts_of, resolve
from ..graph.build import ProjectGraph
from ..graph.documentation import NO_DOCUMENTATION, find_documentation
from ..graph.facts import FileFacts
from ..model import Evidence, Finding, Span
from ..rule_settings import FileRules, suppressions
from ..runner import FileJob, FileOutcome, file_outcomes, relative_to_root, standing_findings
from ..sonar_ssc import FunctionScores, score_findings
from ..source.files import (
    SUFFIXES,
    SkippedFile,
    module_name_for,
    read_regular,
    resolved_inside,
)
from ..source.lines import LineIndex
from .convert import PositionMapper, diagnostic
from .git_history import FolderHistories

if TYPE_CHECKING:
    from lsprotocol import types

    from ..llm.judge import JudgeResult
    from ..sonar.rewrite import Rewrite

# Verified rewrites offered for a unit: Rewrites of its description, or the corrected
# text of one sentence.
Offers = Sequence["Rewrite | str"]

log = logging.getLogger("docfact")

# Editor settings the client uses itself; the server accepts and ignores them.
CLIENT_ONLY_KEYS = frozenset({"interpreter", "importStrategy", "trace", "path", "serverArgs"})
# The initializationOptions key by which the client says the user trusts the workspace
# (VS Code: workspace trust). Read there only: never from settings a workspace may hold.
TRUST_KEY = "trustedWorkspace"
# The settings key by which the editor passes the project's interpreter (VS Code: the
# Python extension's active environment). It is SONAR's ``sonar.python`` (and the
# environment names resolve in) where no setting chose one, in a trusted workspace only:
# the interpreter is usually the repository's own .venv, a program the repository chose.
PROJECT_PYTHON_KEY = "projectPython"
HOW_TO_TRUST = (
    "trust this workspace if you do (VS Code: Workspaces: Manage Workspace Trust; other "
    f"editors: initializationOptions {TRUST_KEY} = true)"
)


def trusted_workspace(initialization_options: object) -> bool:
    """Whether the client said the user trusts the workspace."""
    return isinstance(initialization_options, dict) and (
        initialization_options.get(TRUST_KEY) is True
    )


@dataclass
class DocumentState:
    version: int | None
    analysis: FileAnalysis
    rules: FileRules  # which findings are shown, and how
    findings: list[Finding]  # deterministic, settled by the project graph, as shown
    result_id: str
    judged: dict[str, JudgeResult] = field(default_factory=dict)  # symbol -> its verdicts
    scored: dict[str, FunctionScores] = field(default_factory=dict)  # of the unit's text
    score_findings: list[Finding] = field(default_factory=list)  # what low scores say
    # Units whose model verdicts (scores) were dropped because their text changed since
    # they were judged (scored): they are judged (scored) again on the next run.
    unjudged: set[str] = field(default_factory=set)
    unscored: set[str] = field(default_factory=set)

    @property
    def all_findings(self) -> list[Finding]:
        """Every finding shown: the rules' (saying so where the model judge agrees), the
        model judge's and the scores'."""
        agreements = [a for result in self.judged.values() for a in result.agreements]
        rules = [next((a.noted(f) for a in agreements if a.about(f)), f) for f in self.findings]
        return rules + self.rules.apply(
            [f for result in self.judged.values() for f in result.findings] + self.score_findings
        )


@dataclass
class Workspace:
    folders: list[Path] = field(default_factory=list)
    editor_settings: dict = field(default_factory=dict)
    indexed_files: int = 0
    _documents: dict[str, DocumentState | None] = field(default_factory=dict)
    project: ProjectGraph = field(default_factory=ProjectGraph)
    drifted: bool = False  # an open document's definitions changed: re-check the others
    _facts: dict[str, FileFacts] = field(default_factory=dict)  # open documents' graph facts
    _outcomes: dict[Path, tuple[str, FileOutcome]] = field(default_factory=dict)  # indexed files
    _settings: dict[Path, tuple[Settings, Path | None]] = field(default_factory=dict)
    _memos: dict[str, UnitMemo] = field(default_factory=dict)  # open documents' checked units
    # uri -> symbol -> (the unit's text when it was scored, its FunctionScores): scores are
    # dear, so they outlive edits elsewhere in the document, never an edit of the unit.
    _scores: dict[str, dict[str, tuple[str, FunctionScores]]] = field(default_factory=dict)
    # uri -> symbol -> (the unit's text and start when it was judged, its JudgeResult): an
    # edit elsewhere moves the verdicts with the unit, an edit of the unit drops them.
    _judgements: dict[str, dict[str, tuple[str, int, JudgeResult]]] = field(default_factory=dict)
    # uri -> (symbol, "abstract" or a sentence) -> (the unit's text, verified rewrites)
    _rewrites: dict[str, dict[tuple[str, str], tuple[str, Offers]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # What git remembers of each folder's names (read in the background, see git_history).
    histories: FolderHistories = field(default_factory=FolderHistories)
    # The user trusts the workspace: its pyproject.toml may choose every setting.
    trusted: bool = False
    # Says a warning to the user (a window message); set by the server.
    warn: Callable[[str], None] = log.warning
    _untrusted_said: set[Path] = field(default_factory=set)  # each pyproject.toml once
    project_python: str | None = None  # the editor's interpreter of the project
    _untrusted_python_said: str | None = None  # ignored (untrusted): said once

    # --- settings ----------------------------------------------------------------

    def trust(self, initialization_options: object, warn: Callable[[str], None]) -> None:
        """Take the client's word on workspace trust, and how to warn the user."""
        self.trusted = trusted_workspace(initialization_options)
        self.warn = warn
        self._settings.clear()

    def set_editor_settings(self, raw: dict) -> None:
        # The user's editor settings are trusted (VS Code withholds a restricted workspace's
        # values of the trusted-only settings itself); a trust flag among them is not.
        ignored = CLIENT_ONLY_KEYS | {TRUST_KEY, PROJECT_PYTHON_KEY}
        settings = {k: v for k, v in raw.items() if k not in ignored}
        Settings().with_overrides(settings, "editor settings")  # validate before use
        python = raw.get(PROJECT_PYTHON_KEY)
        if not (python is None or isinstance(python, str)):
            raise ConfigError(
                f"editor settings: {PROJECT_PYTHON_KEY} must be the path of a Python interpreter"
            )
        self.editor_settings = settings
        self.project_python = (python or "").strip() or None
        self._settings.clear()

    def settings_for(self, path: str | Path) -> Settings:
        return self._settings_and_root(Path(path))[0]

    def _settings_and_root(self, path: Path) -> tuple[Settings, Path | None]:
        folder = path.parent
        if folder not in self._settings:
            try:
                settings, root, untrusted = load_settings(folder, trusted=self.trusted)
            except ConfigError as error:
                log.error("%s; using the defaults", error)
                settings, root, untrusted = Settings(), None, None
            if untrusted is not None and untrusted.path not in self._untrusted_said:
                self._untrusted_said.add(untrusted.path)
                message = untrusted.message(HOW_TO_TRUST)
                log.warning("%s", message)
                self.warn(message)
            settings = settings.with_overrides(self.editor_settings, "editor settings")
            self._settings[folder] = (self._with_project_python(settings), root)
        return self._settings[folder]

    def _with_project_python(self, settings: Settings) -> Settings:
        """``settings`` with the editor's interpreter of the project as ``sonar.python``
        when no setting chose one and the user trusts the workspace."""
        python = self.project_python
        if python is None or settings.sonar.python is not None:
            return settings
        if not self.trusted:
            if python != self._untrusted_python_said:
                self._untrusted_python_said = python
                log.info("the project's interpreter %s is not used: %s", python, HOW_TO_TRUST)
            return settings
        return replace(settings, sonar=replace(settings.sonar, python=python))

    # --- open documents ----------------------------------------------------------

    def opened(self, uri: str) -> None:
        self._documents.setdefault(uri, None)

    def closed(self, uri: str) -> None:
        """Forget an open document; the file on disk speaks for it again."""
        self._memos.pop(uri, None)
        self._scores.pop(uri, None)
        self._judgements.pop(uri, None)
        self._rewrites.pop(uri, None)
        state = self._documents.pop(uri, None)
        if state is not None:
            path = state.analysis.path
            with self._lock:
                self._facts.pop(path, None)
                indexed = self._outcomes.get(Path(path).resolve())
                if indexed is not None:
                    self.project.set_file(indexed[1]["facts"])

    def open_documents(self) -> list[str]:
        return list(self._documents)

    def current(self, uri: str, version: int | None) -> DocumentState | None:
        state = self._documents.get(uri)
        return state if state is not None and state.version == version else None

    def analyze(
        self,
        uri: str,
        path: str,
        text: str,
        version: int | None,
        outdated: Callable[[], bool] | None = None,
    ) -> DocumentState:
        """Analysis of an open document's text (reused while neither the version nor the
        project changed). The document's own definitions enter the project graph, so the
        docstrings of other files that describe them see the change (drift). ``Outdated``
        when ``outdated()`` says a newer version arrived meanwhile."""
        file_path = Path(path)
        settings, root = self._settings_and_root(file_path)
        existing = self.current(uri, version)
        # Reused only while the settings (editor, pyproject) and the project are unchanged.
        if existing is not None and existing.result_id.endswith(
            f":{hash(settings)}:{self._generation()}"
        ):
            return existing
        relative = relative_to_root(file_path.resolve(), root)
        memo = self._memos.setdefault(uri, UnitMemo()) if uri in self._documents else None
        analysis = analyze(
            text, path, module_name_for(file_path), settings, relative, memo, outdated
        )
        facts = facts_of(analysis, is_package=file_path.name == "__init__.py")
        with self._lock:
            # Only the newest text of an open document speaks for its file: a file pulled
            # while closed (or an overtaken version) must not pin what the project knows.
            if uri in self._documents and not _older(version, self._documents.get(uri)):
                previous = self._facts.get(path)
                if previous is None or _shape(previous) != _shape(facts):
                    self.project.set_file(facts)
                    self.drifted = True
                self._facts[path] = facts
            history = self.histories.of(file_path)
            found = resolve(analysis.findings, self.project, history) + project_findings(
                self.project, path
            )
            generation = self._generation()
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        result_id = f"{version}:{digest}:{hash(settings)}:{generation}"
        rules = FileRules.of(
            settings, relative, suppressions(analysis.module.units, analysis.module_name)
        )
        state = DocumentState(version, analysis, rules, rules.apply(found), result_id)
        self._attach_judgements(uri, state)
        self._attach_scores(uri, state)
        with self._lock:
            stored = self._documents.get(uri)
            # Analyses of two versions can overlap (a cancelled check's thread runs on):
            # the older one finishing last must not replace the newer one.
            if uri in self._documents and not _older(version, stored):
                self._documents[uri] = state
        return state

    def evidence(self, symbol: str) -> list[Evidence]:
        with self._lock:
            return self.project.evidence(symbol)

    def evidence_for(self, report: UnitAnalysis) -> list[Evidence]:
        return self.evidence(report.symbol)

    def set_judgement(
        self, uri: str, judged: DocumentState, results: Iterable[JudgeResult]
    ) -> None:
        """Keep the model's verdicts with the text of the unit they were made for (in the
        analysis ``judged``), and show them in the document's current analysis: the text
        may have changed meanwhile, and the units it left as they were keep their verdicts."""
        with self._lock:
            units = {r.symbol: r.unit for r in judged.analysis.units}
            text = judged.analysis.text
            kept = self._judgements.setdefault(uri, {})
            for result in results:
                unit = units.get(result.symbol)
                if unit is not None:
                    kept[result.symbol] = (
                        text[unit.span.start : unit.span.end],
                        unit.span.start,
                        result,
                    )
            state = self._documents.get(uri)
            if state is not None:
                self._attach_judgements(uri, state)

    def _attach_judgements(self, uri: str, state: DocumentState) -> None:
        """The verdicts of every unit whose text is as it was judged, moved to where the
        unit now is; units edited since are pending."""
        stored = self._judgements.get(uri)
        if not stored:
            return
        text = state.analysis.text
        for report in state.analysis.units:
            found = stored.get(report.symbol)
            if found is None:
                continue
            unit_text, start, result = found
            span = report.unit.span
            if unit_text == text[span.start : span.end]:
                state.judged[report.symbol] = moved(result, span.start - start)
                state.unjudged.discard(report.symbol)
            else:
                state.judged.pop(report.symbol, None)
                state.unjudged.add(report.symbol)

    def set_scores(self, uri: str, scored: dict[str, tuple[str, FunctionScores]]) -> None:
        """Keep SONAR and SSC scores with the text of the unit they were computed for, and
        show them in the document's current analysis."""
        with self._lock:
            kept = self._scores.setdefault(uri, {})
            for symbol, (unit_text, scores) in scored.items():
                old = kept.get(symbol)
                if (
                    old is not None and old[0] == unit_text
                ):  # a pass that computed less keeps the rest
                    for name in ("sonar", "ssc", "docstring_similarity", "judged"):
                        if getattr(scores, name) is None:
                            setattr(scores, name, getattr(old[1], name))
                kept[symbol] = (unit_text, scores)
            state = self._documents.get(uri)
        if state is not None:
            self._attach_scores(uri, state)

    def set_rewrites(self, uri: str, key: tuple[str, str], unit_text: str, offers: Offers) -> None:
        with self._lock:
            self._rewrites.setdefault(uri, {})[key] = (unit_text, offers)

    def rewrites(self, uri: str, key: tuple[str, str], unit_text: str) -> Offers | None:
        """The verified rewrites found for ``key``, None when none were looked for (or the
        unit changed since)."""
        found = self._rewrites.get(uri, {}).get(key)
        return found[1] if found is not None and found[0] == unit_text else None

    def _attach_scores(self, uri: str, state: DocumentState) -> None:
        stored = self._scores.get(uri)
        if not stored:
            return
        scored, found = {}, []
        for report in state.analysis.units:
            unit_text, scores = stored.get(report.symbol, (None, None))
            span = report.unit.span
            if scores is None:
                continue
            if unit_text != state.analysis.text[span.start : span.end]:
                state.unscored.add(report.symbol)
                continue
            state.unscored.discard(report.symbol)
            scored[report.symbol] = scores
            found += score_findings(report, scores)
        state.scored, state.score_findings = scored, found

    # --- the workspace -------------------------------------------------------------

    @contextmanager
    def _cache_for(self, settings: Settings) -> Iterator[Cache]:
        """A cache connection used and closed in the calling thread only: an sqlite3
        connection may not cross threads (indexing runs in a worker thread; shutdown and
        file watching do not)."""
        cache = Cache(Path(settings.cache_dir) if settings.cache_dir else None)
        try:
            yield cache
        finally:
            try:
                cache.close()
            except Exception as error:  # a failing cache never fails the server
                log.warning("closing the cache failed: %s", error)

    def index(self) -> None:
        """Read every Python file of the workspace folders (cached by content), and the
        names the project's documentation defines."""
        self.read_documentation()
        for folder in self.folders:
            settings, root = self._settings_and_root(folder / "__init__.py")
            with self._cache_for(settings) as cache:
                self._take(file_outcomes([folder], settings, root, cache))
        self.indexed_files = len(self._outcomes)

    def read_documentation(self) -> None:
        """The names the documentation of the first folder that has one defines."""
        found = (find_documentation(folder) for folder in self.folders)
        documentation = next((d for d in found if d.pages), NO_DOCUMENTATION)
        with self._lock:
            self.project.use_documentation(documentation)

    def file_changed(self, path: Path, deleted: bool) -> None:
        """A file changed outside the editor: forget what was known of it and re-read it."""
        if path.name == "pyproject.toml":
            self._settings.clear()
        if path.suffix not in SUFFIXES:
            return
        with self._lock:
            self._outcomes.pop(path.resolve(), None)
            if str(path) not in self._facts:  # an open document's text wins over the disk
                self.project.remove_file(str(path))
        if not deleted and path.is_file() and resolved_inside(path, self.folders):
            settings, root = self._settings_and_root(path)
            with self._cache_for(settings) as cache:
                self._take(file_outcomes([path], settings, root, cache))

    def _take(self, outcomes: Iterable[tuple[FileJob, FileOutcome]]) -> None:
        with self._lock:
            for job, outcome in outcomes:
                if "facts" not in outcome:
                    continue
                path = Path(job.display).resolve()
                self._outcomes[path] = (hashlib.sha256(job.data).hexdigest()[:16], outcome)
                if outcome["facts"]["path"] not in self._facts:  # open documents win
                    self.project.set_file(outcome["facts"])

    def workspace_reports(
        self, encoding: str | None
    ) -> dict[str, tuple[str, list[types.Diagnostic]]]:
        """uri -> (result id, diagnostics) for the indexed files that are not open."""
        open_uris = set(self._documents)
        reports = {}
        with self._lock:
            items = [
                (path, known)
                for path, known in self._outcomes.items()
                if path.as_uri() not in open_uris
            ]
        rules = {path: self._rules_of_closed(path, outcome) for path, (_, outcome) in items}
        with self._lock:
            generation = self._generation()
            found_by_path = {
                path: standing_findings(outcome, self.project, rules[path], self.histories.of(path))
                for path, (_, outcome) in items
            }
        for path, (digest, _) in items:
            diagnostics = []
            # The file is read only when it has findings.
            if found_by_path[path] and (text := self._closed_text(path)) is not None:
                mapper = PositionMapper(LineIndex(text), encoding)
                diagnostics = [
                    diagnostic(f, mapper, path.as_uri(), str(path)) for f in found_by_path[path]
                ]
            reports[path.as_uri()] = (f"{digest}:{generation}", diagnostics)
        return reports

    def _closed_text(self, path: Path) -> str | None:
        """A closed file's text, read as the index read it (it may have become a FIFO or a
        link out of the workspace since): None when it no longer can be."""
        try:
            data = read_regular(path, self.settings_for(path).max_file_bytes, self.folders)
        except SkippedFile as reason:
            log.info("%s is not read again: %s", path, reason)
            return None
        return data.decode("utf-8", errors="replace")

    def _rules_of_closed(self, path: Path, outcome: FileOutcome) -> FileRules:
        settings, root = self._settings_and_root(path)
        return FileRules.of(settings, relative_to_root(path, root), outcome["suppressed"])

    def _generation(self) -> str:
        """What every file's findings depend on beyond its own text and settings: the
        project, and what git's history tells."""
        return f"g{self.project.generation}h{self.histories.revision}"

    def close(self) -> None:
        """Nothing to release: each cache connection is closed where it was opened."""


def moved(result: JudgeResult, delta: int) -> JudgeResult:
    """A JudgeResult whose findings point ``delta`` characters further on."""
    if not delta:
        return result
    return replace(
        result,
        findings=[_shifted(f, delta) for f in result.findings],
        agreements=[replace(a, finding=_shifted(a.finding, delta)) for a in result.agreements],
    )


def _shifted(finding: Finding, delta: int) -> Finding:
    def shift(span: Span) -> Span:
        return Span(span.start + delta, span.end + delta)

    fix = replace(finding.fix, span=shift(finding.fix.span)) if finding.fix is not None else None
    return replace(
        finding, span=shift(finding.span), sentence_span=shift(finding.sentence_span), fix=fix
    )


def _older(version: int | None, stored: DocumentState | None) -> bool:
    return (
        stored is not None
        and version is not None
        and stored.version is not None
        and version < stored.version
    )


def _shape(facts: FileFacts) -> tuple:
    """What other files can depend on: names, signatures, raises, calls and bases."""
    return (
        tuple(facts["names"]),
        facts["names_at_run_time"],
        tuple(
            (
                u["q"],
                u["sig"],
                tuple(u.get("raises", ())),
                u.get("reraises", False),
                tuple(u.get("calls", ())),
                tuple(u.get("bases", ())),
            )
            for u in facts["units"]
        ),
    )
