"""The hover card: a docstring's sentences with their verdicts, and the scores."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ..checks.names import render_signature
from ..engine import UnitReport
from ..model import Finding, Span
from .convert import PositionMapper

_NOT_COMPUTED = (
    "not computed: this version of docfact runs the deterministic checks only "
    "(criteria C1 name and C2 type); model-backed scoring is not available yet"
)


def card(state, mapper: PositionMapper, offset: int, evidence_for) -> types.Hover | None:
    """Hover for a position on a docstring or on the name of a documented definition."""
    report = _report_at(state.analysis.units, offset)
    if report is None:
        return None
    findings = [f for f in state.findings if f.symbol == report.symbol]
    hovered = report.unit.docstring.literal
    if not _inside(report.unit.name_span, offset):
        target = hovered
    else:
        target = report.unit.name_span
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                     value=markdown(report, findings,
                                                    evidence_for(report.symbol))),
        range=mapper.range(target),
    )


def _report_at(reports: list[UnitReport], offset: int) -> UnitReport | None:
    for report in reports:
        literal = report.unit.docstring.literal
        if _inside(literal, offset) or _inside(report.unit.name_span, offset):
            return report
    return None


def _inside(span: Span, offset: int) -> bool:
    return span.start <= offset < span.end


def markdown(report: UnitReport, findings: list[Finding], evidence=()) -> str:
    unit = report.unit
    lines = [f"**docfact** · `{report.symbol or unit.kind}`"]
    if unit.signature is not None:
        lines += ["", f"`{unit.name}{render_signature(unit.signature)}`"]
    text = unit.docstring
    placed: set[int] = set()
    rows = []
    for number, segment in enumerate(report.segments, 1):
        span = text.span_of(segment.start, segment.end)
        mine = [i for i, f in enumerate(findings) if _overlaps(f.sentence_span, span)]
        placed.update(mine)
        sentence = " ".join(segment.text.split())
        if len(sentence) > 90:
            sentence = sentence[:87] + "..."
        mark = "✗" if mine else "✓"
        rows.append(f"{number}. {mark} {_escape(sentence)}")
        rows += [f"    - {_finding_line(findings[i])}" for i in mine]
    failing = len({i for i in placed})
    lines += ["", f"**Sentences**: {len(report.segments)} checked, "
                  f"{sum(1 for r in rows if r.split(' ', 2)[1] == '✗')} with findings", ""]
    lines += rows
    others = [f for i, f in enumerate(findings) if i not in placed]
    if others:
        lines += ["", "**Other findings**"] + [f"- {_finding_line(f)}" for f in others]
    criteria = sorted({f.criterion for f in findings})
    if criteria:
        lines += ["", f"**Criteria that failed**: {', '.join(criteria)} ({failing} findings)"]
    if evidence:
        lines += ["", "**Evidence** (1-hop neighbours in the project graph)"]
        lines += [f"- `{e.symbol}` ({_where(e)})" for e in evidence]
    lines += [
        "", "**Scores**",
        f"- ReFEree SCORE: {_NOT_COMPUTED}",
        "- SONAR (correctness, abstraction, conciseness, fluency): not computed",
        "- Model understandability (SSC): not computed",
    ]
    return "\n".join(lines)


def _where(evidence) -> str:
    return f"{Path(evidence.path).name}:{evidence.line}" if evidence.path else "external"


def _finding_line(finding: Finding) -> str:
    return f"**{finding.code}** ({finding.criterion}): {_escape(finding.message)}"


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _escape(text: str) -> str:
    return text.replace("*", "\\*").replace("_", "\\_") if "`" not in text else text
