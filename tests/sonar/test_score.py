"""SONAR end to end: scripted model server, real sandbox, real cache."""

import re
import sys
from dataclasses import replace

import pytest
from scripted_server import ScriptedServer

from docfact.cache import Cache
from docfact.config import SonarSettings
from docfact.llm.client import LlmClient
from docfact.sonar.funcsim import FuncSimRun, Similarity
from docfact.sonar.regenerate import Regeneration
from docfact.sonar.score import _correctness, sonar_scores

UNIT = '''\
def clamp(value: int, low: int = 0, high: int = 10) -> int:
    """Clamp value into [low, high]."""
    return max(low, min(value, high))
'''
DOCSTRING = "Return value limited to the range low..high: low when below it, high when above it."
CONTEXT = "def clamp(value: int, low: int=0, high: int=10) -> int:"
IMPLEMENTATIONS = [
    "def clamp(value, low=0, high=10):\n    return max(low, min(value, high))\n",
    "def clamp(value, low=0, high=10):\n    if value < low:\n        return low\n"
    "    if value > high:\n        return high\n    return value\n",
    "def clamp(value, low=0, high=10):\n"
    "    return sorted([low, value, high])[1] if low <= high else low\n",
    "```python\ndef clamp(value, low=0, high=10):\n    result = value\n    if result > high:\n"
    "        result = high\n    if result < low:\n        result = low\n    return result\n```",
]
PAPER = SonarSettings(
    enabled=True,
    generators=("openai/test-model", "openai/second", "openai/third"),
    samples=9,
    compressions=3,
    fuzz_cases=100,
)


pytestmark = pytest.mark.usefixtures("quick_fluency")


@pytest.fixture
def cache(tmp_path):
    return Cache(tmp_path / "cache")


def script(writer):
    writer.programs[DOCSTRING] = IMPLEMENTATIONS
    writer.compressions[DOCSTRING] = ["Clamp value to [low, high].", "Return value.", DOCSTRING]
    writer.programs["Clamp value to [low, high]."] = [IMPLEMENTATIONS[2]]
    writer.programs["Return value."] = ["def clamp(value, low=0, high=10):\n    return value\n"]


async def test_paper_settings_stay_within_thirteen_calls(server, writer, client, cache):
    script(writer)
    result = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, PAPER, cache)
    assert result.error is None
    assert result.calls == len(server.requests) <= 13
    # 1 correctness + 3 pool calls (n = 2, 3, 3) + 1 compression call (n = 3) + 2 regenerations
    assert result.calls == 7
    assert sorted(r.body.get("n", 1) for r in server.requests) == [1, 1, 1, 2, 3, 3, 3]
    assert {r.body["model"] for r in server.requests} >= {"test-model", "second", "third"}

    assert result.correctness.value == 1.0 and not result.correctness.approximate
    assert result.correctness.how == "FuncSim over 100 cases where the function returns"
    assert result.abstraction.how == "9 programs from 3 models x 3 samples, 36 pairs"
    assert 0.0 < result.abstraction.value < 1.0
    ratio = 1 - len("Clamp value to [low, high].") / len(DOCSTRING)
    assert result.conciseness.value == pytest.approx(1 - ratio)
    assert result.compression == "Clamp value to [low, high]."
    assert result.fluency.value == 0.5 and result.fluency.how == "stand-in fluency"


async def test_results_are_cached_and_a_hit_makes_no_call(server, writer, client, cache):
    script(writer)
    first = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, PAPER, cache)
    asked = len(server.requests)
    again = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, PAPER, cache)
    assert again.cache_hit and len(server.requests) == asked and again.calls == 0
    assert (again.correctness, again.abstraction, again.conciseness, again.compression) == (
        first.correctness,
        first.abstraction,
        first.conciseness,
        first.compression,
    )
    # anything the result depends on changes the key
    other = await sonar_scores(UNIT, "clamp", DOCSTRING + " ", CONTEXT, client, PAPER, cache)
    assert not other.cache_hit


async def test_a_failed_model_call_is_never_cached(server, writer, client, cache):
    script(writer)
    server.inject("500", always=True)
    failed = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, PAPER, cache)
    assert failed.error and failed.correctness.value is None
    assert failed.correctness.how.startswith("not measurable: model call failed")
    server.always = None
    fresh = LlmClient(client.settings)  # the failures opened the first client's breaker
    retried = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, fresh, PAPER, cache)
    assert not retried.cache_hit and retried.correctness.value == 1.0


async def test_a_stub_regeneration_is_not_measurable(server, writer, client, cache):
    writer.programs[DOCSTRING] = [
        "def clamp(value, low=0, high=10):\n    raise NotImplementedError\n"
    ]
    settings = SonarSettings(enabled=True, samples=3, compressions=1, fuzz_cases=20)
    result = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, settings, cache)
    assert result.correctness.value is None
    assert result.correctness.how == (
        "not measurable: the code regenerated from the docstring is "
        "a stub (raise NotImplementedError)"
    )
    assert result.abstraction.value is None  # stubs are not implementations
    assert result.conciseness.value is None
    # what the model writes at temperature 0 is kept: asked again, it is not asked
    asked = len(server.requests)
    again = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, settings, cache)
    assert again.cache_hit and len(server.requests) == asked
    assert again.correctness.how == result.correctness.how


PARSE = '''\
def parse_version(text: str) -> tuple:
    """The numbers of a version."""
    major, minor, patch = text.split(".")
    return int(major), int(minor), int(patch)
'''
PARSE_CONTEXT = "def parse_version(text: str) -> tuple:"


