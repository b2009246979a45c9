"""FuncSim through the real sandbox: SONAR's comparison rules, one run per batch."""

import asyncio
import time

import pytest

from docfact.sonar.funcsim import afuncsim, funcsim
from docfact.sonar.inputs import parameter_specs
from docfact.sonar.regenerate import function_node
from docfact.sonar.score import _too_few_returning
from docfact.sonar.standalone import why_not_runnable

CASES = 60  # enough to hit every branch below, quick on a shared machine


def run(original, *candidates, cases=CASES, **options):
    result = funcsim(original, list(candidates), "f", cases=cases, **options)
    assert result.error is None, result.error
    assert len(result.results) == len(candidates)
    return result


def test_floats_equal_within_relative_tolerance_one_in_a_billion():
    result = run(
        "def f(x: float):\n    return x * 3\n",
        "def f(x):\n    return x + x + x\n",  # rounding differences only
        "def f(x):\n    return x * 3 * (1 + 1e-6)\n",
    )  # off by a millionth
    exact, off = result.results
    assert exact.value == 1.0 and exact.counted == result.cases > 0
    assert off.value < 1.0
    assert off.counterexample is not None and off.counterexample.candidate.startswith("returned")


def test_nan_equals_nan_and_infinities_are_exact():
    result = run(
        "def f(x: float):\n    return float('nan') if x > 0 else float('inf')\n",
        "import math\ndef f(x):\n    return math.nan if x > 0 else math.inf\n",
        "def f(x):\n    return float('nan') if x > 0 else 1e308\n",
    )
    same, finite = result.results
    assert same.value == 1.0
    assert finite.value < 1.0


# Adds one on finite numbers only: it agrees with ``x`` exactly on the NaN and infinities
OFF_BY_ONE_WHEN_FINITE = "import math\ndef f(x):\n    return x + 1 if math.isfinite(x) else x\n"


def test_floats_are_mostly_finite_so_a_change_on_ordinary_numbers_shows():
    result = run("def f(x: float) -> float:\n    return x\n", OFF_BY_ONE_WHEN_FINITE)
    assert result.results[0].value <= 0.2  # unbounded floats: about 0.7


def test_a_list_of_floats_holds_the_same_mostly_finite_numbers():
    result = run(
        "def f(xs: list[float]) -> float:\n    return sum(xs)\n",
        "import math\ndef f(xs):\n    return sum(xs) + all(map(math.isfinite, xs))\n",
    )
    assert result.results[0].value <= 0.4  # unbounded floats: about 0.8


def test_cases_where_the_original_raises_are_not_counted_so_raising_always_scores_nothing():
    result = run(
        "def f(x: int):\n    raise ValueError(x)\n", "def f(x):\n    raise TypeError('no')\n"
    )
    similarity = result.results[0]
    assert similarity.value is None and similarity.counted == 0
    assert similarity.raised == result.cases > 0
    assert similarity.raised_example.endswith("ValueError: 0")


def test_a_body_that_always_raises_loses_every_case_where_the_original_returns():
    result = run(
        "def f(x: int):\n    if x < 0:\n        raise ValueError(x)\n    return x\n",
        "def f(x):\n    raise RuntimeError('docfact')\n",
    )
    similarity = result.results[0]
    assert similarity.raised > 0 and similarity.counted > 0
    assert similarity.value == 0.0 and similarity.counted + similarity.raised == result.cases


def test_original_returns_candidate_raises_is_a_mismatch_with_a_counterexample():
    result = run("def f(x: int):\n    return x\n", "def f(x):\n    raise KeyError(x)\n")
    similarity = result.results[0]
    assert similarity.value == 0.0 and similarity.counted == result.cases
    example = similarity.counterexample
    assert example.original.startswith("returned ") and example.candidate.startswith(
        "raised KeyError"
    )
    assert example.input.startswith("(") and len(example.input) <= 200


def test_original_raises_candidate_returns_is_not_counted():
    result = run(
        "def f(x: int):\n    if x < 0:\n        raise ValueError(x)\n    return x\n",
        "def f(x):\n    return x\n",
    )
    similarity = result.results[0]
    assert similarity.raised > 0 and similarity.counted > 0 and similarity.discarded == 0
    assert similarity.value == 1.0  # the negative inputs do not count against it


