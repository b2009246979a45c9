"""Checking many files: discovery, the per-content cache, worker processes, and the
project-wide resolution of name findings."""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypedDict

from .cache import Cache, cache_key
from .checks.project_rules import project_findings
from .config import Settings
from .engine import History, analyze, facts_of, resolve
from .finding_json import decode, diagnostic_json, encode
from .fix_guard import is_fix, is_position
from .graph.build import ProjectGraph
from .graph.documentation import NO_DOCUMENTATION, find_documentation
from .graph.external import environment_libraries, use_project_libraries
from .graph.facts import FileFacts
from .history import NameHistory
from .model import Finding
from .rule_settings import FileRules, suppressions
from .source.files import (
    SkippedFile,
    decode_source,
    iter_python_files,
    module_name_for,
    read_regular,
)
from .source.lines import LineIndex

_OUTCOME_FORMAT = 11  # bump when check_job's output changes shape: old cache entries then miss
_PARALLEL_THRESHOLD = 16  # below this many files, worker start-up costs more than it saves


@dataclass
class RunResult:
    files_checked: int = 0
    units_checked: int = 0
    diagnostics: list[dict] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    cache_hits: int = 0
    scores: list[dict] = field(default_factory=list)  # per unit, from the model passes
    llm: dict = field(default_factory=dict)  # the model's usage, when one is configured
    checked: dict[str, str] = field(default_factory=dict)  # path -> sha256 of the bytes read


@dataclass(frozen=True)
class FileJob:
    display: str  # the path as shown: argument joined with the relative path
    relative: str  # relative to the configuration root, for per-file-ignores
    module_name: str
    data: bytes


class FileOutcome(TypedDict, total=False):
    """One file's outcome as plain data (what the cache stores and workers send back): a
    skipped file has ``skipped`` (the reason) and ``cacheable`` False when the failure may
    pass; a checked file has the other four."""

    skipped: str
    cacheable: bool
    units: int
    facts: FileFacts
    findings: list[dict]  # finding_json.encode
    suppressed: dict[str, list[str]]  # symbol -> codes its ignore comment silences


# What runs after the project graph is built: (outcomes, project, result) -> the model's
# usage. The command line passes the model passes when a model is configured.
ModelPasses = Callable[[list[tuple[FileJob, FileOutcome]], ProjectGraph, "RunResult"], dict]
# One file's check, as workers run it (``check_job``).
Check = Callable[[FileJob, Settings], FileOutcome]


def check_paths(
    paths: list[Path],
    settings: Settings,
    config_root: Path | None,
    cache: Cache | None,
    progress: bool = False,
    model_passes: ModelPasses | None = None,
) -> RunResult:
    """Check every Python file under ``paths``; name findings resolved project-wide, then
    ``model_passes`` when given."""
    result = RunResult()
    jobs, keys = _keyed_jobs(paths, settings, config_root, result)
    result.checked = {job.display: hashlib.sha256(job.data).hexdigest() for job in jobs}
    history = NameHistory.of(paths[0].resolve()) if paths and paths[0].exists() else None
    libraries = project_libraries(paths, settings, config_root)
    use_project_libraries(libraries)
    documentation = find_documentation(config_root or paths[0]) if paths else NO_DOCUMENTATION
    # The project-wide result depends on every file's content, the history it was told
    # with, the libraries installed where it resolves names and the names its
    # documentation defines, nothing else: when none changed since the last run, it is
    # read back whole (the warm start).
    installed = [(str(folder), folder.stat().st_mtime_ns) for folder in libraries]
    project_key = cache_key(
        "project", keys, history.head if history else "", installed, documentation.digest
    )
    deterministic_only = model_passes is None
    known = cache.get(project_key, _is_project_result) if cache and deterministic_only else None
    if known is not None:
        result.skipped += [tuple(item) for item in known["skipped"]]
        result.diagnostics = known["diagnostics"]
        result.files_checked, result.units_checked = known["files"], known["units"]
        result.cache_hits = len(jobs)
        return result
    outcomes = _outcomes(jobs, keys, settings, cache, progress, result)
    project = project_graph(outcomes)
    project.use_documentation(documentation)
    skipped_before = len(result.skipped)
    for job, outcome in outcomes:
        if outcome.get("skipped"):
            result.skipped.append((job.display, outcome["skipped"]))
            continue
        result.files_checked += 1
        result.units_checked += outcome["units"]
        findings = standing_findings(
            outcome, project, FileRules.of(settings, job.relative, outcome["suppressed"]), history
        )
        if findings:
            lines = LineIndex(decode_source(job.data))
            result.diagnostics.extend(diagnostic_json(f, lines, job.display) for f in findings)
    if cache and deterministic_only:
        cache.put(
            project_key,
            {
                "skipped": result.skipped[skipped_before:],
                "diagnostics": result.diagnostics,
                "files": result.files_checked,
                "units": result.units_checked,
            },
        )
    if model_passes is not None:
        result.llm = model_passes(outcomes, project, result)
    return result