async def test_inputs_that_make_the_function_raise_give_no_correctness(
    server, writer, client, cache
):
    writer.programs["Version numbers."] = [
        "def parse_version(text):\n    raise RuntimeError('no')\n"
    ]
    settings = SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=40)
    result = await sonar_scores(
        PARSE, "parse_version", "Version numbers.", PARSE_CONTEXT, client, settings, cache
    )
    assert result.correctness.value is None
    assert re.match(
        r"not measurable: the inputs made the function raise in \d+ of 160 cases",
        result.correctness.how,
    )
    assert "ValueError: not enough values to unpack" in result.correctness.how


async def test_a_body_that_always_raises_scores_zero_where_the_function_returns(
    server, writer, client, cache
):
    writer.programs["Clamp."] = ["def clamp(value, low=0, high=10):\n    raise RuntimeError\n"]
    settings = SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=40)
    result = await sonar_scores(UNIT, "clamp", "Clamp.", CONTEXT, client, settings, cache)
    assert result.correctness.value == 0.0
    assert result.correctness.how.startswith("FuncSim over 40 cases where the function returns")


async def test_a_function_that_prints_gets_an_approximate_correctness(
    server, writer, client, cache
):
    unit = 'def shout(text: str) -> None:\n    """Print it loud."""\n    print(text.upper())\n'
    writer.programs["Print text in capitals."] = [
        "def shout(text):\n    print(text.upper() + '!')\n"
    ]
    settings = SonarSettings(enabled=True, samples=2, compressions=1, fuzz_cases=20)
    result = await sonar_scores(
        unit,
        "shout",
        "Print text in capitals.",
        "def shout(text: str) -> None:",
        client,
        settings,
        cache,
    )
    assert result.correctness.approximate and 0.0 < result.correctness.value < 1.0
    assert "not executed (the function does I/O (print))" in result.correctness.how


async def test_counterexample_is_kept_for_a_wrong_docstring(server, writer, client, cache):
    writer.programs["Return low."] = ["def clamp(value, low=0, high=10):\n    return low\n"]
    settings = SonarSettings(enabled=True, samples=2, compressions=1, fuzz_cases=50)
    result = await sonar_scores(UNIT, "clamp", "Return low.", CONTEXT, client, settings, cache)
    assert result.correctness.value < 1.0
    example = result.counterexample
    assert example is not None and example.input.startswith("(")
    assert example.original != example.candidate


async def test_a_server_that_ignores_n_is_asked_at_most_sixteen_times(writer, client, cache):
    script(writer)
    with ScriptedServer(responder=writer, honour_n=False) as one_choice:
        ignoring = LlmClient(replace(client.settings, api_base=one_choice.base_url))
        result = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, ignoring, PAPER, cache)
        assert result.error is None
        assert result.calls == len(one_choice.requests) <= 16
        assert result.abstraction.how.startswith("9 programs")


async def test_twin_methods_are_asked_about_by_their_qualified_names(server, writer, client, cache):
    script(writer)
    settings = SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=20)
    for qualname in ("Low.clamp", "High.clamp"):
        result = await sonar_scores(
            UNIT, "clamp", DOCSTRING, CONTEXT, client, settings, cache, qualname=qualname
        )
        assert not result.cache_hit
    asked = [
        r.body["messages"][-1]["content"].split("\n", 1)[0]
        for r in server.requests
        if r.body["messages"][0]["content"].startswith("You are a Python programmer")
    ]
    assert "Function: Low.clamp" in asked and "Function: High.clamp" in asked


async def test_one_generator_pool_and_off_switch(server, writer, client, cache):
    script(writer)
    settings = SonarSettings(enabled=True, samples=9, compressions=3, fuzz_cases=30)
    result = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, settings, cache)
    assert result.abstraction.how == "9 programs from 1 model x 9 samples, 36 pairs"
    assert result.calls == len(server.requests) <= 13
    off = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, SonarSettings(), cache)
    assert off.correctness.value is None and "turned off" in off.correctness.how


async def test_without_the_fluency_module_fluency_is_not_measured(
    server, writer, client, cache, monkeypatch
):
    script(writer)
    monkeypatch.setitem(sys.modules, "docfact.sonar.fluency", None)  # import raises ImportError
    settings = SonarSettings(enabled=True, samples=2, compressions=1, fuzz_cases=20)
    result = await sonar_scores(UNIT, "clamp", DOCSTRING, CONTEXT, client, settings, cache)
    assert result.fluency.value is None
    assert result.fluency.how == "not measurable: fluency model not available"
    assert result.correctness.value == 1.0


def test_a_run_the_time_limit_cut_short_needs_the_full_count_and_is_asked_again():
    # hypothesis draws the simplest inputs first (0, 0): a dozen cases say little
    regeneration = Regeneration("def clamp(value, low=0, high=10):\n    return value\n")
    share = Similarity(matches=10, counted=12, discarded=0)
    for out_of_time, expected in ((False, 10 / 12), (True, None)):
        run = FuncSimRun((share,), cases=12, seconds=10.0, out_of_time=out_of_time)
        measure, _, complete = _correctness(UNIT, CONTEXT, regeneration, None, run, share)
        assert measure.value == expected and complete is not out_of_time
    assert measure.how == (
        "not measurable: the time limit ended the tests after 12 cases, 12 of them"
        " comparable; 20 are needed"
    )
