"""FuncSim: how often a candidate program behaves like the original, by differential
testing in the sandbox.

One sandbox run per (original, candidates) batch: ``_driver.py`` draws the inputs with
hypothesis (fixed seed), calls the original on each under a time limit and prints its
outcomes before any candidate exists, then each candidate's; the comparison by SONAR's
rules happens here (``outcomes.py``), where no code under test can reach it. Only when the
sandbox ends a batch for something a candidate did is each candidate run alone, so one
model-written program that writes files does not cost the others their scores.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import re
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources

from . import outcomes, sandbox
from .home import Home, class_at, docfact_support_path, function_at, takes_instance
from .inputs import (
    CALLABLE,
    body_constants,
    parameter_specs,
    state_values,
    varargs_spec,
    varkw_names,
)
from .regenerate import function_node
from .shapes import (
    none_tested_state,
    parses_numbers,
    pattern_sources,
    stored_and_called,
    works_on_lines,
)

MARKER = "SONAR-FUNCSIM "  # _driver.MARKER
BLOCKED = "the sandbox refused what the code does"
STARTUP_S = 5.0  # the sandbox's own start and hypothesis's import, on a busy machine
OUTPUT_BYTES = 8 << 20  # every outcome of every case (trees are cut at 4,000 characters)
LOAD_S = 10.0  # importing the function's module (and what it imports) in the sandbox
_AUDIT_DETAIL = re.compile(r"([\w.]+)\(\(?'?([^',)]{0,80})")  # "open('/tmp/x', ..." -> open, /tmp/x


@dataclass(frozen=True)
class Counterexample:
    input: str  # the call's arguments, shortened: "(3, [1, 2])"
    original: str  # "returned 6", "raised ValueError: ..."
    candidate: str

    def to_json(self) -> dict:
        return {"input": self.input, "original": self.original, "candidate": self.candidate}

    @classmethod
    def from_json(cls, data: object) -> Counterexample:
        """The counterexample ``to_json`` wrote; ValueError for anything else."""
        fields = ("input", "original", "candidate")
        if (
            not isinstance(data, dict)
            or set(data) != set(fields)
            or not all(isinstance(data[name], str) for name in fields)
        ):
            raise ValueError("not a counterexample")
        return cls(data["input"], data["original"], data["candidate"])


@dataclass(frozen=True)
class Similarity:
    """FuncSim of one candidate: matches / counted, None when no case could be counted.
    Only the cases where the original returned are counted; those where it raised are
    ``raised`` (``raised_example``: the first, input and error)."""

    matches: int
    counted: int
    discarded: int
    counterexample: Counterexample | None = None
    problem: str | None = None  # why nothing was counted (the sandbox refused the candidate)
    raised: int = 0
    raised_example: str | None = None

    @property
    def value(self) -> float | None:
        return self.matches / self.counted if self.counted else None


@dataclass(frozen=True)
class FuncSimRun:
    results: tuple[Similarity, ...]  # one per candidate; empty when ``error`` is set
    cases: int  # inputs tried
    seconds: float  # sandbox time, start-up included
    error: str | None = None  # the run failed: timeout, crash, the original would not load
    complete: bool = True  # False when the failure may not recur (time, no sandbox here)
    stage: str | None = None  # what could not be had: "module", "function", "original"
    seen_calls: int = 0  # inputs taken from the project's call sites and doctests
    out_of_time: bool = False  # the time limit ended the inputs before all were tried
    in_module: bool = False  # run in the function's own module


@functools.cache
def driver_program() -> str:
    return resources.files("docfact.sonar").joinpath("_driver.py").read_text(encoding="utf-8")


@functools.cache
def driver_version() -> str:
    return hashlib.sha256(driver_program().encode()).hexdigest()[:16]


def funcsim(
    original: str | None,
    candidates: Sequence[str],
    function: str,
    *,
    cases: int = 200,
    time_limit_s: float = 10.0,
    cancel: threading.Event | None = None,
    home: Home | None = None,
) -> FuncSimRun:
    """Compare ``function`` of the ``original`` program with the same function of each
    candidate program, on up to ``cases`` generated inputs within ``time_limit_s`` seconds.

    With a ``home`` everything runs in the function's own module, imported in the
    sandbox: the original is the module's own function when ``original`` is None, and
    every program sees the module's names."""
    request = funcsim_request(original, candidates, function, cases, time_limit_s, home)
    if isinstance(request, FuncSimRun):
        return request
    return run_request(request, time_limit_s, cancel, home)


