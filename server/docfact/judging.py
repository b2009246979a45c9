"""The model pass of `docfact check`: ReFEree's judge over every checked file.

It runs in the parent process after the project graph is built (the judge needs the
resolved deterministic findings and the 1-hop evidence), in one event loop, so the
client's concurrency bound and its HTTP connections are shared by every file.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace

from .cache import Cache
from .config import Settings
from .engine import analyze, codes_for, resolve
from .graph.build import ProjectGraph
from .llm import client_for, judge_units
from .runner import FileJob, RunResult, diagnostic_dict
from .source.files import SkippedFile, decode_source


def judge_files(outcomes: list[tuple[FileJob, dict]], project: ProjectGraph, settings: Settings,
                cache: Cache | None, result: RunResult) -> dict:
    """Judge every documented unit; add the model's findings and scores to ``result``.

    Returns the usage summary printed as ``"llm"`` in the JSON report."""
    client = client_for(settings.llm)
    if client is None:
        return {}
    hits = asyncio.run(_judge_all(outcomes, project, settings, cache, client, result))
    notice = client.take_notice()
    if notice:
        print(f"docfact: {notice}", file=sys.stderr)
    stats = client.stats
    return {"model": settings.llm.model, "calls": stats.calls,
            "prompt_tokens": stats.prompt_tokens, "completion_tokens": stats.completion_tokens,
            "cost": stats.cost, "cache_hits": hits, "failures": stats.failures}


async def _judge_all(outcomes, project, settings, cache, client, result) -> int:
    files = [(job, outcome) for job, outcome in outcomes
             if not outcome.get("skipped") and outcome.get("units")]
    judged = await asyncio.gather(*(
        _judge_file(job, project, settings, cache, client, result) for job, _ in files))
    return sum(judged)


async def _judge_file(job: FileJob, project, settings, cache, client, result: RunResult) -> int:
    try:
        text = decode_source(job.data)
    except SkippedFile:
        return 0
    analysis = analyze(text, job.display, job.module_name, settings, job.relative)
    for report in analysis.units:
        report.findings = resolve(report.findings, project)
    verdicts = await judge_units(analysis.units, text, lambda r: project.evidence(r.symbol),
                                 settings.llm, cache, client)
    enabled = codes_for(settings, job.relative)
    severities = dict(settings.severity)
    for verdict in verdicts:
        for finding in verdict.findings:
            if finding.code not in enabled:
                continue
            if finding.code in severities:
                finding = replace(finding, severity=severities[finding.code])
            item = diagnostic_dict(finding, analysis.lines, job.display)
            item.pop("condition")
            result.diagnostics.append(item)
        for agreement in verdict.agreements:
            _note_agreement(result, job.display, agreement, analysis.lines)
        result.scores.append({
            "symbol": verdict.symbol, "path": job.display, "referee": verdict.score,
            "referee_missing": verdict.missing, "sonar": None, "ssc": None,
        })
    return sum(1 for verdict in verdicts if verdict.cache_hit)


def _note_agreement(result: RunResult, path: str, agreement, lines) -> None:
    """The deterministic finding stands; say that the model agrees with it."""
    line, column = lines.position(agreement.finding.span.start)
    for item in result.diagnostics:
        if (item["path"] == path and item["code"] == agreement.finding.code
                and item["start"] == {"line": line + 1, "column": column + 1}
                and "the model agrees" not in item["message"]):
            item["message"] += " (the model agrees)"
