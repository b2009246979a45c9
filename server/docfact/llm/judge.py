"""ReFEree's judge: C1-C4 verdicts per sentence of a docstring, from a model, cached.

The model sees the unit's code with its docstring cut out (the text under test must not
vouch for itself), the 1-hop evidence, and the sentences. A verdict is 1 (consistent),
0 (inconsistent) or None (no verdict: the answer was missing or malformed, or the votes
tied); None never counts either way. Only results whose every sample answered every
(sentence, criterion) are cached.
"""

from __future__ import annotations

import asyncio
import builtins
import inspect
import logging
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..analysis import UnitAnalysis
from ..cache import Cache, cache_key
from ..checks.registry import RULES
from ..config import LlmSettings
from ..model import Evidence, Finding, Span, Unit
from . import prompts
from .client import LlmClient, LlmError
from .prompts import CRITERIA, Answer, JudgeInput

log = logging.getLogger(__name__)

# criterion -> the rule of a model finding (its severity is the rule table's)
FINDING_CODES = {"name": "DF104", "type": "DF206", "function": "DF301", "context": "DF401"}


@dataclass(frozen=True)
class SegmentVerdict:
    index: int  # position in UnitAnalysis.segments
    verdicts: dict[str, int | None]  # criterion -> majority 1/0, None for no verdict
    votes: dict[str, list[int | None]]  # criterion -> every sample's verdict
    reason: str  # the model's reason for a 0, "" otherwise


@dataclass(frozen=True)
class Agreement:
    """The model found what a deterministic check already reports: that finding stands."""

    finding: Finding
    criterion: str
    reason: str

    def noted(self, finding: Finding) -> Finding:
        """``finding`` (the one agreed with, as shown) saying that the model agrees."""
        return replace(finding, message=f"{finding.message}{AGREES}")

    def about(self, finding: Finding) -> bool:
        return (finding.code, finding.span.start) == (self.finding.code, self.finding.span.start)


AGREES = " (the model agrees)"

# Per sentence, criterion -> every sample's verdict.
Votes = list[dict[str, list[int | None]]]
# What a protocol returns: the votes, the reason given for 0s (one per sentence), the
# number of calls, and the error that cost verdicts, if any.
RunOutcome = tuple[Votes, list[str], int, str | None]


@dataclass
class JudgeResult:
    symbol: str
    segments: list[SegmentVerdict]
    findings: list[Finding] = field(default_factory=list)
    agreements: list[Agreement] = field(default_factory=list)
    score: float | None = None  # consistent / valid verdicts (ReFEree SCORE)
    missing: int = 0  # verdicts that could not be had, of len(segments) x 4
    calls: int = 0  # model requests made for this unit (0 on a cache hit)
    cache_hit: bool = False
    error: str | None = None  # why verdicts are missing, when a call failed


def code_without_docstring(text: str, unit: Unit) -> str:
    """The unit's source from the start of its first line, dedented, docstring cut out."""
    start = text.rfind("\n", 0, unit.span.start) + 1
    before, after = text[start : unit.span.end], ""
    if unit.docstring is not None:
        literal = unit.docstring.literal
        before, after = text[start : literal.start], text[literal.end : unit.span.end]
        head, tail = before.rstrip(" \t"), after.lstrip(" \t")
        if (not head or head.endswith("\n")) and tail[:1] in ("\n", ""):
            before, after = head, tail[1:]  # the docstring had its own line: drop the line
    return _cut(textwrap.dedent(before + after).lstrip("\n").rstrip())


def _cut(code: str) -> str:
    """``code`` cut at a line boundary when it is too long to send whole."""
    if len(code) <= prompts.MAX_CODE_CHARS:
        return code
    kept = code[: prompts.MAX_CODE_CHARS].rsplit("\n", 1)[0]
    hidden = code.count("\n") - kept.count("\n")
    return f"{kept}\n# ... ({hidden} more lines not shown)"


