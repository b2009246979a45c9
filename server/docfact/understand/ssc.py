"""How well a model understands a function, by semantic self-consistency (SSC).

A model writes k summaries of a function's intent at a sampling temperature, shown the
code with its docstring cut out (the docstring must not tell the model what the code is
for). Three proxies:

* P1, SSC: the mean pairwise BERTScore-F1 of the summaries; alpha = 1 - SSC, labelled
  High/Low against a split-conformal threshold over the project (see calibrate.py);
* P2: the mean BERTScore-F1 of each summary against the function's current docstring,
  labelled the same way: Low means the docstring is far from what the model reads in the
  code;
* P3: a judge model answers Correct/Incorrect for each summary r times; each summary's
  verdict is the majority of its votes, the score is the share of summaries judged
  correct, High when that is a majority.

The paper names no sampling temperature; 0.8, the temperature SONAR samples at, is the
default. Summaries, similarities and judgements are cached; a partial or failed answer
never is.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cache import Cache, cache_key
from ..config import SscSettings
from ..llm.client import LlmClient, LlmError
from ..llm.judge import code_without_docstring
from ..model import Unit
from . import prompting
from .bertscore import Encoder, Idf, encoder_name, f1_matrix, load_encoder, mean_pairwise, score
from .calibrate import (
    HIGH,
    LOW,
    Calibration,
    Labelled,
    conformal_labels,
    conformal_threshold,
    p1_alphas,
    p2_alphas,
)
from .store import calibration_values, remember, store_key

log = logging.getLogger(__name__)

__all__ = [
    "Calibration",
    "FunctionInput",
    "JudgeShare",
    "Labelled",
    "ProjectUnderstanding",
    "Similarities",
    "SscSettings",
    "calibrate",
    "calibrate_docstrings",
    "conformal_threshold",
    "function_input",
    "judge_summaries",
    "sample_summaries",
    "self_consistency",
    "similarities",
    "understand_project",
]


@dataclass(frozen=True)
class FunctionInput:
    symbol: str
    code: str  # the docstring cut out
    docstring: str | None


def function_input(text: str, unit: Unit, symbol: str | None = None) -> FunctionInput:
    """What SSC needs of a unit of the file ``text``."""
    docstring = unit.docstring.value if unit.docstring is not None else None
    return FunctionInput(symbol or unit.qualname, code_without_docstring(text, unit), docstring)


# --- sampling -----------------------------------------------------------------------


async def sample_summaries(code: str, client: LlmClient, k: int, temperature: float) -> list[str]:
    """Up to ``k`` non-empty intent summaries of ``code`` (fewer when the model gives fewer).

    One call asks for all k (``n``); a server that returns fewer (Ollama ignores ``n``) is
    asked for the rest one at a time, concurrently. Raises LlmError when the first call fails.
    """
    messages = prompting.summary_messages(code)
    max_tokens = prompting.SUMMARY_MAX_TOKENS
    first = await client.complete(messages, n=k, temperature=temperature, max_tokens=max_tokens)
    texts = list(first.choices[:k])
    missing = k - len(texts)
    if missing > 0:
        more = await asyncio.gather(
            *(
                client.complete(messages, n=1, temperature=temperature, max_tokens=max_tokens)
                for _ in range(missing)
            ),
            return_exceptions=True,
        )
        texts += [c.text for c in more if not isinstance(c, BaseException)]
    return [s for s in map(prompting.clean_summary, texts) if s]


# --- similarity (P1, P2) ------------------------------------------------------------


@dataclass(frozen=True)
class Similarities:
    pairwise: list[list[float]]  # k x k BERTScore-F1 between the summaries (diagonal 1)
    docstring: list[float] | None  # F1 of each summary against the docstring


def similarities(
    summaries: Sequence[str], encoder: Encoder, docstring: str | None = None, idf: Idf | None = None
) -> Similarities:
    """Every summary (and the docstring) encoded once, then all pairs compared."""
    texts = [*summaries, docstring] if docstring else list(summaries)
    embedded = encoder.embed(texts)
    pairwise = f1_matrix(embedded[: len(summaries)], idf).tolist()
    to_doc = (
        [score(s, embedded[-1], idf)[2] for s in embedded[: len(summaries)]] if docstring else None
    )
    return Similarities(pairwise, to_doc)


def self_consistency(
    summaries: Sequence[str], encoder: Encoder | None = None, idf: Idf | None = None
) -> float:
    """SSC: the mean pairwise BERTScore-F1 of ``summaries`` (at least two)."""
    if len(summaries) < 2:
        raise ValueError("self-consistency needs at least two summaries")
    matrix = f1_matrix((encoder or load_encoder()).embed(list(summaries)), idf)
    return mean_pairwise(matrix)


def _project_idf(encoder: Encoder, texts: Sequence[str], wanted: bool) -> Idf | None:
    """idf over every summary (and docstring) of the project: the texts being compared."""
    return Idf.from_corpus(encoder, texts) if wanted and texts else None


def calibrate(
    per_function_summaries: Mapping[str, Sequence[str]],
    encoder: Encoder | None = None,
    epsilon: float = 0.1,
    idf: bool = False,
) -> Calibration:
    """P1 labels: each function's summaries split into calibration and test halves."""
    encoder = encoder or load_encoder()
    weights = _project_idf(encoder, [s for ss in per_function_summaries.values() for s in ss], idf)
    alphas = {
        symbol: p1_alphas(similarities(ss, encoder, idf=weights).pairwise) if len(ss) >= 4 else None
        for symbol, ss in per_function_summaries.items()
    }
    return conformal_labels("p1", alphas, epsilon, _ks(per_function_summaries))


