"""Differential testing, run inside the sandbox as __main__ (funcsim.py sends this file's
text to the sandbox; nothing imports it).

stdin: JSON {"function", "original", "candidates": [program, ...], "params": [{"name",
"keyword", "spec"}], "cases", "case_s", "budget_s"}.
stdout: a line "SONAR-FUNCSIM " + one JSON object {"error", "cases", "seconds", "results":
[{"matches", "counted", "discarded", "counterexample"}]}, one result per candidate.

SONAR's rules: floats equal within relative tolerance 1e-9, NaN equals NaN, infinities
exactly; both raise -> match; the original returns and the candidate raises -> mismatch;
the original raises and the candidate returns -> the case is discarded. A case where the
original runs out of time is discarded too (it says nothing about the behaviour), and a
function that returns None is judged by its arguments after the call (in-place work).
"""

import ast
import copy
import itertools
import json
import math
import numbers
import random
import reprlib
import signal
import string
import sys
import time


class CaseTimeout(BaseException):
    """Raised by the alarm; a BaseException so ``except Exception`` in the code under test
    does not swallow it (the alarm repeats in case it is swallowed anyway)."""


GIVE_UP = 3
MARKER = "SONAR-FUNCSIM "
_armed = False
_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxlist, _short.maxdict = 40, 40, 6, 6


def _on_alarm(signum, frame):
    if _armed:
        raise CaseTimeout()