def funcsim_request(
    original: str | None,
    candidates: Sequence[str],
    function: str,
    cases: int,
    time_limit_s: float,
    home: Home | None,
) -> dict | FuncSimRun:
    """What the driver reads, or the failed run when the original has no such function.
    (It parses code: call it on one thread only; CPython 3.11's ast module keeps its
    recursion count per process, and two threads parsing at once can break it.)"""
    node = (
        function_at(home.text, home.qualname)
        if home is not None and original is None
        else function_node(original or "", function)
    )
    if node is None:
        return FuncSimRun((), 0, 0.0, f"the original has no function {function}", stage="original")
    params = parameter_specs(node)
    home_request = home.request(LOAD_S) if home is not None else None
    if home is not None and home_request is not None and takes_instance(home):
        params = params[1:]  # self or cls: the driver passes it
        home_request["init_params"] = _init_params(home)
        home_request["state"] = state_values(node) + none_tested_state(node)
    return {
        "function": function,
        "original": original,
        "candidates": list(candidates),
        "params": params,
        "varargs": varargs_spec(node),
        "varkw": varkw_names(node),
        "constants": {
            **body_constants(node),
            "patterns": pattern_sources(node),
            "lines": works_on_lines(node),
            "numerals": parses_numbers(node),
        },
        "cases": cases,
        "case_s": max(0.1, min(1.0, time_limit_s / 40)),  # per call; a hang costs little
        "budget_s": time_limit_s,
        "home": home_request,
        "support_path": docfact_support_path()
        if home is not None and home.python.executable
        else [],
    }


def _init_params(home: Home) -> list[dict]:
    """The parameter specs of the ``__init__`` of the method's class, else of its
    ``__new__`` (``Fraction(numerator=0, denominator=None)``: without them every instance
    was ``Fraction()``, a whole 0), none when it has neither of its own: to draw instances
    from, besides the recipes of the project that build one."""
    owner = home.qualname.rpartition(".")[0]
    init = function_at(home.text, owner + ".__init__") or function_at(home.text, owner + ".__new__")
    if init is None:
        return []
    specs = parameter_specs(init)[1:]
    cls = class_at(home.text, owner)
    called = stored_and_called(init, cls) if cls is not None else set()
    for spec in specs:  # ``self.__ttu = ttu`` and ``self.__ttu(k, v, now)``: a function
        if spec["name"] in called:
            spec["spec"] = CALLABLE
    return specs


def run_request(
    request: dict, time_limit_s: float, cancel: threading.Event | None, home: Home | None
) -> FuncSimRun:
    """The sandbox run of a request, each candidate alone when one was refused."""
    candidates = request["candidates"]
    run = replace(_run(request, time_limit_s, cancel, home), in_module=home is not None)
    if run.error and run.error.startswith(BLOCKED) and len(candidates) > 1:
        # One candidate did what the sandbox refuses and the run ended: try each alone.
        solos = [
            _run({**request, "candidates": [c]}, time_limit_s, cancel, home) for c in candidates
        ]
        if any(solo.results for solo in solos) and all(
            solo.results or (solo.error or "").startswith(BLOCKED) for solo in solos
        ):
            results = tuple(
                solo.results[0] if solo.results else Similarity(0, 0, 0, problem=solo.error)
                for solo in solos
            )
            return FuncSimRun(
                results,
                max(solo.cases for solo in solos),
                run.seconds + sum(solo.seconds for solo in solos),
                seen_calls=max(solo.seen_calls for solo in solos),
                in_module=home is not None,
            )
    return run


def _run(
    request: dict, time_limit_s: float, cancel: threading.Event | None, home: Home | None
) -> FuncSimRun:
    loading = LOAD_S if home is not None else 0.0
    limits = sandbox.Limits(
        cpu_s=time_limit_s + STARTUP_S + loading,
        wall_s=2 * time_limit_s + STARTUP_S + loading,
        output_bytes=OUTPUT_BYTES,
    )
    nonce = secrets.token_hex(16)  # the summary line must carry it: see _driver.py
    outcome = sandbox.run_python(
        driver_program(),
        json.dumps({**request, "nonce": nonce}),
        limits=limits,
        cancel=cancel,
        read_paths=home.read_paths() if home is not None else (),
        python=home.python.executable if home is not None else None,
    )
    return _read(outcome, len(request["candidates"]), nonce)


