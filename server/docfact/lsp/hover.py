"""The hover card: a docstring's sentences with their verdicts, the evidence, the scores."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..analysis import UnitAnalysis
from ..model import Evidence, Finding, Segment, Span
from ..sonar_ssc import DIMENSIONS, FunctionScores, scorable
from .convert import PositionMapper

if TYPE_CHECKING:
    from ..llm.judge import JudgeResult
    from ..sonar.score import SonarResult
    from .state import DocumentState

_CRITERIA = ("name", "type", "function", "context")
_BAR_WIDTH = 10


def card(
    state: DocumentState,
    mapper: PositionMapper,
    offset: int,
    evidence_for: Callable[[str], Sequence[Evidence]],
) -> types.Hover | None:
    """Hover for a position on the name of a documented definition, or on a span of its
    docstring that a finding flags (a clean word of a docstring has no card)."""
    report = _report_at(state.analysis.units, offset)
    if report is None:
        return None
    findings = [f for f in state.all_findings if f.symbol == report.symbol]
    if _inside(report.unit.name_span, offset):
        over = report.unit.name_span
    else:
        flagged = [f.span for f in findings if _flags(f.span, offset)]
        if not flagged:
            return None
        over = min(flagged, key=lambda span: span.end - span.start)
    value = markdown(
        report,
        findings,
        evidence_for(report.symbol),
        state.judged.get(report.symbol),
        state.scored.get(report.symbol),
        unjudged=report.symbol in state.unjudged,
        unscored=report.symbol in state.unscored,
    )
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value),
        range=mapper.range(over),
    )


def _report_at(reports: list[UnitAnalysis], offset: int) -> UnitAnalysis | None:
    for report in reports:
        if _inside(report.docstring.text.literal, offset) or _inside(report.unit.name_span, offset):
            return report
    return None


def _flags(span: Span, offset: int) -> bool:
    """Whether a finding's span is under the pointer (an empty span: at it)."""
    return _inside(span, offset) or span.start == span.end == offset


def _inside(span: Span, offset: int) -> bool:
    return span.start <= offset < span.end


def markdown(
    report: UnitAnalysis,
    findings: list[Finding],
    evidence: Sequence[Evidence] = (),
    judged: JudgeResult | None = None,
    scores: FunctionScores | None = None,
    unjudged: bool = False,
    unscored: bool = False,
) -> str:
    """The card; ``unjudged`` (``unscored``): the unit's verdicts (scores) were dropped
    because it was edited since."""
    unit = report.unit
    lines = [f"**docfact** · `{report.symbol or unit.kind}`"]
    if unit.signature is not None:
        lines += ["", f"`{unit.name}{unit.signature.rendered()}`"]
    rows, placed, wrong = [], set(), 0
    for number, segment in enumerate(report.segments, 1):
        span = report.docstring.text.span_of(segment.start, segment.end)
        mine = [i for i, f in enumerate(findings) if _overlaps(f.sentence_span, span)]
        placed.update(mine)
        wrong += bool(mine)
        rows.append(f"{number}. {'✗' if mine else '✓'} {_escape(_sentence(segment))}")
        rows += [f"    - {_finding_line(findings[i])}" for i in mine]
    lines += ["", f"**Sentences**: {len(report.segments)} checked, {wrong} with findings", ""]
    lines += rows
    others = [f for i, f in enumerate(findings) if i not in placed]
    if others:
        lines += ["", "**Other findings**"] + [f"- {_finding_line(f)}" for f in others]
    criteria = sorted({f.criterion for f in findings})
    if criteria:
        lines += ["", f"**Criteria that failed**: {', '.join(criteria)}"]
    if evidence:
        lines += ["", "**Evidence** (1-hop neighbours in the project graph)"]
        lines += [f"- `{e.symbol}` ({_where(e)})" for e in evidence]
    return "\n".join(lines + _scores(report, judged, scores, unjudged, unscored))


_HOW_TO_SCORE = "run *docfact: Score* (needs a model)"