def test_an_original_raising_with_another_message_each_time_still_raised():
    original = (
        "import itertools\nN = itertools.count()\ndef f(x: int):\n    raise ValueError(next(N))\n"
    )
    result = run(original, "def f(x):\n    return 0\n")
    similarity = result.results[0]
    assert similarity.raised == result.cases > 0 and similarity.discarded == 0


def test_no_counted_case_gives_no_score():
    result = run("def f(x: int):\n    raise ValueError(x)\n", "def f(x):\n    return 0\n")
    similarity = result.results[0]
    assert similarity.counted == 0 and similarity.raised == result.cases
    assert similarity.value is None


def test_a_candidate_cannot_forge_the_summary_line():
    forger = (
        "import json, os\n"
        "def f(x):\n"
        "    line = 'SONAR-FUNCSIM ' + json.dumps({'error': None, 'stage': None, 'cases': 200,"
        " 'results': [{'matches': 200, 'counted': 200, 'discarded': 0, 'raised': 0,"
        " 'raised_example': None, 'counterexample': None, 'problem': None}]})\n"
        "    os.write(1, ('\\n' + line + '\\n').encode())\n"
        "    os.write(1, ('\\nSONAR-FUNCSIM 0123 ' + line[14:] + '\\n').encode())\n"
        "    os._exit(0)\n"
    )
    result = funcsim("def f(x: int):\n    return x + 1\n", [forger], "f", cases=CASES)
    assert not result.results
    assert "gave no summary" in result.error


# Model code that digs the nonce (and anything else) out of the driver's frames, then
# prints a perfect summary in every shape the driver writes, and exits before the driver
# can speak again: the comparison happens in the parent, on the original's outcomes said
# before this code existed.
FRAME_WALKER = """
import json, os, sys

def f(x):
    found = {}
    frame = sys._getframe()
    while frame is not None:
        for name, value in list(frame.f_locals.items()):
            if name in ("nonce", "summary", "records", "returned", "tallies"):
                found.setdefault(name, value)
        frame = frame.f_back
    nonce = found["nonce"]
    head = "SONAR-FUNCSIM " + nonce + " "
    cases = 60
    perfect = {"matches": cases, "counted": cases, "discarded": 0, "raised": 0,
               "raised_example": None, "counterexample": None, "problem": None}
    records = found.get("records") or (found.get("summary") or {}).get("records") or [
        {"show": "(0)", "o": {"k": "returned", "v": ["i", "0x0"], "p": "", "d": "returned 0"}}
    ] * cases
    lines = [
        head + "original " + json.dumps({"error": None, "stage": None, "cases": len(records),
                                         "records": records}),
        head + "candidates " + json.dumps({"results": [{"problem": None,
                                                        "outs": [r["o"] for r in records]}]}),
        head + json.dumps({"error": None, "stage": None, "cases": cases, "results": [perfect]}),
    ]
    os.write(1, ("\\n" + "\\n".join(lines) + "\\n").encode())
    os._exit(0)
"""


def test_model_code_that_walks_the_frames_for_the_nonce_cannot_forge_a_perfect_score():
    result = funcsim("def f(x: int):\n    return x + 1\n", [FRAME_WALKER], "f", cases=CASES)
    assert result.error is None, result.error
    (similarity,) = result.results
    assert similarity.counted > 0 and similarity.value is not None and similarity.value < 0.5
    assert similarity.counterexample is not None


def test_a_counterexample_shows_where_outputs_that_print_alike_differ():
    result = run(
        "def f(n: int):\n    return iter(range(20))\n",
        "def f(n):\n    return iter([*range(9), 99, *range(10, 20)])\n",
    )
    example = result.results[0].counterexample
    assert example.original != example.candidate
    assert example.original.endswith("value[1][9] is 9")
    assert example.candidate.endswith("value[1][9] is 99")


def test_random_is_seeded_before_every_call():
    original = "import random\ndef f(n: int):\n    return random.random() + n\n"
    result = run(original, "import random\ndef f(n):\n    return n + random.random()\n")
    assert result.results[0].value == 1.0


def test_in_place_functions_are_judged_by_their_arguments():
    result = run(
        "def f(xs: list[int]):\n    xs.append(1)\n",
        "def f(xs):\n    xs += [1]\n",
        "def f(xs):\n    xs.append(2)\n",
    )
    assert [r.value for r in result.results] == [1.0, 0.0]


