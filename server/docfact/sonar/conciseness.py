"""Conciseness: how much of a docstring can go without changing the code it yields.

The model compresses the docstring n times; each compression is regenerated into code
once and compared with the code regenerated from the whole docstring (the Correctness
regeneration, reused). A compression preserves behaviour when FuncSim >= 0.95;
N = 1 - the largest preserving ratio 1 - len(s_i)/len(s) (1.0 when none preserves).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .abstraction import pair_similarity
from .funcsim import afuncsim
from .home import Home
from .measure import Measure, not_measured
from .regenerate import Generations, messages, regenerate, sample
from .standalone import why_not_runnable

if TYPE_CHECKING:
    from ..llm.client import LlmClient

PRESERVES = 0.95
TEMPERATURE = 0.7  # independent compressions should differ
_QUOTES = re.compile(r'^(?:```\w*\n|"""|\'\'\')(.*?)(?:\n```|"""|\'\'\')$', re.DOTALL)


@dataclass(frozen=True)
class ConcisenessResult:
    measure: Measure
    compression: str | None  # the shortest compression that preserves behaviour
    calls: int
    complete: bool  # False when a model call or a test run failed (do not cache)


def clean_compression(text: str) -> str:
    """The compression without the quotes or fence a model may wrap it in."""
    text = text.strip()
    match = _QUOTES.match(text)
    return match.group(1).strip() if match else text


async def compressions(
    docstring: str, client: LlmClient, n: int
) -> tuple[list[str], int, str | None]:
    """``n`` compressions of ``docstring``: (texts, calls, error)."""
    prompt = messages("compress_v1.txt", docstring=docstring)
    max_tokens = max(64, len(docstring) // 2)  # ~ the docstring's own length in tokens
    texts, calls, error = await sample(client, prompt, n, TEMPERATURE, max_tokens)
    return [clean_compression(t) for t in texts], calls, error


@dataclass(frozen=True)
class Compressed:
    """The compressions and the code regenerated from each (Conciseness's model work)."""

    count: int  # compressions received
    shorter: tuple[str, ...]  # the strictly shorter ones, shortest first
    codes: tuple[str | None, ...]  # the usable program regenerated from each, or None
    calls: int
    error: str | None


async def compress(
    docstring: str,
    context: str,
    client: LlmClient,
    n: int = 3,
    regeneration_temperature: float = 0.0,
) -> Compressed:
    """``n`` compressions of ``docstring``, each shorter one regenerated into code once
    (an unchanged or longer one cannot lower N, so it is not regenerated)."""
    texts, calls, error = await compressions(docstring, client, n)
    shorter = sorted(
        dict.fromkeys(t for t in texts if t and len(t) < len(docstring.strip())), key=len
    )
    generated: list[Generations] = list(
        await asyncio.gather(
            *(regenerate(text, context, client, 1, regeneration_temperature) for text in shorter)
        )
    )
    calls += sum(g.calls for g in generated)
    error = error or next((g.error for g in generated if g.error), None)
    codes = tuple(g.items[0].usable_code if g.items else None for g in generated)
    return Compressed(len(texts), tuple(shorter), codes, calls, error)


async def judge(
    docstring: str,
    compressed: Compressed,
    reference: str,
    function: str,
    context: str,
    cases: int = 200,
    time_limit_s: float = 10.0,
    home: Home | None = None,
) -> ConcisenessResult:
    """N from ``compressed``; ``reference`` is the program regenerated from the whole docstring
    (run in the function's module, with its ``home``)."""
    runnable = [c for c in compressed.codes if c is not None]
    similarities, how, approximate, complete = await _similarities(
        reference, runnable, function, context, cases, time_limit_s, home
    )
    if similarities is None:
        return ConcisenessResult(not_measured(how), None, compressed.calls, complete)
    by_code = dict(zip(runnable, similarities))
    best = next(
        (
            text
            for text, code in zip(compressed.shorter, compressed.codes)
            if code is not None and (by_code[code] or 0.0) >= PRESERVES
        ),
        None,
    )
    count = f"{compressed.count} compression{'s' if compressed.count != 1 else ''}"
    if best is None:
        measure = Measure(1.0, f"{count}, none preserves behaviour; {how}", approximate)
    else:
        ratio = 1.0 - len(best) / len(docstring.strip())
        measure = Measure(
            1.0 - ratio, f"{count}; one {ratio:.0%} shorter preserves behaviour; {how}", approximate
        )
    return ConcisenessResult(measure, best, compressed.calls, complete and compressed.error is None)


async def conciseness(
    docstring: str,
    context: str,
    function: str,
    reference: str,
    client: LlmClient,
    n: int = 3,
    cases: int = 200,
    time_limit_s: float = 10.0,
    regeneration_temperature: float = 0.0,
) -> ConcisenessResult:
    """N for ``docstring``: ``compress`` then ``judge``."""
    compressed = await compress(docstring, context, client, n, regeneration_temperature)
    return await judge(docstring, compressed, reference, function, context, cases, time_limit_s)


async def _similarities(
    reference: str,
    candidates: list[str],
    function: str,
    context: str,
    cases: int,
    time_limit_s: float,
    home: Home | None,
) -> tuple[list[float | None] | None, str, bool, bool]:
    """(similarity per candidate, how, approximate, complete); (None, reason, ...) when
    they cannot be had."""
    if not candidates:
        return [], "no shorter compression yielded usable code", False, True
    final = True  # False: the module did not import for want of a dependency (not kept)
    if home is not None:
        run = await afuncsim(
            reference, candidates, function, cases=cases, time_limit_s=time_limit_s, home=home
        )
        if run.stage is None and (run.error is None or run.results):
            values = [r.value for r in run.results]
            return values, f"FuncSim over {run.cases} cases in its module", False, run.complete
        final = run.complete
    reason = why_not_runnable(reference, function)
    if reason is None:
        run = await afuncsim(
            reference, candidates, function, cases=cases, time_limit_s=time_limit_s
        )
        if run.error is None or run.results:
            values = [r.value for r in run.results]
            return values, f"FuncSim over {run.cases} cases", False, run.complete and final
        if not run.complete:
            return None, run.error or "", False, False
        reason = run.error
    try:
        values = [pair_similarity(reference, c, context) for c in candidates]
    except SyntaxError:
        return None, "the regenerated code does not parse", False, final
    return values, f"approximate: structural similarity, not executed ({reason})", True, final