def project_libraries(
    paths: list[Path], settings: Settings, config_root: Path | None
) -> tuple[Path, ...]:
    """The site-packages of the checked project's interpreter, which SONAR runs its code
    with: ``sonar.python`` (a trusted setting), else the project's .venv, venv or env;
    none when it has neither."""
    from .sonar.home import project_interpreter  # lazy: SONAR's module, for this alone

    if not paths:
        return ()
    start = config_root or (paths[0] if paths[0].is_dir() else paths[0].parent)
    interpreter = project_interpreter(start.resolve(), settings.sonar.python)
    if interpreter.executable is None:
        return ()
    return environment_libraries(Path(interpreter.executable).parent.parent)


def file_outcomes(
    paths: list[Path],
    settings: Settings,
    config_root: Path | None,
    cache: Cache | None,
    progress: bool = False,
    result: RunResult | None = None,
) -> list[tuple[FileJob, FileOutcome]]:
    """Each file's outcome (see ``check_job``), from the cache or computed in workers."""
    result = result if result is not None else RunResult()
    jobs, keys = _keyed_jobs(paths, settings, config_root, result)
    return _outcomes(jobs, keys, settings, cache, progress, result)


def _keyed_jobs(
    paths: list[Path], settings: Settings, config_root: Path | None, result: RunResult
) -> tuple[list[FileJob], list[str]]:
    """The files to check, each with the cache key of its outcome."""
    jobs = _discover(paths, settings, config_root, result)
    settings_key = asdict(settings) | {"cache_dir": None, "jobs": None, "llm": None}
    keys = [
        cache_key(
            "file",
            _OUTCOME_FORMAT,
            settings_key,
            job.display,
            job.relative,
            job.module_name,
            hashlib.sha256(job.data).hexdigest(),
        )
        for job in jobs
    ]
    return jobs, keys


def _outcomes(
    jobs: list[FileJob],
    keys: list[str],
    settings: Settings,
    cache: Cache | None,
    progress: bool,
    result: RunResult,
) -> list[tuple[FileJob, FileOutcome]]:
    cached = cache.get_many(keys, _is_outcome) if cache else {}
    result.cache_hits = len(cached)
    missing = [(key, job) for key, job in zip(keys, jobs) if key not in cached]
    computed = dict(
        zip(
            (key for key, _ in missing),
            _run_jobs([job for _, job in missing], settings, progress, len(jobs) - len(missing)),
        )
    )
    if cache:
        cache.put_many({k: v for k, v in computed.items() if v.get("cacheable", True)})
    return [(job, cached.get(key) or computed[key]) for key, job in zip(keys, jobs)]


def _is_outcome(value: object) -> bool:
    """The shape ``check_job`` returns (a cache entry of another shape is recomputed; one
    that cannot even be looked at raises, which the cache takes as a miss too)."""
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("skipped"), str):
        return "facts" not in value
    facts = value.get("facts")
    return (
        all(
            isinstance(value.get(k), t)
            for k, t in (("units", int), ("facts", dict), ("findings", list), ("suppressed", dict))
        )
        and all(
            isinstance(facts.get(k), t)  # type: ignore[union-attr]
            for k, t in _FACTS_TYPES
        )
        and all(isinstance(decode(f), Finding) for f in value["findings"])
    )


# The top level of FileFacts, as the project graph reads it.
_FACTS_TYPES = (
    ("module", str),
    ("path", str),
    ("package", bool),
    ("imports", list),
    ("names", str),
    ("names_at_run_time", bool),
    ("units", list),
    ("variables", list),
    ("attributes", list),
)


def _is_project_result(value: object) -> bool:
    """The shape ``check_paths`` stores, down to each finding: what it holds is printed
    and its fixes are written (``--fix``), so an entry of another shape is recomputed."""
    return (
        isinstance(value, dict)
        and all(
            isinstance(value.get(k), t)
            for k, t in (("skipped", list), ("diagnostics", list), ("files", int), ("units", int))
        )
        and all(_is_diagnostic(d) for d in value["diagnostics"])
        and all(
            isinstance(s, list) and len(s) == 2 and all(isinstance(p, str) for p in s)
            for s in value["skipped"]
        )
    )


def _is_diagnostic(value: object) -> bool:
    texts = ("path", "symbol", "code", "criterion", "severity", "message", "sentence")
    return (
        isinstance(value, dict)
        and all(isinstance(value.get(k), str) for k in texts)
        and is_position(value.get("start"))
        and is_position(value.get("end"))
        and isinstance(value.get("evidence"), list)
        and all(isinstance(e, dict) for e in value["evidence"])
        and (value.get("fix") is None or is_fix(value["fix"]))
    )


def project_graph(outcomes: list[tuple[FileJob, FileOutcome]]) -> ProjectGraph:
    """The project graph of every file that was read."""
    project = ProjectGraph()
    for _, outcome in outcomes:
        if "facts" in outcome:
            project.set_file(outcome["facts"], importers_too=False)
    return project


