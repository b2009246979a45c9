"""The hover card: a docstring's sentences with their verdicts, the evidence, the scores."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

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
    details_for: str | None = None,
) -> types.Hover | None:
    """Hover for a position on the name of a documented definition, or on a span of its
    docstring that a finding flags (a clean word of a docstring has no card).
    ``details_for``: the document's uri when the client shows the card's details with
    ``SHOW_DETAILS`` (a link ends the card); else they follow a rule."""
    found = _unit_at(state, offset)
    if found is None:
        return None
    report, findings = found
    if _inside(report.unit.name_span, offset):
        over = report.unit.name_span
    else:
        flagged = [f.span for f in findings if _flags(f.span, offset)]
        if not flagged:
            return None
        over = min(flagged, key=lambda span: span.end - span.start)
    first, details = _parts(report, findings, state, evidence_for, scoring)
    if details_for is None:
        value = "\n".join([*first, "", "---", "", *details])
    else:
        at = mapper.range(report.unit.name_span).start
        arguments = quote(json.dumps([details_for, at.line, at.character]))
        value = "\n".join([*first, "", f"[{SUMMARY}](command:{SHOW_DETAILS}?{arguments})"])
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value),
        range=mapper.range(over),
    )


def details(
    state: DocumentState,
    offset: int,
    evidence_for: Callable[[str], Sequence[Evidence]],
    scoring: str = NO_MODEL,
) -> str | None:
    """The details of the card of the definition at ``offset`` (what ``SHOW_DETAILS``
    shows), as markdown, under the card's heading."""
    found = _unit_at(state, offset)
    if found is None:
        return None
    first, more = _parts(*found, state, evidence_for, scoring)
    return "\n".join([first[0], "", *more])


def _unit_at(state: DocumentState, offset: int) -> tuple[UnitAnalysis, list[Finding]] | None:
    """The documented definition at ``offset`` (its name or docstring) with its findings."""
    report = _report_at(state.analysis.units, offset)
    if report is None:
        return None
    return report, [f for f in state.all_findings if f.symbol == report.symbol]


def _parts(
    report: UnitAnalysis,
    findings: list[Finding],
    state: DocumentState,
    evidence_for: Callable[[str], Sequence[Evidence]],
    scoring: str,
) -> tuple[list[str], list[str]]:
    return parts(
        report,
        findings,
        evidence_for(report.symbol),
        state.judged.get(report.symbol),
        state.scored.get(report.symbol),
        unjudged=report.symbol in state.unjudged,
        unscored=report.symbol in state.unscored,
        scoring=scoring,
    )


# VS Code's hover is capped at max(editor height / 4, 250) px and does not measure again
# when a <details> element inside it opens (code-server 4.139: the opened part is cut off
# and cannot be scrolled to), so the details open in an editor tab, by a command link.
SHOW_DETAILS = "docfact.showCardDetails"  # the VS Code extension's command
DETAILS_COMMAND = "docfact.cardDetails"  # the server's: [uri, line, character] -> markdown
DETAILS_KEY = "hoverDetailsCommand"  # beside "docfact" in initializationOptions


