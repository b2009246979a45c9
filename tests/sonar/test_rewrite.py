"""Verified rewrites end to end: scripted model server, real sandbox, real cache."""

from dataclasses import replace

import pytest
from llm_helpers import analyze_text, cached_rows

from docfact.cache import Cache
from docfact.config import SonarSettings
from docfact.llm.client import LlmClient
from docfact.sonar.measure import Measure
from docfact.sonar.rewrite import abstract_rewrites, description_end, sentence_rewrite
from docfact.sonar.score import SonarResult

UNIT = '''\
def clamp(value: int, low: int = 0, high: int = 10) -> int:
    """Clamp value."""
    return max(low, min(value, high))
'''
CONTEXT = "def clamp(value: int, low: int=0, high: int=10) -> int:"
DETAILED = (
    "Return max(low, min(value, high)): the smaller of value and high, "
    "then the larger of that and low."
)
SECTIONS = (
    "\n\nArgs:\n    value: the number to clamp.\n"
    "    low: the lower bound.\n    high: the upper bound."
)
DOCSTRING = DETAILED + SECTIONS
ABSTRACT = "Return value limited to the range low..high: low when below it, high when above it."
LOSSY = "Return value, raised to low when it is below low."
STEPWISE = "Compute min(value, high), then return max(low, that)."

EXACT = "def clamp(value, low=0, high=10):\n    return max(low, min(value, high))\n"
ALIKE = (
    "def clamp(value, low=0, high=10):\n"
    "    return min(max(value, low), high) if low <= high else low\n"
)
# Three different programs that all behave like clamp. The temperature-0 request and the
# pool's share one sample counter, so the pool holds programs 0 and 1 or 1 and 2 beside
# program 0: Abstraction 0.48 or 0.70, above the detailed docstring's 0.27 either way.
CORRECT = [
    "def clamp(value, low=0, high=10):\n    if value < low or low > high:\n        return low\n"
    "    if value > high:\n        return high\n    return value\n",
    "def clamp(value, low=0, high=10):\n"
    "    return sorted([low, value, high])[1] if low <= high else low\n",
    EXACT,
]
WRONG = [  # three different programs that forget high
    "def clamp(value, low=0, high=10):\n    return max(low, value)\n",
    "def clamp(value, low=0, high=10):\n"
    "    if value < low:\n        return low\n    return value\n",
    "def clamp(value, low=0, high=10):\n    return value if value >= low else low\n",
]
SETTINGS = SonarSettings(enabled=True, samples=3, compressions=1, fuzz_cases=50)
REWRITE_SYSTEM = "You improve the description"
SENTENCE_SYSTEM = "You correct one sentence"


class Scripted:
    """The CodeWriter, plus answers to the two rewrite prompts."""

    def __init__(self, writer):
        self.writer = writer
        self.programs = writer.programs
        self.rewrites: list[str] = []  # one per sample of the rewrite request
        self.correction = ""
        self.judge_answer: str | None = None  # None: the scripted judge's marker rule

    def __call__(self, body: dict, sample: int) -> str | None:
        system = body["messages"][0]["content"]
        if system.startswith(REWRITE_SYSTEM):
            return self.rewrites[min(sample, len(self.rewrites) - 1)]
        if system.startswith(SENTENCE_SYSTEM):
            return self.correction
        return self.writer(body, sample) or self.judge_answer  # None: the judge's protocols


@pytest.fixture
def writer(writer):
    """Overrides conftest's writer, so the scripted server answers rewrites too."""
    scripted = Scripted(writer)
    # Two of three programs the same, the third alike, whichever samples the pool gets.
    scripted.programs[DOCSTRING] = [EXACT, ALIKE]
    scripted.programs[ABSTRACT + SECTIONS] = CORRECT
    scripted.programs[LOSSY + SECTIONS] = WRONG
    scripted.programs[STEPWISE + SECTIONS] = [EXACT]  # one program, every time: Abstraction 0
    scripted.rewrites = [ABSTRACT, LOSSY, STEPWISE]
    return scripted


@pytest.fixture
def cache(tmp_path):
    return Cache(tmp_path / "cache")


def rewrite_requests(server):
    return [
        r for r in server.requests if r.body["messages"][0]["content"].startswith(REWRITE_SYSTEM)
    ]