def calibrate_docstrings(
    per_function_summaries: Mapping[str, Sequence[str]],
    docstrings: Mapping[str, str],
    encoder: Encoder | None = None,
    epsilon: float = 0.1,
    idf: bool = False,
) -> Calibration:
    """P2 labels: the summaries' similarity to each function's docstring; Low = flagged."""
    encoder = encoder or load_encoder()
    corpus = [s for ss in per_function_summaries.values() for s in ss] + list(docstrings.values())
    weights = _project_idf(encoder, corpus, idf)
    alphas = {}
    for symbol, ss in per_function_summaries.items():
        doc = docstrings.get(symbol)
        to_doc = similarities(ss, encoder, doc, weights).docstring if doc and len(ss) >= 2 else None
        alphas[symbol] = p2_alphas(to_doc) if to_doc is not None else None
    return conformal_labels("p2", alphas, epsilon, _ks(per_function_summaries))


def _ks(per_function: Mapping[str, Sequence]) -> dict[str, int]:
    return {symbol: len(items) for symbol, items in per_function.items()}


# --- the judge (P3) -----------------------------------------------------------------


@dataclass(frozen=True)
class JudgeShare:
    verdicts: list[bool | None]  # per summary: majority of its votes; None = tie or no answer
    votes: list[list[bool | None]]  # per summary, every vote
    share: float | None  # summaries judged correct / summaries with a verdict
    label: str | None  # "high" when most summaries are judged correct

    @classmethod
    def from_votes(cls, votes: list[list[bool | None]]) -> JudgeShare:
        verdicts = [majority(vs) for vs in votes]
        counted = [v for v in verdicts if v is not None]
        share = sum(counted) / len(counted) if counted else None
        return cls(verdicts, votes, share, None if share is None else HIGH if share > 0.5 else LOW)

    @property
    def complete(self) -> bool:
        return all(v is not None for vs in self.votes for v in vs)


def majority(votes: Sequence[bool | None]) -> bool | None:
    yes, no = sum(v is True for v in votes), sum(v is False for v in votes)
    return None if yes == no else yes > no


async def judge_summaries(
    code: str, summaries: Sequence[str], client: LlmClient, votes: int, temperature: float
) -> JudgeShare:
    """P3: each summary judged ``votes`` times under sampling; failed votes are None."""

    async def judged(summary: str) -> list[bool | None]:
        messages = prompting.judge_messages(code, summary)
        answers: list[bool | None] = []
        for _ in range(votes):  # servers that ignore n are asked again for the rest
            try:
                completion = await client.complete(
                    messages,
                    n=votes - len(answers),
                    temperature=temperature,
                    max_tokens=prompting.JUDGE_MAX_TOKENS,
                )
            except LlmError:
                break
            answers += [prompting.parse_judgement(t) for t in completion.choices]
            if len(answers) >= votes:
                break
        return (answers + [None] * votes)[:votes]

    return JudgeShare.from_votes(list(await asyncio.gather(*(judged(s) for s in summaries))))


# --- a whole project, cached ---------------------------------------------------------