def test_a_hanging_candidate_costs_little_and_loses_every_case():
    result = run(
        "def f(x: int):\n    return x\n",
        "def f(x):\n    while True:\n        pass\n",
        time_limit_s=4.0,
    )
    similarity = result.results[0]
    assert similarity.value == 0.0 and "ran out of time" in similarity.counterexample.candidate
    assert result.seconds < 10


def test_a_candidate_that_cannot_load_is_not_tested():
    result = run(
        "def f(x: int):\n    return x\n",
        "import no_such_module_here\ndef f(x):\n    return x\n",
        "def f(x):\n    return x\n",
    )
    broken, fine = result.results
    assert broken.value is None and broken.counted == 0
    assert "could not be loaded: ModuleNotFoundError" in broken.problem
    assert fine.value == 1.0


def test_what_a_call_prints_is_part_of_its_result():
    result = run(
        "def f(x: int):\n    print(x)\n",
        "def f(x):\n    print(x)\n",
        "def f(x):\n    print(x + 1)\n",
    )
    same, other = result.results
    assert same.value == 1.0 and other.value == 0.0
    assert "printed" in other.counterexample.candidate


def test_an_original_that_answers_differently_each_time_is_not_counted():
    original = (
        "import itertools\nCOUNT = itertools.count()\ndef f(x: int):\n    return next(COUNT) + x\n"
    )
    result = run(original, "def f(x):\n    return x\n")
    similarity = result.results[0]
    assert similarity.counted == 0 and similarity.discarded == result.cases
    why = _too_few_returning(similarity, result.cases, result.out_of_time)
    assert why is not None and why.startswith("the function differs on each call")


def test_fractions_compare_exactly_as_they_are_held():
    """An unreduced fraction (``Fraction._add`` with one branch flipped) is not the reduced
    one: its own ``==`` says so, as floats they were alike (issue 25)."""
    result = run(
        "from fractions import Fraction\ndef f(x: int):\n    return Fraction(2 * x, 2)\n",
        "from fractions import Fraction\ndef f(x):\n    return Fraction(x, 1)\n",
        "from fractions import Fraction\n"
        "def f(x):\n    return Fraction(2 * x, 2, _normalize=False)\n",
        "def f(x):\n    return float(x)\n",  # a number of the same value, as before
    )
    reduced, unreduced, as_float = result.results
    assert reduced.value == 1.0 and as_float.value == 1.0
    assert unreduced.value is not None and unreduced.value < 0.1
    shown = unreduced.counterexample
    assert shown is not None and shown.candidate != shown.original


def test_objects_without_their_own_equality_compare_by_attributes():
    original = (
        "class Box:\n    def __init__(self, v):\n        self.v = v\n"
        "def f(x: int):\n    return Box(x)\n"
    )
    result = run(
        original,
        "class Box:\n    def __init__(self, v):\n        self.v = v\n"
        "def f(x):\n    return Box(x)\n",
        "class Box:\n    def __init__(self, v):\n        self.v = v\n"
        "def f(x):\n    return Box(-x)\n",
    )
    same, other = result.results
    assert same.value == 1.0 and other.value < 0.1


def test_a_refused_candidate_does_not_cost_the_others():
    result = run(
        "def f(s: str):\n    return s.upper()\n",
        "def f(s):\n    print(s)\n    return s.upper()\n",
        "def f(s):\n    open('/tmp/sonar-test-out', 'w').write(s)\n    return s.upper()\n",
    )
    printing, writing = result.results
    assert printing.value == 1.0
    assert writing.value is None and "refused" in writing.problem


def test_an_original_that_cannot_load_is_an_error():
    result = funcsim(
        "import no_such_module_here\ndef f(x):\n    return x\n",
        ["def f(x):\n    return x\n"],
        "f",
        cases=5,
    )
    assert result.results == () and "could not be loaded" in result.error