# --- description_end ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "docstring, description",
    [
        (DOCSTRING, DETAILED),
        ("Summary.\n\nMore prose.\n\nReturns:\n    y.", "Summary.\n\nMore prose."),
        ("Summary.\n\nNotes:\n    a note.", "Summary."),
        ("Summary.\n\n:param x: the x\n:returns: y", "Summary."),
        ("Summary.\n\nParameters\n----------\nx : int\n    The x.", "Summary."),
        ("Summary.\n\n>>> f(1)\n2", "Summary."),
        ("Summary.\n\nExample::\n\n    f(1)", "Summary."),
        ("Only prose.", "Only prose."),
        ("Args:\n    x: X.", ""),
    ],
)
def test_a_rewrite_replaces_only_the_prose_before_the_first_section(docstring, description):
    assert docstring[: description_end(docstring)] == description


# --- SONAR-guided rewrites --------------------------------------------------------------------


async def test_only_a_rewrite_that_keeps_behaviour_and_is_more_abstract_is_offered(
    server, writer, client, cache
):
    result = await abstract_rewrites(UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache)
    assert result.error is None and not result.failed and result.tried == 3
    (rewrite,) = result.rewrites  # LOSSY behaves otherwise, STEPWISE is less abstract
    assert rewrite.description == ABSTRACT
    assert rewrite.docstring == ABSTRACT + SECTIONS  # the sections are kept as they were
    assert rewrite.description_end == len(DETAILED)
    assert rewrite.correctness.value == 1.0 == rewrite.baseline_correctness.value
    before, after = rewrite.baseline_abstraction.value, rewrite.abstraction.value
    assert before == pytest.approx(0.274, abs=1e-3) and after > 0.47
    assert rewrite.correctness.how.startswith("FuncSim over 50 cases")
    assert rewrite.title == (
        f"Describe more abstractly (SONAR Abstraction {before:.2f} → {after:.2f}, "
        "Correctness 1.00 → 1.00)"
    )
    # the baseline (2 calls), the candidates (1 call, n = 3), each candidate's pool (2 calls):
    # 1 + (k + 1) x (1 + generators)
    assert result.calls == len(server.requests) == 2 + 1 + 3 * 2
    (asked,) = rewrite_requests(server)
    assert asked.body["n"] == 3
    prompt = asked.body["messages"][-1]["content"]
    assert f"Correctness 1.00, Abstraction {before:.2f}" in prompt
    assert "Current description:\n" + DETAILED + "\n" in prompt


async def test_a_known_baseline_is_not_measured_again_and_decides(server, writer, client, cache):
    known = Measure(1.0, "FuncSim over 50 cases (given)")
    baseline = SonarResult(known, Measure(0.9, "given"), known, known)
    result = await abstract_rewrites(
        UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache, baseline=baseline
    )
    assert result.rewrites == () and result.tried == 3 and result.error is None  # none beats 0.9
    assert result.calls == len(server.requests) == 1 + 3 * 2
    assert (
        "Correctness 1.00, Abstraction 0.90"
        in rewrite_requests(server)[0].body["messages"][-1]["content"]
    )


async def test_answers_with_sections_of_their_own_or_unchanged_are_not_scored(
    server, writer, client, cache
):
    writer.rewrites = [
        f'"""{ABSTRACT}\n\nArgs:\n    value: it."""',
        DETAILED,
        f"```\n{ABSTRACT}\n```",
    ]
    result = await abstract_rewrites(UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache)
    assert result.tried == 1 and [r.description for r in result.rewrites] == [ABSTRACT]
    assert result.calls == len(server.requests) == 2 + 1 + 2


async def test_verified_results_are_cached_and_a_hit_makes_no_call(server, writer, client, cache):
    first = await abstract_rewrites(UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache)
    asked = len(server.requests)
    again = await abstract_rewrites(UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache)
    assert again.cache_hit and again.calls == 0 and len(server.requests) == asked
    assert again.rewrites == first.rewrites and again.tried == first.tried
    other = await abstract_rewrites(UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache, k=2)
    assert not other.cache_hit  # k is part of the key


async def test_model_failure_offers_nothing_and_caches_nothing(server, writer, client, cache):
    server.inject("500", always=True)
    failed = await abstract_rewrites(UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache)
    assert failed.failed and failed.rewrites == () and failed.tried == 0
    assert failed.calls == 2 and rewrite_requests(server) == []  # the baseline's, nothing after
    assert cached_rows(cache) == 0
    server.always = None
    fresh = LlmClient(client.settings, backoff_base_s=0.01)  # the failures opened the breaker
    retried = await abstract_rewrites(UNIT, "clamp", DOCSTRING, CONTEXT, fresh, SETTINGS, cache)
    assert not retried.cache_hit and [r.description for r in retried.rewrites] == [ABSTRACT]