def _read(outcome: sandbox.Outcome, count: int, nonce: str) -> FuncSimRun:
    seconds = outcome.seconds
    if outcome.state == "unavailable":  # may be installed before the next run: not final
        return FuncSimRun((), 0, seconds, outcome.detail, complete=False)
    if outcome.state == "blocked":  # deterministic: the code asked for something refused
        return FuncSimRun((), 0, seconds, f"{BLOCKED} ({_short_detail(outcome.detail)})")
    if outcome.state != "ok":
        reason = {
            "timeout": "the tests ran out of time",
            "out_of_memory": "the tests ran out of memory",
            "crashed": "the tests crashed",
        }
        message = reason.get(outcome.state, outcome.state)
        lines = outcome.stderr.strip().splitlines()
        detail = outcome.detail or (lines[-1] if lines else "")
        # A crash or the memory limit is the code's doing and recurs: kept like any result.
        # Time may be the machine's (a busy one): asked again.
        return FuncSimRun(
            (),
            0,
            seconds,
            f"{message} ({detail})" if detail else message,
            complete=outcome.state != "timeout",
        )
    try:
        summary, results = _summaries(outcome.stdout, nonce, count)
    except (ValueError, KeyError, TypeError, RecursionError) as error:
        # The code ended the run early (os._exit, a flood of output): it will again.
        return FuncSimRun((), 0, seconds, f"the tests gave no summary ({error})")
    # What this environment lacks (a dependency, hypothesis) is no result of the function.
    complete = not summary.get("environment", False)
    if summary.get("error") and not results:
        return FuncSimRun(
            (),
            summary["cases"],
            seconds,
            summary["error"],
            complete=complete,
            stage=summary.get("stage"),
        )
    return FuncSimRun(
        results,
        summary["cases"],
        seconds,
        summary.get("error"),
        complete=complete,
        seen_calls=summary.get("seen_calls", 0),
        out_of_time=summary.get("out_of_time", False),
    )


def _summaries(stdout: str, nonce: str, count: int) -> tuple[dict, tuple[Similarity, ...]]:
    """The original's summary (the first line the driver wrote, before any candidate
    existed) and each candidate's similarity, compared here (``outcomes.py``); none when
    the original's phase failed. ValueError when the lines are missing or malformed."""
    head = f"{MARKER}{nonce} "
    lines = [line[len(head) :] for line in stdout.splitlines() if line.startswith(head)]
    first = next((line for line in lines if line.startswith("original ")), "")
    if not first:
        raise ValueError("no line with this run's nonce; the code may have printed its own")
    summary = json.loads(first[len("original ") :])
    records = summary["records"]
    if not isinstance(records, list) or not all(_is_record(r) for r in records):
        raise ValueError("malformed outcomes of the original")
    if summary.get("stage"):
        return summary, ()
    last = next((line for line in reversed(lines) if line.startswith("candidates ")), "")
    if not last:
        raise ValueError("no outcomes of the candidates")
    entries = json.loads(last[len("candidates ") :])["results"]
    if not isinstance(entries, list) or len(entries) != count:
        raise ValueError("outcomes for the wrong candidates")
    results = []
    for entry in entries:
        outs = entry["outs"] if isinstance(entry, dict) and isinstance(entry["outs"], list) else []
        counts = outcomes.tally(records, outs)
        problem = entry.get("problem") if isinstance(entry, dict) else "no outcomes"
        example = counts["counterexample"]
        results.append(
            Similarity(
                counts["matches"],
                counts["counted"],
                counts["discarded"],
                Counterexample.from_json(example) if example else None,
                str(problem)[:300] if problem else None,
                counts["raised"],
                counts["raised_example"],
            )
        )
    return summary, tuple(results)


def _is_record(record: object) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("show"), str)
        and isinstance(record.get("o"), dict)
        and record["o"].get("k") in ("returned", "raised", "timeout", "unsteady")
        and {"v", "p", "d"} <= record["o"].keys()
    )


def _short_detail(detail: str) -> str:
    """ "open('/tmp/x', 'w', 524865): outside the sandbox" -> "open /tmp/x: outside the sandbox"."""
    match = _AUDIT_DETAIL.match(detail)
    return f"{match[1]} {match[2]}: {detail.rsplit(': ', 1)[-1]}" if match else detail[:120]


async def afuncsim(
    original: str | None,
    candidates: Sequence[str],
    function: str,
    *,
    cases: int = 200,
    time_limit_s: float = 10.0,
    home: Home | None = None,
) -> FuncSimRun:
    """``funcsim`` off the event loop; cancelling the awaiting task stops the sandbox."""
    request = funcsim_request(original, candidates, function, cases, time_limit_s, home)
    if isinstance(request, FuncSimRun):
        return request
    cancel = threading.Event()
    try:
        return await asyncio.to_thread(run_request, request, time_limit_s, cancel, home)
    except asyncio.CancelledError:
        cancel.set()
        raise