class _Sink:
    """Where the code under test prints: nowhere."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass


def main():
    request = json.loads(sys.stdin.read())
    started = time.monotonic()
    # What the code prints goes nowhere; the summary is the last line that starts with
    # MARKER (code writing to file descriptor 1 itself cannot fake the line after it).
    out = sys.stdout
    sys.stdout = sys.stderr = _Sink()
    signal.signal(signal.SIGALRM, _on_alarm)
    summary = run(request, started)
    summary["seconds"] = round(time.monotonic() - started, 3)
    out.write("\n" + MARKER + json.dumps(summary) + "\n")
    out.flush()


def run(request, started):
    function, case_s = request["function"], request["case_s"]
    original = _load(request["original"], function, case_s)
    if isinstance(original, str):
        return {"error": f"the original could not be loaded: {original}", "cases": 0, "results": []}
    candidates = [_load(program, function, case_s) for program in request["candidates"]]
    tallies = [{"matches": 0, "counted": 0, "discarded": 0, "counterexample": None}
               for _ in candidates]
    deadline = started + request["budget_s"]
    seen = {"cases": 0}
    # A function that ran out of time GIVE_UP times is not called again (each try costs
    # a whole case limit): a candidate keeps "running out of time", the original ends the run.
    timeouts = [0] * (len(candidates) + 1)

    def one_case(case):
        if time.monotonic() > deadline or timeouts[0] >= GIVE_UP:
            return
        seen["cases"] += 1
        args, kwargs = case
        expected = _call(original, args, kwargs, case_s)
        timeouts[0] += expected[0] == "timeout"
        for index, (candidate, tally) in enumerate(zip(candidates, tallies), start=1):
            if isinstance(candidate, str):
                actual = ("raised", f"could not be loaded: {candidate}")
            elif timeouts[index] >= GIVE_UP:
                actual = ("timeout", "")
            else:
                actual = _call(candidate, args, kwargs, case_s)
                timeouts[index] += actual[0] == "timeout"
            _tally(tally, expected, actual, args, kwargs)

    error = _generate(request, one_case)
    if timeouts[0] >= GIVE_UP:
        error = f"the original ran out of time on {GIVE_UP} inputs"
    return {"error": error, "cases": seen["cases"], "results": tallies}


def _generate(request, one_case):
    """Feed ``one_case`` inputs drawn by hypothesis with a fixed seed; an error message or None."""
    import hypothesis.core
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    # Hypothesis registers its own Random on first use, checking it with
    # gc.get_referrers, an object walk the sandbox refuses; with derandomize it never
    # draws from that Random, so one made here spares the check.
    if getattr(hypothesis.core.threadlocal, "_hypothesis_global_random", True) is None:
        hypothesis.core.threadlocal._hypothesis_global_random = random.Random(0)

    positional = [_strategy(p["spec"], st) for p in request["params"] if not p["keyword"]]
    keyword = {p["name"]: _strategy(p["spec"], st) for p in request["params"] if p["keyword"]}
    cases = st.tuples(st.tuples(*positional), st.fixed_dictionaries(keyword))

    @settings(max_examples=request["cases"], database=None, deadline=None, derandomize=True,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck), print_blob=False)
    @given(cases)
    def differential(case):
        one_case(case)

    try:
        differential()
    except Exception as error:  # hypothesis gave up (or our comparison broke): say so
        return f"input generation stopped: {type(error).__name__}: {error}"[:300]
    return None


# A fixed alphabet: any other text strategy makes hypothesis build its Unicode tables,
# a second per run in a fresh sandbox. Letters, digits, punctuation, space and a few
# characters beyond ASCII.
ALPHABET = string.ascii_letters + string.digits + string.punctuation + " \t\n" + "éßÅ中ж\u200b😀"


def _strategy(spec, st):
    kind = spec["t"]
    ints = st.integers(-1000, 1000)
    text = st.text(ALPHABET, max_size=12)
    leaves = {
        "int": ints,
        "float": st.floats(),
        "number": st.one_of(ints, st.floats()),
        "bool": st.booleans(),
        "str": text,
        "bytes": st.binary(max_size=12),
        "none": st.none(),
        "sized": st.one_of(st.lists(ints, max_size=8), text),
        "any": st.one_of(ints, text, st.none(), st.booleans(), st.floats(), st.lists(ints, max_size=5)),
    }
    if kind in leaves:
        return leaves[kind]
    if kind == "literal":
        return st.just(ast.literal_eval(spec["src"]))
    if kind == "one_of":
        return st.one_of(*(_strategy(part, st) for part in spec["of"]))
    if kind == "list":
        return st.lists(_strategy(spec["of"], st), max_size=8)
    if kind == "set":
        return st.sets(_strategy(spec["of"], st), max_size=8)
    if kind == "tuple" and "items" in spec:
        return st.tuples(*(_strategy(part, st) for part in spec["items"]))
    if kind == "tuple":
        return st.lists(_strategy(spec["of"], st), max_size=8).map(tuple)
    if kind == "dict":
        return st.dictionaries(_strategy(spec["k"], st), _strategy(spec["v"], st), max_size=6)
    raise ValueError(f"unknown input spec {kind!r}")


def _load(program, function, case_s):
    """The function ``program`` defines, or why it could not be had."""
    global _armed
    namespace = {"__name__": "__sonar__", "__builtins__": __builtins__}
    try:
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, case_s * 5, 0.05)
        try:
            exec(compile(program, "<program>", "exec"), namespace)
        finally:
            _armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        return "loading timed out"
    except BaseException as error:
        return f"{type(error).__name__}: {error}"[:200]
    found = namespace.get(function)
    return found if callable(found) else f"no function {function}"


def _call(function, args, kwargs, case_s):
    """("returned", value) | ("raised", description) | ("timeout", "")."""
    global _armed
    args, kwargs = copy.deepcopy((args, kwargs))
    random.seed(0)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(0)
    try:
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, case_s, 0.05)
        try:
            value = _materialise(function(*args, **kwargs))
        finally:
            _armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        return ("timeout", "")
    except BaseException as error:
        return ("raised", f"{type(error).__name__}: {error}")
    # A function that returns None did its work on its arguments.
    return ("returned", value if value is not None else ("<None; arguments after>", args, kwargs))


def _materialise(value):
    """Generators and iterators become ("<iterator>", items) so they can be compared."""
    if hasattr(value, "__next__") and hasattr(value, "__iter__"):
        return ("<iterator>", list(itertools.islice(value, 10_000)))
    return value


def _tally(tally, expected, actual, args, kwargs):
    if expected[0] == "timeout":
        tally["discarded"] += 1
        return
    if expected[0] == "raised":
        if actual[0] == "raised":
            tally["counted"] += 1
            tally["matches"] += 1
        else:
            tally["discarded"] += 1
        return
    tally["counted"] += 1
    if actual[0] == "returned" and _same(expected[1], actual[1]):
        tally["matches"] += 1
    elif tally["counterexample"] is None:
        tally["counterexample"] = {"input": _show_call(args, kwargs),
                                   "original": _describe(expected), "candidate": _describe(actual)}


def _same(a, b, depth=0):
    """SONAR's equality: floats within relative tolerance 1e-9, NaN == NaN, infinities exact."""
    try:
        if _is_number(a) and _is_number(b):
            if isinstance(a, numbers.Integral) and isinstance(b, numbers.Integral):
                return a == b
            if not (isinstance(a, numbers.Real) and isinstance(b, numbers.Real)):
                return _same(complex(a).real, complex(b).real) and _same(complex(a).imag, complex(b).imag)
            x, y = float(a), float(b)
            if math.isnan(x) or math.isnan(y):
                return math.isnan(x) and math.isnan(y)
            if math.isinf(x) or math.isinf(y):
                return x == y
            return math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0)
        if depth < 100 and type(a) is type(b) and isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(_same(x, y, depth + 1) for x, y in zip(a, b))
        if depth < 100 and type(a) is type(b) and isinstance(a, dict):
            return a.keys() == b.keys() and all(_same(a[k], b[k], depth + 1) for k in a)
        if hasattr(a, "shape") and hasattr(a, "dtype") and "numpy" in sys.modules:
            numpy = sys.modules["numpy"]
            a, b = numpy.asarray(a), numpy.asarray(b)
            if a.shape != b.shape:
                return False
            if a.dtype.kind in "fc" or b.dtype.kind in "fc":
                return bool(numpy.allclose(a, b, rtol=1e-9, atol=0.0, equal_nan=True))
            return bool(numpy.array_equal(a, b))
        return bool(a == b)
    except Exception:
        return False


def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _show_call(args, kwargs):
    parts = [_short.repr(a) for a in args] + [f"{k}={_short.repr(v)}" for k, v in kwargs.items()]
    text = "(" + ", ".join(parts) + ")"
    return text if len(text) <= 200 else text[:197] + "..."


def _describe(outcome):
    kind, detail = outcome[0], outcome[1]
    if kind == "timeout":
        return "ran out of time"
    if kind == "raised":
        return f"raised {detail}"[:200]
    if isinstance(detail, tuple) and detail and detail[0] == "<None; arguments after>":
        return f"returned None, arguments after: {_show_call(detail[1], detail[2])}"[:200]
    return f"returned {_short.repr(detail)}"[:200]


if __name__ == "__main__":
    main()