async def test_a_failed_candidate_call_is_not_cached(server, writer, client, cache):
    known = Measure(1.0, "given")
    baseline = SonarResult(known, Measure(0.2, "given"), known, known)
    server.inject("500", "500")  # the rewrite request and its one retry
    failed = await abstract_rewrites(
        UNIT, "clamp", DOCSTRING, CONTEXT, client, SETTINGS, cache, baseline=baseline
    )
    assert failed.failed and failed.rewrites == () and cached_rows(cache) == 0


async def test_nothing_to_rewrite_without_a_description(server, writer, client, cache):
    result = await abstract_rewrites(
        UNIT, "clamp", SECTIONS.strip(), CONTEXT, client, SETTINGS, cache
    )
    assert result.rewrites == () and "no description" in result.error
    assert len(server.requests) == 0


# --- a verified correction of one sentence ---------------------------------------------------

SOURCE = '''\
def load(path):
    """Read the settings file at path.

    It returns the WRONGFUNC parsed settings as a dict.

    Args:
        path: the file to read.
    """
    with open(path) as handle:
        return dict(line.split("=", 1) for line in handle.read().splitlines())
'''
FLAGGED = "It returns the WRONGFUNC parsed settings as a dict."
REASON = "the code contradicts this sentence (function)"


@pytest.fixture
def report():
    return analyze_text(SOURCE).units[0]


def judge_requests(server):
    return [
        r
        for r in server.requests
        if not r.body["messages"][0]["content"].startswith(SENTENCE_SYSTEM)
    ]


async def test_a_correction_the_judge_accepts_is_offered_and_cached(
    server, writer, client, cache, report
):
    writer.correction = '"It returns the settings read from the file as a dict."'
    found = await sentence_rewrite(
        report, SOURCE, (), FLAGGED, REASON, client, client.settings, cache
    )
    assert found == "It returns the settings read from the file as a dict."
    assert len(server.requests) == 2  # the correction, then one batched judgement
    prompt = server.requests[0].body["messages"][-1]["content"]
    assert FLAGGED in prompt and REASON in prompt and '"""' not in prompt.split("```python")[1]
    (judged,) = judge_requests(server)
    shown = judged.body["messages"][-1]["content"]
    assert "[S2] It returns the settings read from the file as a dict." in shown
    assert "[S1] Read the settings file at path." in shown and "WRONGFUNC" not in shown
    again = await sentence_rewrite(
        report, SOURCE, (), FLAGGED, REASON, client, client.settings, cache
    )
    assert again == found and len(server.requests) == 2


async def test_a_correction_the_judge_still_flags_is_not_offered(
    server, writer, client, cache, report
):
    writer.correction = "It returns the WRONGFUNC settings, parsed into a dict."
    found = await sentence_rewrite(
        report, SOURCE, (), FLAGGED, REASON, client, client.settings, cache
    )
    assert found is None and len(server.requests) == 2


async def test_the_paper_protocol_asks_four_questions_about_the_one_sentence(
    server, writer, client, cache, report
):
    writer.correction = "It returns the settings read from the file as a dict."
    paper = replace(client.settings, protocol="paper")
    found = await sentence_rewrite(report, SOURCE, (), FLAGGED, REASON, client, paper, cache)
    assert found == "It returns the settings read from the file as a dict."
    judged = judge_requests(server)
    assert len(server.requests) == 1 + 4 and len(judged) == 4
    assert {r.body["messages"][-1]["content"] for r in judged} == {found}


async def test_unusable_corrections_and_failures_offer_nothing_and_cache_nothing(
    server, writer, client, cache, report
):
    for answer in ("", FLAGGED, "It returns a dict. It reads the file."):
        writer.correction = answer
        assert (
            await sentence_rewrite(
                report, SOURCE, (), FLAGGED, REASON, client, client.settings, cache
            )
            is None
        )
    assert len(server.requests) == 3  # the rewrite calls only: nothing worth judging
    writer.correction = "It returns the settings read from the file as a dict."
    server.inject("500", always=True)
    assert (
        await sentence_rewrite(report, SOURCE, (), FLAGGED, REASON, client, client.settings, cache)
        is None
    )
    assert cached_rows(cache) == 0
    assert (
        await sentence_rewrite(
            report, SOURCE, (), "Not in the docstring.", REASON, client, client.settings, cache
        )
        is None
    )


async def test_a_judgement_without_verdicts_offers_nothing_and_caches_nothing(
    server, writer, client, cache, report
):
    writer.correction = "It returns the settings read from the file as a dict."
    writer.judge_answer = "I cannot judge that."
    found = await sentence_rewrite(
        report, SOURCE, (), FLAGGED, REASON, client, client.settings, cache
    )
    assert found is None and len(server.requests) == 2 and cached_rows(cache) == 0
