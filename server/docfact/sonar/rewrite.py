"""Docstring rewrites that are verified before they are offered.

``abstract_rewrites``: SONAR-guided rewrites of a docstring's description (the paper's
dimension-aware prompting: the model is told the current Correctness and Abstraction and
what they mean). Each candidate is scored as ``sonar_scores`` scores a docstring and kept
only when its Correctness is not lower and its Abstraction strictly higher.

``sentence_rewrite``: a correction of one sentence that has a C1-C4 finding, kept only when
ReFEree's judge, shown the docstring with the sentence replaced, finds it consistent on
all four criteria.

Only the description is rewritten: the prose before the docstring's first section
(Args, Returns, Raises, a field list, a doctest or code block); the sections stay as
written, byte for byte. Verified results are cached; failed or partial ones never are.
"""

from __future__ import annotations

import asyncio
import inspect
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..analysis import UnitAnalysis
from ..cache import Cache, cache_key
from ..config import LlmSettings, SonarSettings
from ..llm import prompts as judge_prompts
from ..llm.client import LlmClient, LlmError
from ..llm.judge import judge_input, judge_sentence
from ..llm.prompts import JudgeInput
from ..model import DocstringText, Evidence, Span
from ..prompt_files import prompt_digest
from ..source.docstring import parse_docstring
from ..source.segment import split_sentences
from .conciseness import clean_compression
from .measure import Measure
from .regenerate import context_function, messages, sample
from .score import SonarResult, correctnesses, generator_clients, regenerate_pool, scoring_key_parts