def _scores(
    report: UnitAnalysis,
    judged: JudgeResult | None,
    scores: FunctionScores | None,
    unjudged: bool = False,
    edited: bool = False,
) -> list[str]:
    """The scores that were computed, those an edit made pending, and one line for those
    that were not computed."""
    shown, unscored = [], []
    if judged is not None:
        shown.append(f"- {_referee(judged, len(report.segments))}")
    elif unjudged:
        shown.append(f"- ReFEree SCORE: {_PENDING_VERDICTS}")
    if scorable(report) and scores is None and edited:
        shown.append(f"- SONAR and model understandability: {_PENDING_SCORES}")
    elif scorable(report):
        if scores is None or scores.sonar is None:
            unscored.append("SONAR")
        else:
            shown += _sonar(scores.sonar)
        if scores is None or (scores.ssc is None and not scores.ssc_error):
            unscored.append("SSC")
        else:
            shown += _understandability(scores)
    if not shown:
        return ["", f"**Scores**: not computed — {_HOW_TO_SCORE}"]
    missing = [f"{' and '.join(unscored)}: run *docfact: Score*"] if unscored else []
    if judged is None and not unjudged:
        missing.append("ReFEree: the model judge runs on save")
    return [
        "",
        "**Scores**",
        *shown,
        *([f"- Not computed — {'; '.join(missing)}"] if missing else []),
    ]


_PENDING_VERDICTS = "pending: re-judged on save (the function changed since it was judged)"
_PENDING_SCORES = (
    "pending: scored again on save or by *docfact: Score* (the function changed "
    "since it was scored)"
)


def _sonar(result: SonarResult) -> list[str]:
    lines = ["- SONAR"]
    for name in DIMENSIONS:
        measure = getattr(result, name)
        if measure.value is None:
            lines.append(f"    - {name.capitalize()}: {_escape(measure.how)}")
        else:
            lines.append(
                f"    - {name.capitalize()} {_bar(measure.value)} {measure.value:.2f} — "
                f"{_escape(measure.how)}"
            )
    if result.counterexample is not None:
        example = result.counterexample
        lines.append(
            f"    - Where they disagree: for `{example.input}` the function "
            f"{example.original}; code written from the docstring {example.candidate}"
        )
    return lines


def _understandability(scores: FunctionScores) -> list[str]:
    p1 = scores.ssc
    if p1 is None or p1.value is None:
        return [
            f"- Model understandability (SSC): not computed — {scores.ssc_error or 'no summaries'}"
        ]
    over = f"calibrated over {p1.calibrated_over} functions of the project"
    if math.isfinite(p1.tau):
        cut = f"tau {p1.tau:.2f}, i.e. SSC ≥ {1 - p1.tau:.2f} is High, {over}"
    else:
        cut = f"not labelled: too few functions calibrated ({over})"
    label = (p1.label or "unlabelled").capitalize()
    line = (
        f"- Model understandability: **{label}** {_bar(p1.value)} "
        f"(SSC {p1.value:.2f}, k = {p1.k}; {cut})"
    )
    extra = []
    p2 = scores.docstring_similarity
    if p2 is not None and p2.value is not None:
        extra.append(f"    - P2, docstring vs the model's reading: {p2.value:.2f} ({p2.label})")
    if scores.judged is not None and scores.judged.share is not None:
        extra.append(
            f"    - P3, summaries judged correct: {scores.judged.share:.0%} ({scores.judged.label})"
        )
    return [line, *extra]


def _bar(value: float) -> str:
    filled = round(max(0.0, min(1.0, value)) * _BAR_WIDTH)
    return f"`{'█' * filled}{'░' * (_BAR_WIDTH - filled)}`"


def _referee(judged: JudgeResult, sentences: int) -> str:
    if judged.score is None:
        return f"ReFEree SCORE: no verdict — {judged.error or 'the model gave none'}"
    missing = f", {judged.missing} verdicts missing" if judged.missing else ""
    return (
        f"ReFEree SCORE {_bar(judged.score)} {judged.score:.2f} — "
        f"consistent verdicts over {sentences} sentences x {len(_CRITERIA)} criteria, "
        f"judged by the model{missing}"
    )


def _sentence(segment: Segment) -> str:
    text = " ".join(segment.text.split())
    if segment.entry is not None and segment.entry.name is not None:
        text = f"{segment.entry.name.text}: {text}"
    return text if len(text) <= 90 else text[:87] + "..."


def _where(evidence: Evidence) -> str:
    return f"{Path(evidence.path).name}:{evidence.line}" if evidence.path else "external"


def _finding_line(finding: Finding) -> str:
    return f"**{finding.code}** ({finding.criterion}): {_escape(finding.message)}"


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _escape(text: str) -> str:
    return text.replace("*", "\\*").replace("_", "\\_") if "`" not in text else text