def standing_findings(
    outcome: FileOutcome,
    project: ProjectGraph,
    rules: FileRules,
    history: History | None = None,
) -> list[Finding]:
    """A file's findings (its outcome's and the project-wide rules') that stand once the
    whole project is known, as its settings show them; ``history`` tells name-existence
    findings by the names' past in git."""
    found = resolve(map(decode, outcome["findings"]), project, history) + project_findings(
        project, outcome["facts"]["path"]
    )
    return rules.apply(found)


def _discover(
    paths: list[Path], settings: Settings, config_root: Path | None, result: RunResult
) -> list[FileJob]:
    jobs = []
    seen = set()
    packages: dict[Path, tuple[str, ...]] = {}
    for argument in paths:
        if not argument.exists():
            result.skipped.append((str(argument), "no such file or directory"))
            continue
        # The files of a folder are read only as far as the folder goes; a file named
        # itself is the user's choice, link or not.
        within = (argument,) if argument.is_dir() else ()
        for path in iter_python_files(argument, settings.exclude, result.skipped):
            display = str(path)
            try:
                status = path.stat()
                if (status.st_dev, status.st_ino) in seen:
                    continue  # the same file, named twice or through a link
                seen.add((status.st_dev, status.st_ino))
                data = read_regular(path, settings.max_file_bytes, within)
            except OSError as error:
                result.skipped.append((display, f"cannot be read: {error.strerror or error}"))
                continue
            except SkippedFile as reason:
                result.skipped.append((display, str(reason)))
                continue
            relative = relative_to_root(path.absolute(), config_root)
            jobs.append(FileJob(display, relative, module_name_for(path, packages), data))
    return jobs


def relative_to_root(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def _run_jobs(
    jobs: list[FileJob], settings: Settings, progress: bool, done: int
) -> list[FileOutcome]:
    total = len(jobs) + done
    report = _Progress(total, done) if progress and total else None
    workers = settings.jobs or os.cpu_count() or 1
    if len(jobs) < _PARALLEL_THRESHOLD or workers == 1:
        outcomes = []
        for job in jobs:
            outcomes.append(check_job(job, settings))
            if report:
                report.advance()
    else:
        outcomes = in_workers(check_job, jobs, settings, workers, report)
    if report:
        report.finish()
    return outcomes


def in_workers(
    check: Check,
    jobs: list[FileJob],
    settings: Settings,
    workers: int,
    report: _Progress | None = None,
) -> list[FileOutcome]:
    """``check(job, settings)`` of every job, in worker processes, in order."""
    outcomes = []
    try:
        with _pool(workers) as pool:
            chunk = max(1, min(32, len(jobs) // (workers * 8)))
            for outcome in pool.map(check, jobs, [settings] * len(jobs), chunksize=chunk):
                outcomes.append(outcome)
                if report:
                    report.advance()
    except BrokenProcessPool:
        outcomes += _one_by_one(check, jobs[len(outcomes) :], settings, report)
    return outcomes


def _one_by_one(
    check: Check, jobs: list[FileJob], settings: Settings, report: _Progress | None
) -> list[FileOutcome]:
    """After a worker died (a crash in native code): every file not yet done, alone in
    a worker, so that a file that kills its worker costs only itself."""
    outcomes = []
    pool = _pool(1)
    try:
        for job in jobs:
            try:
                outcome = pool.submit(check, job, settings).result()
            except BrokenProcessPool:
                pool.shutdown()
                pool = _pool(1)
                outcome = {
                    "skipped": "the process analysing it crashed; please report it",
                    "cacheable": False,
                }
            outcomes.append(outcome)
            if report:
                report.advance()
    finally:
        pool.shutdown()
    return outcomes


def _pool(workers: int) -> ProcessPoolExecutor:
    # forkserver: the language server calls this from a process with threads.
    context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    # Workers only allocate and return: the cyclic collector would just re-scan.
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=gc.disable)


def check_job(job: FileJob, settings: Settings) -> FileOutcome:
    """One file's outcome."""
    try:
        text = decode_source(job.data)
    except SkippedFile as reason:
        return {"skipped": str(reason)}
    try:
        analysis = analyze(text, job.display, job.module_name, settings, job.relative)
    except RecursionError:
        return {"skipped": "nested too deeply to analyse", "cacheable": False}
    except Exception as error:  # a bug in docfact must cost one file, not the whole run
        return {
            "skipped": f"docfact failed on this file ({type(error).__name__}: {error}); "
            "please report it",
            "cacheable": False,
        }
    if analysis.skipped:
        return {"skipped": analysis.skipped}
    return {
        "units": len(analysis.units),
        "facts": facts_of(analysis, is_package=job.display.endswith("__init__.py")),
        "findings": [encode(f) for f in analysis.findings],
        "suppressed": suppressions(analysis.module.units, analysis.module_name),
    }


class _Progress:
    """A one-line progress bar on stderr (only used when stderr is a terminal)."""

    def __init__(self, total: int, done: int):
        self.total, self.done = total, done

    def advance(self) -> None:
        self.done += 1
        if self.done % 10 == 0 or self.done == self.total:
            filled = int(30 * self.done / self.total)
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} files"
            )
            sys.stderr.flush()

    def finish(self) -> None:
        sys.stderr.write("\r" + " " * 60 + "\r")
        sys.stderr.flush()