PROMPT_FILES = ("abstract_v1.txt", "sentence_v1.txt")
REWRITE_TEMPERATURE = 0.7  # the k candidates should differ from each other
SENTENCE_TEMPERATURE = 0.0  # one correction, reproducible
SENTENCE_MAX_TOKENS = 256
_QUOTE_PAIRS = (('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("`", "`"))


def rewrite_prompt_version() -> str:
    """Digest of the rewrite prompts: part of each rewrite's cache key."""
    return prompt_digest("docfact.sonar", tuple(f"prompts/{name}" for name in PROMPT_FILES))


# --- the description a rewrite replaces ---------------------------------------------------


def description_end(docstring: str) -> int:
    """Where the description ends: after the last prose paragraph before the first
    section, field, doctest or code block (or a paragraph announcing one with "::").
    A rewrite replaces ``docstring[:description_end(docstring)]`` and nothing else."""
    parsed = parse_docstring(DocstringText(docstring, (), Span(0, 0)))
    end = 0
    for field in sorted(parsed.prose, key=lambda f: f.start):
        # Anything but blank lines in between is a heading, a field tag or a block.
        if docstring[end : field.start].strip() or field.text.endswith("::"):
            break
        end = field.end
    return end


def _description(answer: str) -> str | None:
    """The description a model answered, cleaned; None when it holds sections or blocks
    of its own (they would duplicate or replace the docstring's)."""
    text = inspect.cleandoc(clean_compression(answer))
    return text if text and description_end(text) == len(text) else None


# --- SONAR-guided rewrites ----------------------------------------------------------------


@dataclass(frozen=True)
class Rewrite:
    """One verified rewrite; ``baseline_*`` are the current docstring's scores."""

    description: str  # replaces docstring[:description_end] of the current docstring
    docstring: str  # the whole new docstring: the description, then the sections as they were
    description_end: int
    correctness: Measure
    abstraction: Measure
    baseline_correctness: Measure
    baseline_abstraction: Measure

    @property
    def title(self) -> str:
        """A code action title with both scores, before and after."""
        return (
            f"Describe more abstractly (SONAR Abstraction {self.baseline_abstraction.value:.2f}"
            f" → {self.abstraction.value:.2f}, Correctness {self.baseline_correctness.value:.2f}"
            f" → {self.correctness.value:.2f})"
        )


@dataclass(frozen=True)
class RewriteResult:
    rewrites: tuple[Rewrite, ...]  # verified, best first (Correctness, then Abstraction)
    tried: int  # distinct candidates scored
    calls: int  # model calls made (0 on a cache hit)
    cache_hit: bool = False
    error: str | None = None  # why candidates are missing or unverified, when something failed

    @property
    def failed(self) -> bool:
        return self.error is not None


async def abstract_rewrites(
    unit_source: str,
    function_name: str,
    docstring: str,
    context: str,
    client: LlmClient,
    settings: SonarSettings,
    cache: Cache | None,
    baseline: SonarResult | None = None,
    k: int = 3,
) -> RewriteResult:
    """Up to ``k`` more abstract descriptions of the function ``unit_source`` defines, each
    offered only when SONAR measures its docstring's Correctness not lower (and measured
    the same way) and its Abstraction strictly higher than ``docstring``'s.

    ``docstring`` is the current docstring's value and ``context`` its signature and imports
    (``build_context``), as for ``sonar_scores``; ``baseline`` is that docstring's
    ``SonarResult`` when it is known, else its two scores are measured first. Runs whatever
    ``settings.enabled`` says: a rewrite is always asked for. With a server that honours
    ``n``, at most 1 + (k + 1) x (1 + generators) model calls; none on a cache hit.
    """
    end = description_end(docstring)
    if context_function(context) != function_name:
        return RewriteResult((), 0, 0, error=f"the context holds no signature of {function_name}")
    if end == 0:
        return RewriteResult((), 0, 0, error="the docstring has no description before its sections")
    models = settings.generators or (client.model,)
    before = (baseline.correctness, baseline.abstraction) if baseline is not None else None
    key = cache_key(
        "sonar-rewrite",
        unit_source,
        function_name,
        docstring,
        context,
        k,
        [m.to_json() for m in before] if before else None,
        client.model,
        REWRITE_TEMPERATURE,
        rewrite_prompt_version(),
        *scoring_key_parts(client, settings, models),
    )
    cached = cache.get(key) if cache is not None else None
    restored = _from_json(cached, docstring, end) if cached is not None else None
    if restored is not None:
        return restored
    result, complete = await _rewrite(
        unit_source,
        function_name,
        docstring,
        end,
        context,
        client,
        generator_clients(client, models),
        models,
        settings,
        before,
        k,
    )
    if complete and cache is not None:
        cache.put(key, _to_json(result))
    return result


async def _rewrite(
    unit_source: str,
    function: str,
    docstring: str,
    end: int,
    context: str,
    client: LlmClient,
    clients: list[LlmClient],
    models: tuple[str, ...],
    settings: SonarSettings,
    before: tuple[Measure, Measure] | None,
    k: int,
) -> tuple[RewriteResult, bool]:
    """(the result, whether it is complete enough to cache)."""
    calls = 0
    if before is None:
        (before,), calls, error, complete = await _scores(
            unit_source, function, context, [docstring], clients, models, settings
        )
        if not complete:
            return RewriteResult(
                (), 0, calls, error=error or "the current docstring's tests failed"
            ), False
    missing = next((m.how for m in before if m.value is None), None)
    if missing is not None:
        error = f"the current docstring's scores are missing ({missing})"
        return RewriteResult((), 0, calls, error=error), False
    candidates, asked, error = await _candidates(unit_source, docstring[:end], before, client, k)
    calls += asked
    if not candidates:
        return RewriteResult((), 0, calls, error=error), error is None
    tail = docstring[end:]
    measured, asked, scoring_error, complete = await _scores(
        unit_source, function, context, [c + tail for c in candidates], clients, models, settings
    )
    rewrites = sorted(
        (
            Rewrite(c, c + tail, end, *after, *before)
            for c, after in zip(candidates, measured)
            if _better(*after, *before)
        ),
        key=lambda r: (r.correctness.value, r.abstraction.value),
        reverse=True,
    )
    error = error or scoring_error
    result = RewriteResult(tuple(rewrites), len(candidates), calls + asked, error=error)
    return result, complete and error is None


async def _candidates(
    unit_source: str, description: str, before: tuple[Measure, Measure], client: LlmClient, k: int
) -> tuple[list[str], int, str | None]:
    """Up to ``k`` distinct new descriptions, asked with the current scores (dimension-aware
    prompting): (descriptions, calls, error)."""
    correctness, abstraction = before
    prompt = messages(
        "abstract_v1.txt",
        code=textwrap.dedent(unit_source).strip(),
        description=description,
        correctness=f"{correctness.value:.2f}",
        abstraction=f"{abstraction.value:.2f}",
    )
    max_tokens = max(256, len(description) // 2)  # ~ twice the description's own length
    texts, calls, error = await sample(client, prompt, k, REWRITE_TEMPERATURE, max_tokens)
    found = (_description(text) for text in texts)
    return list(dict.fromkeys(d for d in found if d and d != description)), calls, error


async def _scores(
    unit_source: str,
    function: str,
    context: str,
    docstrings: list[str],
    clients: list[LlmClient],
    models: tuple[str, ...],
    settings: SonarSettings,
) -> tuple[list[tuple[Measure, Measure]], int, str | None, bool]:
    """(Correctness, Abstraction) of each docstring, measured as ``sonar_scores`` measures
    them, with every regeneration tested in one sandbox run: (measures, calls, error, complete)."""
    pools = await asyncio.gather(
        *(regenerate_pool(d, context, clients, models, settings) for d in docstrings)
    )
    judged = await correctnesses(
        unit_source, function, context, [p.regeneration for p in pools], settings
    )
    measures = [
        (correctness, pool.abstraction(context)) for pool, (correctness, _, _) in zip(pools, judged)
    ]
    error = next((p.error for p in pools if p.error), None)
    complete = error is None and all(ok for _, _, ok in judged)
    return measures, sum(p.calls for p in pools), error, complete


def _better(
    correctness: Measure, abstraction: Measure, base_correctness: Measure, base_abstraction: Measure
) -> bool:
    """Correctness not lower (and measured the same way: both executed or both
    approximate), Abstraction strictly higher."""
    value, base = correctness.value, base_correctness.value
    more, less = abstraction.value, base_abstraction.value
    if value is None or base is None or more is None or less is None:
        return False
    return correctness.approximate == base_correctness.approximate and value >= base and more > less


def _to_json(result: RewriteResult) -> dict:
    first = result.rewrites[0] if result.rewrites else None
    return {
        "tried": result.tried,
        "baseline": [first.baseline_correctness.to_json(), first.baseline_abstraction.to_json()]
        if first
        else None,
        "rewrites": [
            {
                "description": r.description,
                "correctness": r.correctness.to_json(),
                "abstraction": r.abstraction.to_json(),
            }
            for r in result.rewrites
        ],
    }


def _from_json(data: object, docstring: str, end: int) -> RewriteResult | None:
    """The result ``_to_json`` wrote, or None when the cache entry has another shape."""
    try:
        if not isinstance(data, dict):
            raise ValueError("not a rewrite result")
        before = [Measure.from_json(m) for m in data["baseline"]] if data["baseline"] else []
        rewrites = tuple(
            Rewrite(
                _text(r["description"]),
                _text(r["description"]) + docstring[end:],
                end,
                Measure.from_json(r["correctness"]),
                Measure.from_json(r["abstraction"]),
                *before,
            )
            for r in data["rewrites"]
        )
        return RewriteResult(rewrites, int(data["tried"]), 0, cache_hit=True)
    except (ValueError, KeyError, TypeError):
        return None


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("not text")
    return value


# --- a verified correction of one sentence --------------------------------------------------


async def sentence_rewrite(
    report: UnitAnalysis,
    text: str,
    evidence: Sequence[Evidence],
    sentence: str,
    reason: str,
    client: LlmClient,
    llm_settings: LlmSettings,
    cache: Cache | None,
) -> str | None:
    """A corrected text for ``sentence`` of ``report``'s docstring (a sentence with a C1-C4
    finding; ``reason`` is the judge's), or None when none is verified.

    ``report``, ``text`` (the file) and ``evidence`` are what ``judge_unit`` takes. The
    correction replaces the sentence's own text (an entry keeps its label). It is offered
    only when the judge, asked as ``llm_settings`` says (protocol, votes) about the
    docstring with the sentence replaced, finds it consistent on all four criteria. One
    rewrite call, then the judge's calls for one sentence (batched: up to ``votes``; paper:
    up to 4 x ``votes``). Cached only when the judge gave every verdict.
    """
    wanted = " ".join(sentence.split())
    index = next(
        (i for i, s in enumerate(report.segments) if " ".join(s.text.split()) == wanted), None
    )
    if index is None:
        return None
    judged = judge_input(report, text, evidence)
    key = cache_key(
        "sentence-rewrite",
        judged.code,
        report.docstring.text.value,
        wanted,
        reason,
        [(e.symbol, e.text) for e in judged.evidence],
        client.model,
        client.settings.api_base,
        client.settings.temperature,
        client.settings.top_p,
        llm_settings.votes,
        llm_settings.protocol,
        SENTENCE_TEMPERATURE,
        judge_prompts.prompt_digest(),
        rewrite_prompt_version(),
    )
    cached = cache.get(key) if cache is not None else None
    if cached is not None:
        return cached["sentence"]
    corrected = await _corrected(report, index, judged, reason, client)
    if corrected is None:
        return None
    segment = replace(report.segments[index], text=corrected)
    shown = list(judged.sentences)
    shown[index] = judge_prompts.shown_sentence(segment)
    verdicts, _, _, error = await judge_sentence(
        replace(judged, sentences=tuple(shown)), index, llm_settings, client
    )
    if error is not None or None in verdicts.values():
        return None  # no verdict is no verification, and not a result to keep
    accepted = corrected if all(v == 1 for v in verdicts.values()) else None
    if cache is not None:
        cache.put(key, {"sentence": accepted})
    return accepted


async def _corrected(
    report: UnitAnalysis, index: int, judged: JudgeInput, reason: str, client: LlmClient
) -> str | None:
    """The model's correction of sentence ``index``: one line, changed, and one sentence
    unless it is an entry's description; None when the answer is unusable or the call failed."""
    segment = report.segments[index]
    original = " ".join(segment.text.split())
    related = "\n\n".join(
        f"### {e.symbol}\n{e.text.strip()}" for e in judged.evidence if e.text.strip()
    )
    prompt = messages(
        "sentence_v1.txt",
        code=judged.code,
        context=related or "(none)",
        docstring=report.docstring.text.value,
        sentence=original,
        reason=reason,
    )
    try:
        completion = await client.complete(
            prompt, temperature=SENTENCE_TEMPERATURE, max_tokens=SENTENCE_MAX_TOKENS
        )
    except LlmError:
        return None
    answer = _unquoted(" ".join(clean_compression(completion.text).split()))
    if not answer or answer == original:
        return None
    if segment.entry is None and len(split_sentences(answer)) != 1:
        return None  # the engine would split it and judge each part apart
    return answer


def _unquoted(text: str) -> str:
    """``text`` without one pair of quotes around it (models quote the sentence they give)."""
    for left, right in _QUOTE_PAIRS:
        if len(text) > 1 and text.startswith(left) and text.endswith(right):
            return text[1:-1].strip()
    return text