def shows_details(initialization_options: object) -> bool:
    """Whether the client said it runs ``SHOW_DETAILS`` from a link in the hover (LSP has
    no capability for it: the VS Code extension says so, Neovim never)."""
    return isinstance(initialization_options, dict) and (
        initialization_options.get(DETAILS_KEY) is True
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
    """The whole card as plain markdown, its details after a rule (see ``parts``)."""
    first, more = parts(report, findings, evidence, judged, scores, unjudged, unscored, scoring)
    return "\n".join([*first, "", "---", "", *more])


def parts(
    report: UnitAnalysis,
    findings: list[Finding],
    evidence: Sequence[Evidence] = (),
    judged: JudgeResult | None = None,
    scores: FunctionScores | None = None,
    unjudged: bool = False,
    unscored: bool = False,
    scoring: str = NO_MODEL,
) -> tuple[list[str], list[str]]:
    """The card's two parts, as lines of markdown; ``unjudged`` (``unscored``): the unit's
    verdicts (scores) were dropped because it was edited since; ``scoring``: how to get the
    scores not computed.

    The first part fits a hover without scrolling for a typical function: the sentences
    with findings and one short line per score. The details: every sentence, what the code
    uses, how each score was measured."""
    unit = report.unit
    name = f"{unit.name}{unit.signature.rendered()}" if unit.signature else None
    name = f"`{name or report.symbol or unit.kind}`"
    rows, placed, flagged, wrong = [], set(), [], 0
    for number, segment in enumerate(report.segments, 1):
        span = report.docstring.text.span_of(segment.start, segment.end)
        mine = [i for i, f in enumerate(findings) if _overlaps(f.sentence_span, span)]
        placed.update(mine)
        rows.append(f"{number}. {'✗' if mine else '✓'} {_sentence(segment)}")
        if mine:  # the sentences with findings, and the findings, in the card's first part
            wrong += 1
            flagged.append(f"- ✗ {_sentence(segment)}")
            flagged += [f"    - {_finding_line(findings[i], short=True)}" for i in mine]
    counted = f"{wrong} of {len(report.segments)} sentences with findings"
    lines = [f"**docfact** · {name} · {counted}", *([""] + flagged if flagged else [])]
    others = [f for i, f in enumerate(findings) if i not in placed]
    if others:
        lines += ["", "**Other findings**"] + [f"- {_finding_line(f)}" for f in others]
    shown, details = _scores(report, judged, scores, unjudged, unscored, scoring)
    lines += shown
    more = [f"**Every sentence** (of {report.symbol or unit.name})", "", *rows]
    cut = [f for f in findings if f.code in SCORE_CODES]
    if cut:
        more += ["", "**The scores' findings in full**"] + [f"- {_finding_line(f)}" for f in cut]
    criteria = sorted({f.criterion for f in findings})
    if criteria:
        more += ["", f"**Criteria that failed**: {', '.join(criteria)}"]
    if evidence:
        more += ["", "**What the code uses** (what the model judge reads with it)"]
        more += [f"- `{e.symbol}` ({_where(e)})" for e in evidence[:_EVIDENCE_SHOWN]]
        if len(evidence) > _EVIDENCE_SHOWN:
            more.append(f"- and {len(evidence) - _EVIDENCE_SHOWN} more")
    if details:
        more += ["", DETAILS, *details]
    return lines, more


SUMMARY = "Details: every sentence, what the code uses, how the scores were measured"


def _scores(
    report: UnitAnalysis,
    judged: JudgeResult | None,
    scores: FunctionScores | None,
    unjudged: bool = False,
    edited: bool = False,
    scoring: str = NO_MODEL,
) -> tuple[list[str], list[str]]:
    """The scores that were computed, one plain line each; those an edit made pending;
    those that were not computed, saying how to get them (``scoring``), on the heading's
    line; and the measurement details, for the card's details."""
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
        return ["", f"**Scores**: not computed — {scoring}"], details
    missing = [f"{', '.join(unscored)}: {scoring}"] if unscored else []
    if judged is None and not unjudged:
        missing.append("consistency: the model judge runs on save")
    # What was not computed shares the heading's line: a line less in a card at its cap.
    gaps = f". Not computed — {'; '.join(missing)}" if missing else ""
    return ["", f"**Scores** {SCALE}{gaps}", *shown], details


SCALE = "(0 to 1, higher is better)"
DETAILS = "**Measurement details** (the terms of `docfact score --json`)"


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


# The scores' findings: the card's scores say the rest (the full message is in the details).
SCORE_CODES = frozenset({"DF304", "DF305"})


def _finding_line(finding: Finding, short: bool = False) -> str:
    """A finding as a line; ``short``: a score's finding cut to its first clause."""
    message = finding.message
    if short and finding.code in SCORE_CODES:
        message = message.split(" (", 1)[0]
    return f"**{finding.code}** ({finding.criterion}): {rendered(message)}"


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _escape(text: str) -> str:
    """Plain text as markdown (no code spans in it)."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), text)