def judge_input(report: UnitAnalysis, text: str, evidence: Sequence[Evidence]) -> JudgeInput:
    return JudgeInput(
        code=code_without_docstring(text, report.unit),
        evidence=tuple(_with_builtin_docs(e) for e in evidence if not _shadowed(e, report)),
        sentences=tuple(prompts.shown_sentence(s) for s in report.segments),
        language="Java" if report.docstring.style == "javadoc" else "Python",
    )


def _shadowed(evidence: Evidence, report: UnitAnalysis) -> bool:
    """A global of the unit's module named like one of its parameters: in the unit the name
    is the parameter (``calendar.month`` for a function taking ``month``)."""
    module = report.symbol.removesuffix("." + report.unit.qualname)
    head, _, name = evidence.symbol.rpartition(".")
    signature = report.unit.signature
    return (
        head == module
        and signature is not None
        and any(p.name == name for p in signature.parameters)
    )


def _with_builtin_docs(evidence: Evidence) -> Evidence:
    """A builtin (``len``, ``ValueError``) has no source to excerpt: its own documentation
    (the first paragraph) stands for it instead of an empty block."""
    name = evidence.symbol.removeprefix("builtins.")
    found = getattr(builtins, name, None) if not evidence.path and "." not in name else None
    doc = inspect.getdoc(found) if found is not None else None
    if not doc:
        return evidence
    summary = doc.split("\n\n", 1)[0][:600]
    return replace(evidence, text=f'{evidence.text}  (builtin)\n"""{summary}"""')


def judge_cache_key(report: UnitAnalysis, judged: JudgeInput, settings: LlmSettings) -> str:
    """Everything a verdict depends on (docfact's version is added by cache_key)."""
    return cache_key(
        "referee-judge",
        judged.code,
        report.docstring.text.value,
        judged.sentences,
        [(e.symbol, e.text) for e in judged.evidence],
        settings.model,
        settings.api_base,
        settings.temperature,
        settings.top_p,
        settings.votes,
        settings.protocol,
        prompts.prompt_digest(),
    )


async def judge_unit(
    report: UnitAnalysis,
    text: str,
    evidence: Sequence[Evidence],
    settings: LlmSettings,
    cache: Cache | None,
    client: LlmClient,
) -> JudgeResult:
    """Verdicts, findings and SCORE for one documented unit."""
    if not report.segments:
        return JudgeResult(report.symbol, [])
    judged = judge_input(report, text, evidence)
    key = judge_cache_key(report, judged, settings)
    stored = _from_cache(cache, key, len(report.segments)) if cache is not None else None
    if stored is not None:
        votes, reasons = stored
        return _result(report, evidence, settings, votes, reasons, calls=0, cache_hit=True)
    votes, reasons, calls, error = await _run(judged, settings, client)
    complete = all(v is not None for sentence in votes for vs in sentence.values() for v in vs)
    if complete and cache is not None:
        cache.put(key, [{"votes": v, "reason": r} for v, r in zip(votes, reasons)])
    result = _result(report, evidence, settings, votes, reasons, calls=calls, cache_hit=False)
    result.error = error
    if not complete and error is None:  # the model answered, but not in a form we read
        lost = sum(v is None for sentence in votes for vs in sentence.values() for v in vs)
        total = sum(len(vs) for sentence in votes for vs in sentence.values())
        log.warning(
            "%s: the model's judgement could not be read (%d of %d verdicts missing)",
            report.symbol,
            lost,
            total,
        )
    return result


async def judge_units(
    reports: Sequence[UnitAnalysis],
    text: str,
    evidence_for: Callable[[UnitAnalysis], Sequence[Evidence]],
    settings: LlmSettings,
    cache: Cache | None,
    client: LlmClient,
) -> list[JudgeResult]:
    """Judge the units of one file concurrently (the client bounds how many calls run).

    Cancelling the task that awaits this cancels every call still in flight.
    """
    return list(
        await asyncio.gather(
            *(
                judge_unit(report, text, evidence_for(report), settings, cache, client)
                for report in reports
            )
        )
    )