@dataclass
class ProjectUnderstanding:
    p1: Calibration
    p2: Calibration
    p3: dict[str, JudgeShare] = field(default_factory=dict)
    summaries: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, str] = field(
        default_factory=dict
    )  # symbol -> what failed (results may be partial)
    calls_saved: int = 0  # functions whose summaries came from the cache


def _decoding(client: LlmClient, settings: SscSettings) -> list:
    llm = client.settings
    return [llm.model, llm.api_base, llm.top_p, settings.temperature, prompting.prompt_digest()]


def _digest(texts: Sequence[str]) -> str:
    return hashlib.sha256(json.dumps(list(texts)).encode()).hexdigest()


async def understand_project(
    functions: Sequence[FunctionInput],
    client: LlmClient,
    settings: SscSettings,
    cache: Cache | None = None,
    encoder: Encoder | None = None,
    judge_client: LlmClient | None = None,
    project: str | None = None,
) -> ProjectUnderstanding:
    """P1 and P2 labels for every function (P3 too with a ``judge_client``); a function
    whose summaries or similarities could not be had is labelled None, with its error.

    With a ``project`` (its root folder) tau comes from the project's calibration set in
    the cache, which these functions join; else from these functions alone."""
    sampled = await asyncio.gather(*(_summaries(f, client, settings, cache) for f in functions))
    errors = {f.symbol: error for f, (_, error, _) in zip(functions, sampled) if error}
    summaries = {f.symbol: found for f, (found, _, _) in zip(functions, sampled) if found}
    try:
        sims = await _similarities_for(functions, summaries, settings, cache, encoder)
    except RuntimeError as error:  # EncoderUnavailable included: P1/P2 cannot be had
        sims = {}
        errors.update({f.symbol: str(error) for f in functions if f.symbol not in errors})
    symbols = [f.symbol for f in functions]
    p1 = {s: p1_alphas(sims[s].pairwise) if s in sims else None for s in symbols}
    p2 = {s: _p2(sims.get(s)) for s in symbols}
    calibration: dict[str, list[float] | None] = {"p1": None, "p2": None}
    if project is not None:
        kept = remember(
            cache,
            store_key(project, _decoding(client, settings), settings),
            {
                s: {"p1": _calibration_alpha(p1[s]), "p2": _calibration_alpha(p2[s])}
                for s in symbols
            },
        )
        calibration = {proxy: calibration_values(kept, proxy) for proxy in calibration}
    result = ProjectUnderstanding(
        conformal_labels("p1", p1, settings.epsilon, _ks(summaries), calibration["p1"]),
        conformal_labels("p2", p2, settings.epsilon, _ks(summaries), calibration["p2"]),
        summaries=summaries,
        errors=errors,
        calls_saved=sum(from_cache for _, _, from_cache in sampled),
    )
    if judge_client is not None and settings.judge_votes > 0:
        judged = [f for f in functions if f.symbol in summaries]
        shares = await asyncio.gather(
            *(_judge(f, summaries[f.symbol], judge_client, settings, cache) for f in judged)
        )
        result.p3 = {f.symbol: share for f, share in zip(judged, shares)}
    return result


def _p2(found: Similarities | None) -> tuple[float, float] | None:
    """P2's (calibration, test) alphas, when there is a docstring to compare with."""
    return p2_alphas(found.docstring) if found is not None and found.docstring else None


def _calibration_alpha(alphas: tuple[float, float] | None) -> float | None:
    return alphas[0] if alphas else None


async def _summaries(
    function: FunctionInput, client: LlmClient, settings: SscSettings, cache: Cache | None
) -> tuple[list[str] | None, str | None, bool]:
    """(summaries or None, what went wrong, whether they came from the cache)."""
    key = cache_key("ssc-summaries", function.code, settings.k, *_decoding(client, settings))
    stored = cache.get(key, _is_texts(settings.k)) if cache is not None else None
    if stored is not None:
        return stored, None, True
    try:
        summaries = await sample_summaries(function.code, client, settings.k, settings.temperature)
    except LlmError as error:
        return None, str(error), False
    if len(summaries) < settings.k:  # partial: used, never stored
        shortfall = f"{len(summaries)} of {settings.k} summaries received"
        log.warning("%s: SSC: the model gave %s", function.symbol, shortfall)
        return (summaries if len(summaries) >= 2 else None), shortfall, False
    if cache is not None:
        cache.put(key, summaries)
    return summaries, None, False


