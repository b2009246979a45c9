"""SONAR and model understandability (SSC) of documented functions, as the command line
(`check --sonar/--ssc`, `score`) and the editor share them: which units are scored, the
findings that low scores make, and the scores' JSON shape.

Everything here needs a configured model; sonar/ and understand/ (and with them the
sandbox, torch and transformers) are imported only when a score is asked for.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import textwrap
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .analysis import FileAnalysis, UnitAnalysis
from .checks.registry import RULES
from .config import Settings
from .model import Finding, Span

if TYPE_CHECKING:
    from .cache import Cache
    from .llm.client import LlmClient
    from .sonar.home import Homes
    from .sonar.measure import Measure
    from .sonar.rewrite import Rewrite
    from .sonar.score import SonarResult
    from .understand.calibrate import Calibration, Labelled
    from .understand.ssc import FunctionInput, JudgeShare

log = logging.getLogger(__name__)

LOW_CORRECTNESS = 0.5  # below this, code written from the docstring mostly behaves otherwise
SANDBOX_PARALLELISM = 2  # functions whose sandbox runs overlap (they are CPU-bound)
DIMENSIONS = ("correctness", "abstraction", "conciseness", "fluency")


@dataclass
class FunctionScores:
    symbol: str
    sonar: SonarResult | None = None
    ssc: Labelled | None = None  # P1
    docstring_similarity: Labelled | None = None  # P2
    judged: JudgeShare | None = None  # P3
    ssc_error: str | None = None


def scorable(report: UnitAnalysis) -> bool:
    """Functions and methods with a docstring: SONAR and SSC describe behaviour."""
    return report.unit.kind in ("function", "method") and report.unit.docstring is not None


async def score_units(
    items: list[tuple[FileAnalysis, UnitAnalysis]],
    settings: Settings,
    cache: Cache | None,
    client: LlmClient,
    *,
    sonar: bool,
    ssc: bool,
) -> dict[str, FunctionScores]:
    """SONAR per function and SSC calibrated over all of ``items``."""
    scores = {report.symbol: FunctionScores(report.symbol) for _, report in items}
    if sonar:
        from .sonar.home import Homes

        limit = asyncio.Semaphore(SANDBOX_PARALLELISM)
        homes = Homes()  # each file's and project's found once for the whole run

        async def one(analysis: FileAnalysis, report: UnitAnalysis) -> None:
            async with limit:
                scores[report.symbol].sonar = await _sonar(
                    analysis, report, client, settings, cache, homes
                )

        await asyncio.gather(*(one(analysis, report) for analysis, report in items))
    if ssc and items:
        from .sonar.home import project_root_of
        from .understand.ssc import function_input, understand_project

        judge = client if settings.ssc.judge_votes > 0 else None
        by_project: dict[str, list[FunctionInput]] = {}
        for analysis, report in items:
            root = project_root_of(analysis.path, analysis.module_name)
            by_project.setdefault(root, []).append(
                function_input(analysis.text, report.unit, report.symbol)
            )
        for root, functions in by_project.items():
            project = await understand_project(
                functions, client, settings.ssc, cache, judge_client=judge, project=root
            )
            _say_if_uncalibrated(root, project.p1, settings.ssc.epsilon)
            for function in functions:
                found = scores[function.symbol]
                found.ssc = project.p1.functions.get(function.symbol)
                found.docstring_similarity = project.p2.functions.get(function.symbol)
                found.judged = project.p3.get(function.symbol)
                found.ssc_error = project.errors.get(function.symbol)
    return scores


_UNCALIBRATED_SAID: set[str] = set()


def _say_if_uncalibrated(project: str, calibration: Calibration, epsilon: float) -> None:
    """Once per project and process: too few of its functions are scored to label any."""
    from .understand.calibrate import minimum_functions

    if math.isfinite(calibration.tau) or project in _UNCALIBRATED_SAID:
        return
    _UNCALIBRATED_SAID.add(project)
    log.warning(
        "SSC: %d function(s) of %s calibrated so far; High/Low labels need at least %d "
        "(epsilon %g), so none is labelled until more are scored (docfact check --ssc over "
        "the project)",
        calibration.n,
        project,
        minimum_functions(epsilon),
        epsilon,
    )


async def _sonar(
    analysis: FileAnalysis,
    report: UnitAnalysis,
    client: LlmClient,
    settings: Settings,
    cache: Cache | None,
    homes: Homes,
) -> SonarResult:
    from .sonar.measure import not_measured
    from .sonar.score import SonarResult, sonar_scores

    unit = report.unit
    if analysis.path.endswith(".java"):
        skipped = not_measured("SONAR regenerates Python code; Java methods are not scored")
        return SonarResult(skipped, skipped, skipped, skipped)
    source, context = sonar_inputs(analysis, report)
    if context is None:
        broken = not_measured("the function's source does not parse")
        return SonarResult(broken, broken, broken, broken)
    home = await homes.find(
        analysis.path, analysis.module_name, analysis.text, unit.qualname, settings.sonar.python
    )
    # Asked for explicitly (a command, a flag): run even where the setting is off.
    result = await sonar_scores(
        source,
        unit.name,
        report.docstring.text.value,
        context,
        client,
        replace(settings.sonar, enabled=True),
        cache,
        home,
        unit.qualname,
    )
    if result.unusable:  # a failed call was said by the client; an unusable answer is said here
        log.warning("%s: SONAR: the model's code is unusable: %s", report.symbol, result.unusable)
    return result


def sonar_inputs(analysis: FileAnalysis, report: UnitAnalysis) -> tuple[str, str | None]:
    """The function's source (dedented) and SONAR's context for it: the imports it uses
    and its signature (None when the source does not parse)."""
    from .sonar.regenerate import build_context

    unit = report.unit
    line_start = analysis.text.rfind("\n", 0, unit.span.start) + 1
    # CRLF lines: dedent takes a blank "\r" line for one with no indentation at all
    text = analysis.text[line_start : unit.span.end].replace("\r\n", "\n")
    source = textwrap.dedent(text)
    return source, build_context(source, analysis.module.imports)


# --- findings ------------------------------------------------------------------------


def score_findings(report: UnitAnalysis, scores: FunctionScores) -> list[Finding]:
    """DF304 when code written from the docstring mostly behaves otherwise (with one input
    where they disagree); DF305 when the docstring is far from what the model reads."""
    summary = report.segments[0] if report.segments else None
    if summary is None:
        return []
    span = report.docstring.text.span_of(summary.start, summary.end)
    found = []
    correctness = scores.sonar.correctness if scores.sonar is not None else None
    example = scores.sonar.counterexample if scores.sonar is not None else None
    if (
        correctness is not None
        and correctness.value is not None
        and not correctness.approximate
        and correctness.value < LOW_CORRECTNESS
    ):
        cases = inputs_differed(correctness)
        on = f" on {cases[0]} of {cases[1]} inputs" if cases else ""
        message = (
            f"Code written from this docstring behaved differently{on} "
            f"(SONAR Correctness {correctness.value:.2f})"
        )
        if example is not None:
            message += (
                f": for the input {example.input} the function {example.original}, "
                f"the code written from the docstring {example.candidate}"
            )
        found.append(_finding("DF304", message, span, report, summary.text))
    similarity = scores.docstring_similarity
    if similarity is not None and similarity.label == "low":
        message = (
            f"The docstring's intent and the code's intent, as a model reads them, diverge "
            f"(similarity {similarity.value:.2f} to the model's {similarity.k} summaries, "
            f"below the project's calibrated threshold {_threshold(similarity.tau):.2f})"
        )
        found.append(_finding("DF305", message, span, report, summary.text))
    return found


_CASES = re.compile(r"over (\d+) cases")


def inputs_differed(correctness: Measure) -> tuple[int, int] | None:
    """On how many of how many inputs code written from the docstring behaved otherwise,
    when Correctness was measured by running both (None: it was not)."""
    cases = _CASES.search(correctness.how)
    if correctness.value is None or cases is None:
        return None
    total = int(cases.group(1))
    return total - round(correctness.value * total), total


def _finding(code: str, message: str, span: Span, report: UnitAnalysis, sentence: str) -> Finding:
    rule = RULES[code]
    return Finding(
        code,
        rule.criterion,
        rule.severity,
        message,
        span,
        report.symbol,
        " ".join(sentence.split()),
        span,
    )


def _threshold(tau: float) -> float:
    """tau is a nonconformity (1 - similarity); the same cut on the similarity scale."""
    return 1 - tau if math.isfinite(tau) else 0.0


# --- JSON ----------------------------------------------------------------------------


def sonar_json(result: SonarResult | None) -> dict | None:
    """``scores[].sonar``: each dimension's value (or null) and how it was measured."""
    if result is None:
        return None
    measures = {name: getattr(result, name) for name in DIMENSIONS}
    shaped: dict[str, Any] = {name: m.value for name, m in measures.items()}
    shaped["how"] = {name: m.how for name, m in measures.items()}
    shaped["approximate"] = sorted(name for name, m in measures.items() if m.approximate)
    shaped["counterexample"] = result.counterexample.to_json() if result.counterexample else None
    shaped["compression"] = result.compression
    return shaped