async def judge_sentence(
    judged: JudgeInput, index: int, settings: LlmSettings, client: LlmClient
) -> tuple[dict[str, int | None], str, int, str | None]:
    """Majority verdicts on sentence ``index`` of ``judged``, which may hold a text that is
    not in the file (a proposed correction): (criterion -> 1/0/None, the reason for a 0,
    calls, error). Not cached here: the caller caches what it builds on the verdicts."""
    if settings.protocol == "paper":  # one request per sentence: ask about this one only
        judged, index = replace(judged, sentences=(judged.sentences[index],)), 0
    votes, reasons, calls, error = await _run(judged, settings, client)
    return {c: majority(votes[index][c]) for c in CRITERIA}, reasons[index], calls, error


# --- the two protocols --------------------------------------------------------------------
# Each returns a RunOutcome.


async def _run(judged: JudgeInput, settings: LlmSettings, client: LlmClient) -> RunOutcome:
    protocol = _run_batched if settings.protocol == "batched" else _run_paper
    return await protocol(judged, settings, client)


async def _run_batched(judged: JudgeInput, settings: LlmSettings, client: LlmClient) -> RunOutcome:
    count = len(judged.sentences)
    texts, calls, error = await _samples(
        client,
        prompts.batched_messages(judged),
        settings.votes,
        response_format=prompts.BATCHED_RESPONSE_FORMAT,
        max_tokens=prompts.batched_max_tokens(count),
    )
    samples = [
        prompts.parse_batched(t, count) if t is not None else [prompts.NO_ANSWER] * count
        for t in texts
    ]
    votes = [
        {c: [sample[i].verdicts[c] for sample in samples] for c in CRITERIA} for i in range(count)
    ]
    reasons = [_reason_for_zero(votes[i], [sample[i] for sample in samples]) for i in range(count)]
    return votes, reasons, calls, error


async def _run_paper(judged: JudgeInput, settings: LlmSettings, client: LlmClient) -> RunOutcome:
    pairs = [(i, c) for i in range(len(judged.sentences)) for c in CRITERIA]
    outcomes = await asyncio.gather(
        *(
            _samples(
                client,
                prompts.paper_messages(judged, i, c),
                settings.votes,
                max_tokens=prompts.PAPER_MAX_TOKENS,
            )
            for i, c in pairs
        )
    )
    votes: list[dict[str, list[int | None]]] = [{} for _ in judged.sentences]
    for (i, c), (texts, _, _) in zip(pairs, outcomes):
        votes[i][c] = [prompts.parse_paper(t) if t is not None else None for t in texts]
    calls = sum(count for _, count, _ in outcomes)
    error = next((error for _, _, error in outcomes if error), None)
    return votes, [""] * len(judged.sentences), calls, error


async def _samples(
    client: LlmClient,
    messages: list[dict[str, str]],
    votes: int,
    *,
    response_format: dict | None = None,
    max_tokens: int | None = None,
) -> tuple[list[str | None], int, str | None]:
    """``votes`` answer texts (None for each one lost to a failure), calls made, error.

    Asks for all samples in one call (``n``); a server that returns fewer is asked again
    for the rest, so at most ``votes`` calls are made.
    """
    texts: list[str | None] = []
    calls = 0
    error = None
    while len(texts) < votes and calls < votes:
        calls += 1
        try:
            completion = await client.complete(
                messages,
                n=votes - len(texts),
                response_format=response_format,
                max_tokens=max_tokens,
            )
        except LlmError as failure:
            error = str(failure)
            break
        texts.extend(completion.choices[: votes - len(texts)])
    return texts + [None] * (votes - len(texts)), calls, error