async def _similarities_for(
    functions: Sequence[FunctionInput],
    summaries: Mapping[str, list[str]],
    settings: SscSettings,
    cache: Cache | None,
    encoder: Encoder | None,
) -> dict[str, Similarities]:
    """Similarities per function, from the cache or computed (encoding runs in a thread;
    the cache stays on this one: its SQLite connection belongs to the thread that opened it)."""
    docs = {f.symbol: f.docstring for f in functions if f.symbol in summaries}
    corpus = [s for ss in summaries.values() for s in ss] + [d for d in docs.values() if d]
    name = encoder.name if encoder is not None else None
    if name is None and not settings.idf:  # cached similarities need no encoder (nor torch)
        try:
            name = await asyncio.to_thread(encoder_name, settings.encoder, settings.encoder_layer)
        except (OSError, ValueError, KeyError, RuntimeError):
            name = None
    if name is None:
        if encoder is None:
            encoder = await asyncio.to_thread(
                load_encoder, settings.encoder, settings.encoder_layer
            )
        name = encoder.name
    weights = None
    if settings.idf:
        assert encoder is not None  # with idf the name is never looked up alone: it is loaded
        weights = await asyncio.to_thread(_project_idf, encoder, corpus, settings.idf)
    idf_tag = _digest(corpus) if weights else None
    keys = {
        symbol: cache_key("ssc-similarities", texts, docs[symbol], name, idf_tag)
        for symbol, texts in summaries.items()
    }
    stored = cache.get_many(keys.values(), _is_similarities) if cache is not None else {}
    found = {
        symbol: Similarities(stored[key]["pairwise"], stored[key]["docstring"])
        for symbol, key in keys.items()
        if key in stored
    }
    if len(found) == len(keys):
        return found
    if encoder is None:
        encoder = await asyncio.to_thread(load_encoder, settings.encoder, settings.encoder_layer)

    def compute() -> dict[str, Similarities]:
        return {
            symbol: similarities(texts, encoder, docs[symbol], weights)
            for symbol, texts in summaries.items()
            if symbol not in found
        }

    computed = await asyncio.to_thread(compute)
    if cache is not None:
        cache.put_many(
            {
                keys[symbol]: {"pairwise": sims.pairwise, "docstring": sims.docstring}
                for symbol, sims in computed.items()
                if _finite(sims)
            }
        )
    return found | computed


def _finite(sims: Similarities) -> bool:
    values = [v for row in sims.pairwise for v in row] + (sims.docstring or [])
    return all(math.isfinite(v) for v in values)


async def _judge(
    function: FunctionInput,
    summaries: list[str],
    client: LlmClient,
    settings: SscSettings,
    cache: Cache | None,
) -> JudgeShare:
    llm = client.settings
    key = cache_key(
        "ssc-judge",
        function.code,
        summaries,
        settings.judge_votes,
        llm.model,
        llm.api_base,
        llm.top_p,
        settings.temperature,
        prompting.prompt_digest(),
    )
    stored = cache.get(key, _is_judge_votes(len(summaries))) if cache is not None else None
    if stored is not None:
        return JudgeShare.from_votes(stored)
    share = await judge_summaries(
        function.code, summaries, client, settings.judge_votes, settings.temperature
    )
    if share.complete and cache is not None:
        cache.put(key, share.votes)
    return share


# --- what a cache entry must be to be read (any other is a miss: cache.py) ---------------


def _is_texts(k: int) -> Callable[[Any], bool]:
    return lambda value: (
        isinstance(value, list) and len(value) == k and all(isinstance(t, str) for t in value)
    )


def _is_similarities(value: Any) -> bool:
    """A square matrix of finite floats, and None or a row of them (ints are never
    written: a 4,000-digit one would not even convert)."""
    pairwise, docstring = value["pairwise"], value["docstring"]
    rows = pairwise if isinstance(pairwise, list) else []
    square = all(_is_numbers(row) and len(row) == len(rows) for row in rows)
    return bool(rows) and square and (docstring is None or _is_numbers(docstring))


def _is_numbers(row: Any) -> bool:
    return isinstance(row, list) and all(isinstance(v, float) and math.isfinite(v) for v in row)


def _is_judge_votes(summaries: int) -> Callable[[Any], bool]:
    return lambda value: (
        isinstance(value, list)
        and len(value) == summaries
        and all(
            isinstance(votes, list) and all(v is None or isinstance(v, bool) for v in votes)
            for votes in value
        )
    )