def ssc_json(scores: FunctionScores) -> dict | None:
    """``scores[].ssc``: P1 with its calibration, and P2 and P3 beside it."""
    p1 = scores.ssc
    if p1 is None or p1.value is None:
        return {"value": None, "error": scores.ssc_error} if scores.ssc_error else None
    shaped: dict[str, Any] = {
        "value": round(p1.value, 4),
        "label": p1.label,
        "k": p1.k,
        "tau": p1.tau if math.isfinite(p1.tau) else None,
        "threshold": round(_threshold(p1.tau), 4) if math.isfinite(p1.tau) else None,
        "calibrated_over": p1.calibrated_over,
    }
    p2 = scores.docstring_similarity
    if p2 is not None and p2.value is not None:
        shaped["docstring"] = {"value": round(p2.value, 4), "label": p2.label}
    if scores.judged is not None and scores.judged.share is not None:
        shaped["judged_correct"] = {
            "share": round(scores.judged.share, 4),
            "label": scores.judged.label,
        }
    return shaped


# --- verified rewrites: "describe more abstractly" -----------------------------------


async def more_abstract(
    analysis: FileAnalysis,
    report: UnitAnalysis,
    client: LlmClient,
    settings: Settings,
    cache: Cache | None,
    baseline: SonarResult | None = None,
) -> tuple[list[Rewrite], str]:
    """The verified, more abstract rewrites of ``report``'s description (best first), and
    one line that says what was found, or why none was kept: what the editor's action and
    `docfact rewrite` both run. ``baseline`` is the docstring's SONAR result when it is
    known (else its scores are measured first)."""
    from .sonar.rewrite import abstract_rewrites

    name = report.unit.name
    source, context = sonar_inputs(analysis, report)
    if context is None:
        return [], f"docfact: `{name}` cannot be rewritten: its source does not parse"
    result = await abstract_rewrites(
        source,
        name,
        report.docstring.text.value,
        context,
        client,
        settings.sonar,
        cache,
        baseline=baseline,
    )
    found = len(result.rewrites)
    if found:
        return list(result.rewrites), (
            f"docfact: {found} verified rewrite(s) of `{name}`'s description"
        )
    why = f" ({result.error})" if result.error else ""
    return [], (
        f"docfact: none of {result.tried} rewrites of `{name}` kept its behaviour and read "
        f"more abstractly{why}"
    )


def rewrite_edit(text: str, report: UnitAnalysis, rewrite: Rewrite) -> tuple[int, int, str]:
    """The edit of the file ``text`` that puts ``rewrite`` in place of the description:
    (start, end, replacement), its continuation lines indented like the opening quotes."""
    span = report.docstring.text.span_of(0, rewrite.description_end)
    quotes = report.docstring.text.literal.start
    line = text[text.rfind("\n", 0, quotes) + 1 : quotes]
    indent = line[: len(line) - len(line.lstrip())]
    return span.start, span.end, rewrite.description.replace("\n", "\n" + indent)