def _reason_for_zero(votes: dict[str, list[int | None]], answers: list[Answer]) -> str:
    """The reason of the first sample that voted 0 on a criterion the majority finds 0."""
    for criterion, values in votes.items():
        if majority(values) == 0:
            for answer in answers:
                if answer.verdicts[criterion] == 0 and answer.reason:
                    return answer.reason
    return ""


def majority(values: Sequence[int | None]) -> int | None:
    """The majority of the valid votes; None when there is none or a tie."""
    counts = Counter(v for v in values if v is not None)
    if counts[0] == counts[1]:
        return None
    return 1 if counts[1] > counts[0] else 0


# --- cache and results ---------------------------------------------------------------------


def _from_cache(cache: Cache, key: str, count: int) -> tuple[Votes, list[str]] | None:
    stored = cache.get(key)
    if not isinstance(stored, list) or len(stored) != count:
        return None
    try:
        votes = [{c: list(entry["votes"][c]) for c in CRITERIA} for entry in stored]
        reasons = [entry["reason"] for entry in stored]
    except (KeyError, TypeError):
        return None
    # As written: 0, 1 or None per vote (a list among them broke the count), a text per reason.
    if not all(
        v is None or (type(v) is int and v in (0, 1)) for e in votes for c in e.values() for v in c
    ) or not all(isinstance(r, str) for r in reasons):
        return None
    return votes, reasons


def _result(
    report: UnitAnalysis,
    evidence: Sequence[Evidence],
    settings: LlmSettings,
    votes: Votes,
    reasons: list[str],
    *,
    calls: int,
    cache_hit: bool,
) -> JudgeResult:
    segments = [
        SegmentVerdict(i, {c: majority(v[c]) for c in CRITERIA}, v, reasons[i])
        for i, v in enumerate(votes)
    ]
    result = JudgeResult(report.symbol, segments, calls=calls, cache_hit=cache_hit)
    verdicts = [v for s in segments for v in s.verdicts.values()]
    valid = [v for v in verdicts if v is not None]
    result.missing = len(verdicts) - len(valid)
    result.score = sum(valid) / len(valid) if valid else None
    for verdict in segments:
        _add_findings(result, report, evidence, settings, verdict)
    return result


def _add_findings(
    result: JudgeResult,
    report: UnitAnalysis,
    evidence: Sequence[Evidence],
    settings: LlmSettings,
    verdict: SegmentVerdict,
) -> None:
    segment = report.segments[verdict.index]
    text = report.docstring.text
    span = text.span_of(segment.start, segment.end)
    for criterion in CRITERIA:
        if verdict.verdicts[criterion] != 0:
            continue
        # The rules' findings, suppressed ones included: a sentence a comment silences
        # for a rule is not reported again under the model's code.
        existing = next(
            (f for f in report.findings if f.criterion == criterion and _touches(f, span)), None
        )
        if existing is not None:
            result.agreements.append(Agreement(existing, criterion, verdict.reason))
            continue
        code = FINDING_CODES[criterion]
        title = prompts.criteria()[criterion].title.lower()
        reason = verdict.reason or f"the model judges this sentence a case of {title}"
        result.findings.append(
            Finding(
                code=code,
                criterion=criterion,
                severity=RULES[code].severity,
                message=f"{reason} (model: {settings.model})",
                span=span,
                symbol=report.symbol,
                sentence=text.value[segment.start : segment.end],
                sentence_span=span,
                evidence=tuple(evidence),
                data={"model": settings.model, "votes": verdict.votes[criterion]},
            )
        )


def _touches(finding: Finding, span: Span) -> bool:
    """Whether a finding lies on ``span``: its own range, or its sentence or entry."""
    return _overlaps(finding.span, span) or _overlaps(finding.sentence_span, span)


def _overlaps(a: Span, b: Span) -> bool:
    return (a.start < b.end and b.start < a.end) or (
        a.start == a.end and b.start <= a.start <= b.end
    )