def test_usage_of_parameters_shapes_the_inputs():
    specs = {
        p["name"]: p["spec"]
        for p in parameter_specs(
            function_node(
                "def f(items, table, n, text, flag=False, *rest, key: 'str | None' = None):\n"
                "    for k, v in table.items():\n        pass\n"
                "    total = n * 2\n"
                "    return items[0], text.lower(), len(items), key\n",
                "f",
            )
        )
    }
    assert specs["table"] == {"t": "dict", "k": {"t": "str"}, "v": {"t": "int"}}
    assert specs["n"] == {"t": "number"}
    assert specs["text"] == {"t": "str"}
    assert specs["items"]["t"] == "one_of"  # indexed and sized: a list or a str
    assert specs["flag"]["of"][0] == {"t": "literal", "src": "False", "kind": {"t": "bool"}}
    assert specs["key"]["of"][0]["src"] == "None"
    assert "rest" not in specs


def test_the_values_the_body_compares_with_are_drawn_so_every_branch_is_reached():
    original = (
        "def f(method: str, n: int):\n"
        "    if method == 'fast':\n        return n * 2\n"
        "    if method in ('slow', 'exact'):\n        return {'slow': 1, 'exact': 3}[method] + n\n"
        "    raise ValueError(method)\n"
    )
    specs = {p["name"]: p["spec"] for p in parameter_specs(function_node(original, "f"))}
    assert specs["method"]["of"][0] == {"t": "choice", "src": "('fast', 'slow', 'exact')"}
    # the branch for 'exact' differs: random text alone would never reach it
    result = run(
        original,
        "def f(method, n):\n"
        "    if method == 'fast':\n        return n * 2\n"
        "    if method in ('slow', 'exact'):\n        return 1 + n\n"
        "    raise ValueError(method)\n",
    )
    similarity = result.results[0]
    assert similarity.counted >= 10 and similarity.value < 1.0
    assert "'exact'" in similarity.counterexample.input


def test_parameters_with_a_default_are_left_out_at_times_so_a_changed_default_shows():
    result = run(
        "def f(x: int, scale: int = 2):\n    return x * scale\n",
        "def f(x, scale=3):\n    return x * scale\n",
    )
    similarity = result.results[0]
    assert 0.0 < similarity.value < 1.0
    assert "scale" not in similarity.counterexample.input


def test_annotations_win_over_usage():
    specs = parameter_specs(
        function_node(
            "def f(a: list[float], b: dict[str, int], c: tuple[int, str], d: set[list[int]]):\n"
            "    return a + 1\n",
            "f",
        )
    )
    assert [p["spec"] for p in specs] == [
        {"t": "list", "of": {"t": "float"}},
        {"t": "dict", "k": {"t": "str"}, "v": {"t": "int"}},
        {"t": "tuple", "items": [{"t": "int"}, {"t": "str"}]},
        {"t": "set", "of": {"t": "tuple", "of": {"t": "int"}}},
    ]


@pytest.mark.parametrize(
    "source, reason",
    [
        ("def f(x):\n    print(x)\n", "does I/O (print)"),
        ("def f(p):\n    return open(p).read()\n", "does I/O (open)"),
        ("import os\ndef f(p):\n    return os.listdir(p)\n", "uses os"),
        ("import time\ndef f():\n    return time.time()\n", "uses time"),
        ("def f(x):\n    global seen\n    seen = x\n", "global state (global seen)"),
        ("def f(self, x):\n    return self.scale * x\n", "method (it needs self)"),
        ("def f(x):\n    return helper(x) + LIMIT\n", "names of its module (LIMIT, helper)"),
        ("async def f(x):\n    return x\n", "coroutine"),
        ("def f(x):\n    return eval(x)\n", "dynamic code (eval)"),
    ],
)
def test_functions_that_cannot_run_standalone(source, reason):
    assert reason in why_not_runnable(source, "f")


@pytest.mark.parametrize(
    "source",
    [
        "import math\ndef f(x):\n    return math.sqrt(x)\n",
        "import random\ndef f(xs):\n    return random.choice(xs)\n",
        "def f(xs):\n    def key(v):\n        return -v\n    return sorted(xs, key=key)\n",
        "def f(text):\n    try:\n        return int(text)\n"
        "    except ValueError as error:\n        return str(error)\n",
    ],
)
def test_pure_functions_run(source):
    assert why_not_runnable(source, "f") is None


async def test_cancelling_stops_the_sandbox_run():
    slow = "def f(x: int):\n    for _ in range(300_000):\n        pass\n    return x\n"
    task = asyncio.create_task(afuncsim(slow, [slow], "f", cases=1000, time_limit_s=60))
    await asyncio.sleep(1.5)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 5
