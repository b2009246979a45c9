"""SONAR's four scores of one function's docstring, with a call budget and a cache.

Generations at the paper's settings: 1 (Correctness) + 9 (Abstraction pool) + 3
compressions + 3 regenerations of them. The Correctness regeneration is reused as one
member of the pool and as Conciseness's reference, and samples are asked for with ``n=``,
so a server that honours ``n`` sees at most 1 + U + 1 + 3 calls (8 with 3 generators).
"""

from __future__ import annotations

import asyncio
import textwrap
from dataclasses import asdict, dataclass, replace

from ..cache import Cache, cache_key
from ..config import SonarSettings
from ..llm.client import LlmClient
from .abstraction import abstraction, pair_similarity
from .conciseness import Compressed, ConcisenessResult, compress, judge
from .funcsim import Counterexample, FuncSimRun, Similarity, afuncsim, driver_version
from .home import Home
from .measure import Measure, not_measured
from .regenerate import (
    Generations,
    Regeneration,
    context_function,
    context_imports,
    prompt_version,
    regenerate,
)
from .standalone import why_not_runnable

# Correctness needs this many cases where the original returned (fewer when fewer inputs
# exist: a quarter of those tried, at least MIN_RETURNING_FLOOR); below it a score would
# be measured on the few inputs that happen to work, or on none.
MIN_RETURNING = 20
MIN_RETURNING_FLOOR = 3
CORRECTNESS_TEMPERATURE = 0.0  # the one regeneration Correctness is judged on
POOL_TEMPERATURE = 0.8  # the paper samples the Abstraction pool at about 0.8
_RESULT_KEYS = {"correctness", "abstraction", "conciseness", "counterexample", "compression"}


@dataclass(frozen=True)
class SonarResult:
    correctness: Measure
    abstraction: Measure
    conciseness: Measure
    fluency: Measure
    counterexample: Counterexample | None = None  # an input where the regeneration differs
    compression: str | None = None  # the shortest docstring that keeps the behaviour
    calls: int = 0  # model calls made (0 on a cache hit)
    cache_hit: bool = False
    error: str | None = None  # the first failure, when some score could not be measured
    unusable: str | None = None  # why the model's answer was no implementation (garbage, a stub)

    def to_json(self) -> dict:
        return {
            "correctness": self.correctness.to_json(),
            "abstraction": self.abstraction.to_json(),
            "conciseness": self.conciseness.to_json(),
            "counterexample": self.counterexample.to_json() if self.counterexample else None,
            "compression": self.compression,
        }

    @classmethod
    def from_json(cls, data: object, fluency: Measure) -> SonarResult | None:
        """The result ``to_json`` wrote, or None when ``data`` has another shape (a damaged
        or planted cache entry is a miss, never a traceback)."""
        try:
            if not isinstance(data, dict) or set(data) != _RESULT_KEYS:
                raise ValueError("not a SONAR result")
            example, compression = data["counterexample"], data["compression"]
            if compression is not None and not isinstance(compression, str):
                raise ValueError("a compression is text")
            return cls(
                Measure.from_json(data["correctness"]),
                Measure.from_json(data["abstraction"]),
                Measure.from_json(data["conciseness"]),
                fluency,
                Counterexample.from_json(example) if example is not None else None,
                compression,
                cache_hit=True,
            )
        except ValueError:
            return None


async def sonar_scores(
    unit_source: str,
    function_name: str,
    docstring: str,
    context: str,
    client: LlmClient,
    settings: SonarSettings,
    cache: Cache | None,
    home: Home | None = None,
    qualname: str | None = None,
) -> SonarResult:
    """Correctness, Abstraction, Conciseness and Fluency of ``docstring`` for the function
    ``unit_source`` defines; ``context`` is its signature and imports (build_context).
    With its ``home`` (its module in the project) the code runs there. ``qualname``
    ("Class.method", the function's name when None) is named in the prompt."""
    if not settings.enabled:
        off = not_measured("SONAR is turned off")
        return SonarResult(off, off, off, off)
    if context_function(context) != function_name:
        missing = not_measured(f"the context holds no signature of {function_name}")
        return SonarResult(missing, missing, missing, await _fluency(docstring, settings, cache))
    fluency_task = asyncio.create_task(_fluency(docstring, settings, cache))
    models = settings.generators or (client.model,)
    key = cache_key(
        "sonar",
        unit_source,
        function_name,
        qualname,
        docstring,
        context,
        home.key() if home is not None else None,
        *scoring_key_parts(client, settings, models),
    )
    cached = cache.get(key) if cache is not None else None
    restored = SonarResult.from_json(cached, await fluency_task) if cached is not None else None
    if restored is not None:
        return restored
    try:
        result, complete = await _measure(
            unit_source,
            function_name,
            docstring,
            context,
            generator_clients(client, models),
            models,
            settings,
            home,
            qualname,
        )
    except BaseException:
        fluency_task.cancel()
        raise
    if complete and cache is not None:
        cache.put(key, result.to_json())
    return replace(result, fluency=await fluency_task)


