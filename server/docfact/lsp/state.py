"""What the server knows: settings per folder, open documents' analyses, and the names
every workspace file defines (so name findings resolve across files)."""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..cache import Cache
from ..config import ConfigError, Settings, load_settings
from ..engine import FileAnalysis, analyze, resolve
from ..model import Finding
from ..runner import file_outcomes, relative_to_root, resolved
from ..source.files import module_name_for
from ..source.lines import LineIndex
from .convert import PositionMapper, diagnostic_from_dict

log = logging.getLogger("docfact")

# Editor settings the client uses itself; the server accepts and ignores them.
CLIENT_ONLY_KEYS = frozenset({"interpreter", "importStrategy", "trace", "path", "serverArgs"})


@dataclass
class DocumentState:
    version: int | None
    analysis: FileAnalysis
    findings: list[Finding]
    result_id: str


@dataclass
class Workspace:
    folders: list[Path] = field(default_factory=list)
    editor_settings: dict = field(default_factory=dict)
    indexed_files: int = 0
    _documents: dict[str, DocumentState | None] = field(default_factory=dict)
    _names_by_file: dict[Path, frozenset[str]] = field(default_factory=dict)
    _outcomes: dict[Path, tuple[str, dict]] = field(default_factory=dict)  # closed files
    _settings: dict[Path, tuple[Settings, Path | None]] = field(default_factory=dict)
    _project_names: frozenset[str] = frozenset()
    _generation: int = 0  # bumped whenever the project's names change
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _cache: Cache | None = None

    # --- settings ----------------------------------------------------------------

    def set_editor_settings(self, raw: dict) -> None:
        settings = {k: v for k, v in raw.items() if k not in CLIENT_ONLY_KEYS}
        Settings().with_overrides(settings, "editor settings")  # validate before use
        self.editor_settings = settings
        self._settings.clear()

    def settings_for(self, path: str | Path) -> Settings:
        return self._settings_and_root(Path(path))[0]

    def _settings_and_root(self, path: Path) -> tuple[Settings, Path | None]:
        folder = path.parent
        if folder not in self._settings:
            try:
                settings, root = load_settings(folder)
            except ConfigError as error:
                log.error("%s; using the defaults", error)
                settings, root = Settings(), None
            settings = settings.with_overrides(self.editor_settings, "editor settings")
            self._settings[folder] = (settings, root)
        return self._settings[folder]

    # --- open documents ----------------------------------------------------------

    def opened(self, uri: str) -> None:
        self._documents.setdefault(uri, None)

    def closed(self, uri: str) -> None:
        self._documents.pop(uri, None)

    def open_documents(self) -> list[str]:
        return list(self._documents)

    def current(self, uri: str, version: int | None) -> DocumentState | None:
        state = self._documents.get(uri)
        return state if state is not None and state.version == version else None

    def analyze(self, uri: str, path: str, text: str, version: int | None) -> DocumentState:
        """Analysis of an open document's text (reused when the version is unchanged)."""
        existing = self.current(uri, version)
        if existing is not None and existing.result_id.endswith(self._names_generation()):
            return existing
        file_path = Path(path)
        settings, root = self._settings_and_root(file_path)
        relative = relative_to_root(file_path.resolve(), root)
        analysis = analyze(text, path, module_name_for(file_path), settings, relative)
        names = self._project_names | analysis.module.defined_names
        findings = resolve(analysis.findings, names)
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        result_id = f"{version}:{digest}:{hash(settings)}:{self._names_generation()}"
        state = DocumentState(version, analysis, findings, result_id)
        if uri in self._documents:
            self._documents[uri] = state
        return state

    # --- the workspace -------------------------------------------------------------

    def index(self) -> None:
        """Check every Python file of the workspace folders (cached by content)."""
        if self._cache is None:
            self._cache = Cache(None)
        for folder in self.folders:
            settings, root = self._settings_and_root(folder / "__init__.py")
            outcomes = file_outcomes([folder], settings, root, self._cache)
            with self._lock:
                for job, outcome in outcomes:
                    path = Path(job.display).resolve()
                    self._names_by_file[path] = frozenset(
                        outcome.get("names", ())) | frozenset(job.module_name.split("."))
                    self._outcomes[path] = (hashlib.sha256(job.data).hexdigest()[:16], outcome)
                self.indexed_files = len(self._outcomes)
                self._rebuild_names()

    def file_changed(self, path: Path, deleted: bool) -> None:
        """A file changed outside the editor: forget what was known of it and re-read it."""
        if path.name == "pyproject.toml":
            self._settings.clear()
        if path.suffix not in (".py", ".pyi"):
            return
        with self._lock:
            self._names_by_file.pop(path.resolve(), None)
            self._outcomes.pop(path.resolve(), None)
        if not deleted and path.is_file():
            settings, root = self._settings_and_root(path)
            for job, outcome in file_outcomes([path], settings, root, self._cache):
                with self._lock:
                    resolved_path = Path(job.display).resolve()
                    self._names_by_file[resolved_path] = frozenset(outcome.get("names", ()))
                    self._outcomes[resolved_path] = (
                        hashlib.sha256(job.data).hexdigest()[:16], outcome)
        with self._lock:
            self._rebuild_names()

    def workspace_reports(self, encoding: str) -> dict[str, tuple[str, list]]:
        """uri -> (result id, diagnostics) for the indexed files that are not open."""
        open_paths = {uri for uri in self._documents}
        reports = {}
        with self._lock:
            items = list(self._outcomes.items())
            names = set(self._project_names)
        for path, (digest, outcome) in items:
            uri = path.as_uri()
            if uri in open_paths or outcome.get("skipped"):
                continue
            found = resolved(outcome, names)
            result_id = f"{digest}:{self._names_generation()}"
            lines = None
            diagnostics = []
            for item in found:
                if lines is None:
                    lines = LineIndex(path.read_text(encoding="utf-8", errors="replace"))
                diagnostics.append(diagnostic_from_dict(item, PositionMapper(lines, encoding)))
            reports[uri] = (result_id, diagnostics)
        return reports

    def _rebuild_names(self) -> None:
        names: set[str] = set()
        for file_names in self._names_by_file.values():
            names |= file_names
        self._project_names = frozenset(names)
        self._generation += 1

    def _names_generation(self) -> str:
        return f"g{self._generation}"

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()

