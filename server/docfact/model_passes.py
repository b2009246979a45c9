"""The model passes of `docfact check`: ReFEree's judge over every checked file, and the
SONAR and SSC scores of every documented function when asked for.

They run in the parent process after the project graph is built (the judge needs the
resolved deterministic findings and the 1-hop evidence), in one event loop, so the
client's concurrency bound and its HTTP connections are shared by every file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace

from .analysis import FileAnalysis, UnitAnalysis
from .cache import Cache
from .config import Settings
from .engine import analyze, resolve
from .finding_json import diagnostic_json
from .graph.build import ProjectGraph
from .llm import LlmClient, client_for, judge_units
from .llm.judge import AGREES, Agreement
from .model import Finding
from .model_layers import sonar_runs, ssc_runs
from .rule_settings import FileRules, suppressions
from .runner import FileJob, FileOutcome, RunResult
from .sonar_ssc import scorable, score_findings, score_units, sonar_json, ssc_json
from .source.files import SkippedFile, decode_source
from .source.lines import LineIndex


def model_passes(
    outcomes: list[tuple[FileJob, FileOutcome]],
    project: ProjectGraph,
    settings: Settings,
    cache: Cache | None,
    result: RunResult,
) -> dict:
    """Judge every documented unit, score functions when SONAR or SSC is enabled; add the
    findings and scores to ``result``. Returns the usage printed as ``"llm"`` in JSON."""
    client = client_for(settings.llm)
    if client is None:
        return {}
    hits = asyncio.run(_passes(outcomes, project, settings, cache, client, result))
    stats = client.stats
    return {
        "model": settings.llm.model,
        "calls": stats.calls,
        "prompt_tokens": stats.prompt_tokens,
        "completion_tokens": stats.completion_tokens,
        "cost": stats.cost,
        "cache_hits": hits,
        "failures": stats.failures,
    }


async def _passes(
    outcomes: list[tuple[FileJob, FileOutcome]],
    project: ProjectGraph,
    settings: Settings,
    cache: Cache | None,
    client: LlmClient,
    result: RunResult,
) -> int:
    files = [
        job for job, outcome in outcomes if not outcome.get("skipped") and outcome.get("units")
    ]
    analyses = [(job, analysis) for job in files if (analysis := _analysis(job, settings, project))]
    entries = _ScoreEntries(result)
    judged = await asyncio.gather(
        *(
            _judge_file(job, analysis, project, settings, cache, client, result, entries)
            for job, analysis in analyses
        )
    )
    sonar, ssc = sonar_runs(settings, "check"), ssc_runs(settings, "check")
    if sonar or ssc:
        await _score(analyses, settings, cache, client, result, entries, sonar, ssc)
    return sum(judged)


def _analysis(job: FileJob, settings: Settings, project: ProjectGraph) -> FileAnalysis | None:
    try:
        text = decode_source(job.data)
    except SkippedFile:
        return None
    analysis = analyze(text, job.display, job.module_name, settings, job.relative)
    for report in analysis.units:
        report.findings = resolve(report.findings, project)
    return analysis


async def _judge_file(
    job: FileJob,
    analysis: FileAnalysis,
    project: ProjectGraph,
    settings: Settings,
    cache: Cache | None,
    client: LlmClient,
    result: RunResult,
    entries: _ScoreEntries,
) -> int:
    verdicts = await judge_units(
        analysis.units,
        analysis.text,
        lambda r: project.evidence(r.symbol),
        settings.llm,
        cache,
        client,
    )
    for verdict in verdicts:
        _add_findings(result, verdict.findings, analysis, job, settings)
        for agreement in verdict.agreements:
            _note_agreement(result, job.display, agreement, analysis.lines)
        entry = entries.of(job.display, verdict.symbol, analysis)
        entry["referee"], entry["referee_missing"] = verdict.score, verdict.missing
    return sum(1 for verdict in verdicts if verdict.cache_hit)


async def _score(
    analyses: list[tuple[FileJob, FileAnalysis]],
    settings: Settings,
    cache: Cache | None,
    client: LlmClient,
    result: RunResult,
    entries: _ScoreEntries,
    sonar: bool,
    ssc: bool,
) -> None:
    items = [
        (analysis, report)
        for _, analysis in analyses
        for report in analysis.units
        if scorable(report)
    ]
    scores = await score_units(items, settings, cache, client, sonar=sonar, ssc=ssc)
    jobs = {analysis.path: job for job, analysis in analyses}
    for analysis, report in items:
        found = scores[report.symbol]
        job = jobs[analysis.path]
        entry = entries.of(job.display, report.symbol, analysis)
        if sonar:
            entry["sonar"] = sonar_json(found.sonar)
        if ssc:
            entry["ssc"] = ssc_json(found)
        _add_findings(result, score_findings(report, found), analysis, job, settings)


def _add_findings(
    result: RunResult,
    findings: Iterable[Finding],
    analysis: FileAnalysis,
    job: FileJob,
    settings: Settings,
) -> None:
    rules = FileRules.of(
        settings, job.relative, suppressions(analysis.module.units, analysis.module_name)
    )
    result.diagnostics.extend(
        diagnostic_json(finding, analysis.lines, job.display) for finding in rules.apply(findings)
    )


class _ScoreEntries:
    """The one ``scores`` item of each function, made on first use."""

    def __init__(self, result: RunResult) -> None:
        self.result = result
        self.index: dict[tuple[str, str], dict] = {}

    def of(self, path: str, symbol: str, analysis: FileAnalysis) -> dict:
        if (path, symbol) not in self.index:
            report = next(r for r in analysis.units if r.symbol == symbol)
            entry = {
                "symbol": symbol,
                "path": path,
                "line": report.unit.def_line + 1,
                "referee": None,
                "sonar": None,
                "ssc": None,
            }
            self.result.scores.append(entry)
            self.index[path, symbol] = entry
        return self.index[path, symbol]


def _note_agreement(result: RunResult, path: str, agreement: Agreement, lines: LineIndex) -> None:
    """The deterministic finding stands; say that the model agrees with it."""
    line, column = lines.position(agreement.finding.span.start)
    for item in result.diagnostics:
        if (
            item["path"] == path
            and item["code"] == agreement.finding.code
            and item["start"] == {"line": line + 1, "column": column + 1}
            and not item["message"].endswith(AGREES)
        ):
            item["message"] += AGREES


# --- `docfact score`: one function ----------------------------------------------------


class ScoreError(Exception):
    """The function cannot be scored (no model, not found, not a function); the message
    says why."""


def score_one(
    job: FileJob, qualname: str, project: ProjectGraph, settings: Settings, cache: Cache | None
) -> dict:
    """ReFEree, SONAR and SSC of one function (SSC labelled against the project's
    calibration set), as the ``scores`` item of the JSON report, with its findings."""
    client = client_for(settings.llm)
    if client is None:
        raise ScoreError("scoring needs a model: set model in [tool.docfact.llm]")
    analysis = _analysis(job, settings, project)
    if analysis is None:
        raise ScoreError(f"{job.display} cannot be read as source")
    documented = [r for r in analysis.units if scorable(r)]
    report = next((r for r in documented if qualname in (r.unit.qualname, r.symbol)), None)
    if report is None:
        names = ", ".join(r.unit.qualname for r in documented) or "none"
        raise ScoreError(
            f"{job.display} has no documented function {qualname} (documented: {names})"
        )
    result = RunResult()
    asyncio.run(_score_one(job, analysis, report, project, settings, cache, client, result))
    entry = result.scores[0]
    entry["findings"] = [d for d in result.diagnostics if d["symbol"] == report.symbol]
    return entry


async def _score_one(
    job: FileJob,
    analysis: FileAnalysis,
    report: UnitAnalysis,
    project: ProjectGraph,
    settings: Settings,
    cache: Cache | None,
    client: LlmClient,
    result: RunResult,
) -> None:
    entries = _ScoreEntries(result)
    entries.of(job.display, report.symbol, analysis)
    _add_findings(result, report.findings, analysis, job, settings)  # the judge may agree with them
    only = replace(analysis, units=[report])
    await _judge_file(job, only, project, settings, cache, client, result, entries)
    # SSC of this function alone: tau comes from the project's calibration set in the cache.
    found = (
        await score_units([(analysis, report)], settings, cache, client, sonar=True, ssc=True)
    )[report.symbol]
    entry = entries.of(job.display, report.symbol, analysis)
    entry["sonar"], entry["ssc"] = sonar_json(found.sonar), ssc_json(found)
    _add_findings(result, score_findings(report, found), analysis, job, settings)
