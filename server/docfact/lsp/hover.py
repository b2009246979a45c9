"""The hover card: a docstring's sentences with their verdicts, the evidence, the scores."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..analysis import UnitAnalysis
from ..model import Evidence, Finding, Segment, Span
from ..sonar_ssc import FunctionScores, scorable
from .convert import PositionMapper
from .score_words import consistency_line, detail_lines, sonar_lines, understandability_lines

if TYPE_CHECKING:
    from ..llm.judge import JudgeResult
    from .state import DocumentState

_CRITERIA = ("name", "type", "function", "context")
NO_MODEL = "set a model (docfact.llm.model, or model in [tool.docfact.llm]) to compute them"
HOW_TO_SCORE = "run *docfact: Score Docstrings of This File*"
_EVIDENCE_SHOWN = 5  # a card that scrolls is not read


def card(
    state: DocumentState,
    mapper: PositionMapper,
    offset: int,
    evidence_for: Callable[[str], Sequence[Evidence]],
    scoring: str = NO_MODEL,
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
        scoring=scoring,
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
    scoring: str = NO_MODEL,
) -> str:
    """The card; ``unjudged`` (``unscored``): the unit's verdicts (scores) were dropped
    because it was edited since; ``scoring``: how to get the scores not computed."""
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
        rows.append(f"{number}. {'✗' if mine else '✓'} {_sentence(segment)}")
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
        lines += ["", "**What the code uses** (what the model judge reads with it)"]
        lines += [f"- `{e.symbol}` ({_where(e)})" for e in evidence[:_EVIDENCE_SHOWN]]
        if len(evidence) > _EVIDENCE_SHOWN:
            lines.append(f"- and {len(evidence) - _EVIDENCE_SHOWN} more")
    return "\n".join(lines + _scores(report, judged, scores, unjudged, unscored, scoring))


def _scores(
    report: UnitAnalysis,
    judged: JudgeResult | None,
    scores: FunctionScores | None,
    unjudged: bool = False,
    edited: bool = False,
    scoring: str = NO_MODEL,
) -> list[str]:
    """The scores that were computed, in plain words; those an edit made pending; one line
    for those that were not computed, saying how to get them (``scoring``)."""
    shown, unscored, details = [], [], []
    if judged is not None:
        shown.append(f"- {_referee(judged, len(report.segments))}")
    elif unjudged:
        shown.append(f"- Consistency: {_PENDING_VERDICTS}")
    if scorable(report) and scores is None and edited:
        shown.append(f"- Correctness and the other scores: {_PENDING_SCORES}")
    elif scorable(report):
        if scores is None or scores.sonar is None:
            unscored.append("correctness, abstraction, conciseness, fluency")
        else:
            shown += [f"- {rendered(line)}" for line in sonar_lines(scores.sonar)]
        if scores is None or (scores.ssc is None and not scores.ssc_error):
            unscored.append("understandability")
        else:
            shown += [f"- {rendered(line)}" for line in understandability_lines(scores)]
        if scores is not None:
            details = [f"- {rendered(line)}" for line in detail_lines(scores)]
    if not shown:
        return ["", f"**Scores**: not computed — {scoring}"]
    missing = [f"{', '.join(unscored)}: {scoring}"] if unscored else []
    if judged is None and not unjudged:
        missing.append("consistency: the model judge runs on save")
    return [
        "",
        "**Scores**",
        *shown,
        *([f"- Not computed — {'; '.join(missing)}"] if missing else []),
        *(["", "---", DETAILS, *details] if details else []),
    ]


DETAILS = "*Measurement details* (the terms of `docfact score --json`)"


_PENDING_VERDICTS = "pending: judged again on save (the function changed since)"
_PENDING_SCORES = "pending: scored again on save or on request (the function changed since)"


def _referee(judged: JudgeResult, sentences: int) -> str:
    if judged.score is None:
        why = _short(judged.error) if judged.error else "the model gave none"
        return f"Consistency: no verdict — {rendered(why)}"
    return consistency_line(judged.score, sentences, len(_CRITERIA), judged.missing)


_ERROR_CHARS = 160  # a model server's error can be a whole page


def _short(error: str) -> str:
    """A failed call's error on one line, cut (the log has all of it)."""
    said = " ".join(error.split())
    if len(said) <= _ERROR_CHARS:
        return said
    return said[: _ERROR_CHARS - 3] + "... (the docfact log has all of it)"


def _sentence(segment: Segment) -> str:
    """A docstring's sentence as markdown: its markup (Sphinx roles, RST literals, epydoc
    fields) as code, what is left escaped, long ones cut."""
    text = " ".join(segment.text.split())
    if segment.entry is not None and segment.entry.name is not None:
        text = f"{segment.entry.name.text}: {text}"
    if len(text) > 90:
        text = text[:87] + "..."
    return rendered(text)


# :func:`x`, :py:meth:`~a.b.c` (shown as `c`), :class:`title <target>` (as `title`)
_ROLE = re.compile(r":(?:[\w-]+:)+`(~?)([^`<]*?)(?:\s*<[^`>]*>)?`")
_LITERAL = re.compile(r"``([^`]+)``|[CILM]\{([^{}]+)\}")
_CODE = re.compile(r"(`[^`]*`)")
# reStructuredText's backslash escapes of markup characters (in\_feet, \*args): the
# character as written. Other backslashes (a regular expression's \d) stay.
_RST_ESCAPE = re.compile(r"\\([\\_*`|])")
# Markdown that a sentence's plain text may set off by accident: emphasis (an underscore
# only at a word's edge: in_feet stays as written), HTML, links, a backslash before them.
_SPECIAL = re.compile(r"\\(?=[\\*_<\[])|[*<\[]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def rendered(text: str) -> str:
    """Docstring text as markdown that shows it as written."""

    def role(match: re.Match[str]) -> str:
        target = match.group(2).strip()
        return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"

    text = _ROLE.sub(role, text)
    text = _LITERAL.sub(lambda m: f"`{m.group(1) or m.group(2)}`", text)
    return "".join(
        part
        if part.startswith("`") and part.endswith("`") and len(part) > 1
        else _escape(_RST_ESCAPE.sub(r"\1", part))
        for part in _CODE.split(text)
    )


def _where(evidence: Evidence) -> str:
    return f"{Path(evidence.path).name}:{evidence.line}" if evidence.path else "external"


def _finding_line(finding: Finding) -> str:
    return f"**{finding.code}** ({finding.criterion}): {rendered(finding.message)}"


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _escape(text: str) -> str:
    """Plain text as markdown (no code spans in it)."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), text)