def scoring_key_parts(client: LlmClient, settings: SonarSettings, models: tuple[str, ...]) -> tuple:
    """What a score depends on besides the function and its docstring (for cache keys)."""
    return (
        models,
        client.settings.api_base,
        client.settings.top_p,
        asdict(replace(settings, enabled=True, run="manual", fluency_model=None)),
        CORRECTNESS_TEMPERATURE,
        POOL_TEMPERATURE,
        prompt_version(),
        driver_version(),
    )


def generator_clients(client: LlmClient, models: tuple[str, ...]) -> list[LlmClient]:
    """One client per generator; other models are reached the way the judge's model is."""
    return [
        client if model == client.model else LlmClient(replace(client.settings, model=model))
        for model in models
    ]


def _shares(total: int, parts: int) -> list[int]:
    """``total`` pool programs spread over ``parts`` generators, the first ones taking more."""
    return [total // parts + (i < total % parts) for i in range(parts)]


@dataclass(frozen=True)
class Pool:
    """The programs regenerated from one docstring, the Correctness regeneration first."""

    first: Generations  # the one regeneration at temperature 0
    rest: tuple[Generations, ...]  # the other samples of the Abstraction pool, per generator
    origin: str  # "from 3 models x 3 samples"

    @property
    def calls(self) -> int:
        return self.first.calls + sum(g.calls for g in self.rest)

    @property
    def error(self) -> str | None:
        return next((g.error for g in (self.first, *self.rest) if g.error), None)

    @property
    def regeneration(self) -> Regeneration:
        """The one Correctness is judged on (a problem saying why, when the call failed)."""
        if self.first.items:
            return self.first.items[0]
        return Regeneration(None, problem=f"model call failed: {self.first.error}")

    @property
    def programs(self) -> list[str]:
        return [
            code
            for g in (self.first, *self.rest)
            for r in g.items
            if (code := r.usable_code) is not None
        ]

    def abstraction(self, context: str) -> Measure:
        return abstraction(self.programs, context, self.origin)


async def regenerate_pool(
    docstring: str,
    context: str,
    clients: list[LlmClient],
    models: tuple[str, ...],
    settings: SonarSettings,
    qualname: str | None = None,
) -> Pool:
    """The Correctness regeneration and the Abstraction pool it is the first member of."""
    shares = _shares(max(settings.samples, len(clients)), len(clients))
    origin = _origin(models, shares)
    shares[0] -= 1  # the Correctness regeneration is the first generator's first sample
    first, rest = await asyncio.gather(
        regenerate(docstring, context, clients[0], 1, CORRECTNESS_TEMPERATURE, qualname),
        asyncio.gather(
            *(
                regenerate(docstring, context, c, share, POOL_TEMPERATURE, qualname)
                for c, share in zip(clients, shares)
                if share > 0
            )
        ),
    )
    return Pool(first, tuple(rest), origin)


async def _measure(
    unit_source: str,
    function: str,
    docstring: str,
    context: str,
    clients: list[LlmClient],
    models: tuple[str, ...],
    settings: SonarSettings,
    home: Home | None,
    qualname: str | None,
) -> tuple[SonarResult, bool]:
    """(SonarResult without fluency, whether it is complete enough to cache)."""
    # All model work at once: the pool (the Correctness regeneration first), and the
    # compressions with their regenerations; then both sandbox runs at once.
    pool, compressed = await asyncio.gather(
        regenerate_pool(docstring, context, clients, models, settings, qualname),
        compress(docstring, context, clients[0], settings.compressions, CORRECTNESS_TEMPERATURE),
    )
    calls = pool.calls + compressed.calls
    if not pool.first.items:
        failed = not_measured(f"model call failed: {pool.first.error}")
        return SonarResult(
            failed, failed, failed, _pending(), calls=calls, error=pool.first.error
        ), False
    regeneration = pool.regeneration
    unusable = (
        None
        if regeneration.usable_code is not None
        else regeneration.problem or f"the regenerated code is a stub ({regeneration.stub_kind})"
    )
    ((correctness, example, correct_ok),), concise = await asyncio.gather(
        correctnesses(unit_source, function, context, [regeneration], settings, home),
        _conciseness(docstring, compressed, function, context, regeneration, settings, home),
    )
    result = SonarResult(
        correctness,
        pool.abstraction(context),
        concise.measure,
        _pending(),
        example,
        concise.compression,
        calls,
        error=pool.error or compressed.error,
        unusable=unusable,
    )
    return result, correct_ok and concise.complete and pool.error is None


def _origin(models: tuple[str, ...], shares: list[int]) -> str:
    """Where the pool comes from: "from 3 models x 3 samples"."""
    plural = "s" if len(models) > 1 else ""
    if len(set(shares)) == 1:
        return f"from {len(models)} model{plural} x {shares[0]} samples"
    return f"from {len(models)} model{plural} ({' + '.join(map(str, shares))} samples)"


Judged = tuple[Measure, Counterexample | None, bool]  # (Correctness, a counterexample, complete)


async def correctnesses(
    unit_source: str,
    function: str,
    context: str,
    regenerations: list[Regeneration],
    settings: SonarSettings,
    home: Home | None = None,
) -> list[Judged]:
    """Correctness of each regeneration; the usable ones are tested in one sandbox run, so
    they are compared with the function on the same inputs: in the function's own module
    when it has a ``home`` there that imports, else as a program of its own when it needs
    nothing of its module."""
    runnable = [code for r in regenerations if (code := r.usable_code) is not None]
    run, reason, final = (
        await _differential(unit_source, function, context, runnable, settings, home)
        if runnable
        else (None, None, True)
    )
    results = iter(run.results if run is not None else ())
    shares = [next(results, None) if r.usable_code is not None else None for r in regenerations]
    original = _program(unit_source, context)
    judged = [
        _correctness(original, context, r, reason, run, share)
        for r, share in zip(regenerations, shares)
    ]
    return [(measure, example, complete and final) for measure, example, complete in judged]


async def _differential(
    unit_source: str,
    function: str,
    context: str,
    programs: list[str],
    settings: SonarSettings,
    home: Home | None,
) -> tuple[FuncSimRun | None, str | None, bool]:
    """The FuncSim run of ``programs`` against the function, or why there is none; and
    whether a failure to run it in its module is final (False: a dependency missing here,
    which may be installed by the next run, so what is measured instead is not kept)."""
    cases, time_limit_s = settings.fuzz_cases, settings.time_limit_s
    in_module, final = None, True
    if home is not None:
        run = await afuncsim(
            None, programs, function, cases=cases, time_limit_s=time_limit_s, home=home
        )
        if run.stage not in ("module", "function"):
            return run, None, True
        in_module = run.error  # the module does not import here, or the function is not in it
        final = run.complete
    original = _program(unit_source, context)
    reason = why_not_runnable(original, function)
    if reason is None:
        return (
            await afuncsim(original, programs, function, cases=cases, time_limit_s=time_limit_s),
            None,
            final,
        )
    return None, f"{in_module}; on its own, {reason}" if in_module else reason, final


def _correctness(
    original: str,
    context: str,
    regeneration: Regeneration,
    reason: str | None,
    run: FuncSimRun | None,
    similarity: Similarity | None,
) -> Judged:
    """Correctness from ``similarity`` (this regeneration's share of ``run``), else a
    structural approximation when the function could not be run for ``reason``. Code that
    is no implementation (none, a stub, code that does not load) is not measurable: the
    model failed, which says nothing of the docstring."""
    # The model's answer (at temperature 0) held no code or a stub: that is what this
    # model writes from this docstring, kept like a score (a failed call never gets here).
    if regeneration.code is None:
        return not_measured(regeneration.problem or "no code"), None, True
    if regeneration.stub:
        return (
            not_measured(
                f"the code regenerated from the docstring is a stub ({regeneration.stub_kind})"
            ),
            None,
            True,
        )
    if similarity is not None and run is not None:  # (a similarity is a share of a run)
        if similarity.problem is not None:
            return (
                not_measured(f"the regenerated code cannot be tested: {similarity.problem}"),
                None,
                True,
            )
        vacuous = _too_few_returning(similarity, run.cases, run.out_of_time)
        if vacuous is not None:  # time may be the machine's, hypothesis missing here: asked again
            if not run.complete and run.error:  # what this environment lacks, said first
                vacuous = f"{run.error}; {vacuous}"
            return not_measured(vacuous), None, run.complete and not run.out_of_time
        left_out = [
            f"{count} {what}"
            for count, what in ((similarity.raised, "raised"), (similarity.discarded, "discarded"))
            if count
        ]
        where = " in its module" if run.in_module else ""
        how = f"FuncSim over {similarity.counted} cases where the function returns{where}"
        if left_out:
            how += f" (of {run.cases} tried: {', '.join(left_out)})"
        return Measure(similarity.value, how), similarity.counterexample, run.complete
    if run is not None:
        if not run.complete:
            return not_measured(run.error or "the tests failed"), None, False
        reason = run.error
    try:
        value = pair_similarity(original, regeneration.code, context)
    except SyntaxError:
        return not_measured(f"the function cannot be compared ({reason})"), None, True
    return (
        Measure(value, f"approximate: structural similarity, not executed ({reason})", True),
        None,
        True,
    )


def _too_few_returning(similarity: Similarity, cases: int, out_of_time: bool) -> str | None:
    """Why the cases where the original returned are too few to judge by, or None. (The
    first inputs hypothesis draws are the simplest, 0 and "": a run the time limit cut
    short needs the full MIN_RETURNING.)"""
    needed = min(MIN_RETURNING, max(MIN_RETURNING_FLOOR, -(-cases // 4)))
    if out_of_time:
        needed = MIN_RETURNING
    if similarity.counted >= needed:
        return None
    if out_of_time and not similarity.raised:
        return (
            f"the time limit ended the tests after {cases} cases, {similarity.counted} of"
            f" them comparable; {needed} are needed"
        )
    if similarity.discarded > similarity.raised:  # another outcome on a second call
        return (
            f"the function differs on each call: {similarity.discarded} of {cases} cases gave"
            " another result when called again with the same input (a clock, a counter, a"
            " cache's timer)"
        )
    if similarity.raised:
        return (
            f"the inputs made the function raise in {similarity.raised} of {cases} cases"
            f" ({similarity.raised_example}); it returned in {similarity.counted},"
            f" {needed} are needed"
        )
    return f"the function returned a comparable result in {similarity.counted} of {cases} cases"


def _program(unit_source: str, context: str) -> str:
    """The original function as a program of its own: the imports it uses, then itself."""
    return f"{context_imports(context)}\n\n{textwrap.dedent(unit_source)}"


async def _conciseness(
    docstring: str,
    compressed: Compressed,
    function: str,
    context: str,
    regeneration: Regeneration,
    settings: SonarSettings,
    home: Home | None,
) -> ConcisenessResult:
    code = regeneration.usable_code
    if code is None:
        why = "a stub" if regeneration.stub else "unusable"
        return ConcisenessResult(
            not_measured(f"the code regenerated from the docstring is {why}"),
            None,
            compressed.calls,
            compressed.error is None,
        )
    return await judge(
        docstring,
        compressed,
        code,
        function,
        context,
        settings.fuzz_cases,
        settings.time_limit_s,
        home,
    )


def _pending() -> Measure:
    return not_measured("fluency not measured yet")


async def _fluency(docstring: str, settings: SonarSettings, cache: Cache | None) -> Measure:
    """Fluency from ``sonar.fluency``, imported only when asked (it may load a model), and
    cached with the model it was measured with (so a cached score loads no model); the
    n-gram model's value standing in for a causal LM that did not load is not cached."""
    try:
        from .fluency import fell_back, fluency, fluency_identity
    except ImportError:
        return not_measured("fluency model not available")
    identity = await asyncio.to_thread(fluency_identity, settings.fluency_model)
    key = (
        cache_key("sonar-fluency", docstring, identity) if identity and cache is not None else None
    )
    stored = cache.get(key) if key and cache is not None else None
    if isinstance(stored, list) and len(stored) == 2:
        try:
            return Measure.from_json({"value": stored[0], "how": stored[1], "approximate": False})
        except ValueError:
            pass  # not what was written: measured again
    value, how = await asyncio.to_thread(fluency, docstring, settings.fluency_model)
    if value is None:
        return not_measured(how)
    # The n-gram model's value in place of a causal LM that did not load (transformers
    # missing here) is no result of that model: the key names the model, never kept.
    if key and cache is not None and not fell_back(how):
        cache.put(key, [value, how])
    return Measure(value, how)
