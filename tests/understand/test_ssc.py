"""SSC end to end: the scripted model server over real HTTP, the real MiniLM encoder."""

import re

import pytest
from scripted_server import ScriptedServer

from docfact.cache import Cache
from docfact.config import LlmSettings, SscSettings
from docfact.llm.client import LlmClient, LlmError
from docfact.source.python import parse_module
from docfact.understand import ssc

KEY_ENV = "DOCFACT_TEST_SSC_KEY"
CONSISTENT = [  # every consistent function gets these: identical alphas, so ties are exact
    "Return the sum of a and b.",
    "Add a and b and return the result.",
    "Compute and return a plus b.",
    "Returns the total of the two numbers a and b.",
]
CHAOTIC = [
    "Open a network socket to the mail server.",
    "Parse the configuration file into a dictionary.",
    "Render the user avatar as a PNG image.",
    "Sort the list of employees by salary.",
    "Delete stale records from the database.",
    "Compute the checksum of a downloaded archive.",
    "Schedule a background job to send reminders.",
    "Translate the greeting into French.",
]
GOOD_DOC = "Return the sum of a and b."
BAD_DOC = "Open a network socket to the mail server."


def responder(body, sample):
    user = body["messages"][-1]["content"]
    if "Correct or Incorrect" in user:  # the P3 judge
        summary = user.split("Summary:\n")[1].split("\n")[0]
        return "Incorrect." if summary in CHAOTIC else "Correct"
    name = re.search(r"def (\w+)\(", user).group(1)
    if name.startswith("chaos"):
        return CHAOTIC[sample % len(CHAOTIC)]
    if name == "partial" and sample == 5:
        return ""
    return f"Summary: {CONSISTENT[sample % len(CONSISTENT)]}"


@pytest.fixture
def server():
    with ScriptedServer(responder=responder) as scripted:
        yield scripted


@pytest.fixture
def client(server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    return LlmClient(
        LlmSettings(
            model="openai/test-model",
            api_base=server.base_url,
            api_key_env=KEY_ENV,
            timeout_s=5.0,
            max_retries=0,
        )
    )


def functions(names, docs=None):
    docs = docs or {}
    return [
        ssc.FunctionInput(name, f"def {name}(a, b):\n    return a + b", docs.get(name, GOOD_DOC))
        for name in names
    ]


def summary_requests(server):
    return [
        r
        for r in server.requests
        if "Correct or Incorrect" not in r.body["messages"][-1]["content"]
    ]


def test_function_input_cuts_the_docstring_out():
    text = 'def add(a, b):\n    """Return the sum of a and b."""\n    return a + b\n'
    unit = next(u for u in parse_module(text).units if u.name == "add")
    shown = ssc.function_input(text, unit)
    assert shown.symbol == "add" and shown.docstring == GOOD_DOC
    assert shown.code == "def add(a, b):\n    return a + b"


async def test_sample_summaries_one_call_for_k(server, client):
    summaries = await ssc.sample_summaries("def f(a, b):\n    return a + b", client, 8, 0.8)
    assert summaries == CONSISTENT * 2  # "Summary:" labels stripped
    assert len(server.requests) == 1
    body = server.requests[0].body
    assert body["n"] == 8 and body["temperature"] == 0.8
    assert "def f(a, b)" in body["messages"][-1]["content"]


async def test_sample_summaries_from_a_server_that_ignores_n(client):
    with ScriptedServer(responder=responder, honour_n=False) as lone:
        client.settings = LlmSettings(
            model="openai/test-model",
            api_base=lone.base_url,
            api_key_env=KEY_ENV,
            timeout_s=5.0,
            max_retries=0,
        )
        summaries = await ssc.sample_summaries("def chaos(a, b): pass", client, 4, 0.8)
        assert sorted(summaries) == sorted(CHAOTIC[:4])
        assert len(lone.requests) == 4


async def test_sample_summaries_failure_raises(server, client):
    server.inject("500", always=True)
    with pytest.raises(LlmError):
        await ssc.sample_summaries("def f(): pass", client, 4, 0.8)


async def test_judge_majority_and_share(server, client):
    share = await ssc.judge_summaries(
        "def f(a, b):\n    return a + b", [CONSISTENT[0], CHAOTIC[0], CHAOTIC[1]], client, 3, 0.8
    )
    assert share.verdicts == [True, False, False]
    assert share.share == pytest.approx(1 / 3) and share.label == "low"
    assert share.complete and all(len(v) == 3 for v in share.votes)


def test_majority_ties_are_no_verdict():
    assert ssc.majority([True, False]) is None
    assert ssc.majority([None, None, True]) is True
    assert ssc.majority([]) is None


def test_self_consistency_orders_consistent_above_chaotic(minilm):
    assert (
        ssc.self_consistency(CONSISTENT, minilm) > ssc.self_consistency(CHAOTIC[:4], minilm) + 0.2
    )
    with pytest.raises(ValueError):
        ssc.self_consistency(["one"], minilm)


def test_calibrate_labels_the_chaotic_function_low(minilm):
    per_function = {f"f{i}": CONSISTENT * 2 for i in range(10)} | {"chaos": CHAOTIC}
    result = ssc.calibrate(per_function, minilm, epsilon=0.2)
    assert result.functions["chaos"].label == "low"
    assert all(result.functions[f"f{i}"].label == "high" for i in range(10))
    assert result.functions["chaos"].k == 8
    weighted = ssc.calibrate(per_function, minilm, epsilon=0.2, idf=True)
    assert weighted.functions["chaos"].label == "low"
    docs = {name: GOOD_DOC for name in per_function} | {"f3": BAD_DOC}
    p2 = ssc.calibrate_docstrings(per_function, docs, minilm, epsilon=0.3)
    assert p2.functions["f3"].label == "low" and p2.functions["f4"].label == "high"


async def test_understand_project_end_to_end_and_cached(server, client, minilm, tmp_path):
    names = [f"ok{i}" for i in range(10)] + ["chaos1", "chaos2"]
    project = functions(names, {"ok3": BAD_DOC})
    settings = SscSettings(enabled=True, k=8, epsilon=0.35, judge_votes=3)
    cache = Cache(tmp_path)
    first = await ssc.understand_project(
        project, client, settings, cache, minilm, judge_client=client
    )
    assert first.errors == {}
    p1, p2 = first.p1, first.p2
    # 12 calibration alphas, rank ceil(13 * 0.65) = 9: tau is the consistent functions' alpha.
    assert p1.n == 12 and p1.tau < 0.5
    assert {s for s, f in p1.functions.items() if f.label == "low"} == {"chaos1", "chaos2"}
    assert {s for s, f in p2.functions.items() if f.label == "low"} == {"ok3", "chaos1", "chaos2"}
    assert first.p3["ok1"].share == 1.0 and first.p3["chaos1"].share == 0.0
    assert first.p3["chaos1"].label == "low"
    assert first.summaries["ok0"] == CONSISTENT * 2
    requests = len(server.requests)
    assert len(summary_requests(server)) == 12  # one request of n=8 per function

    again = await ssc.understand_project(
        project, client, settings, cache, minilm, judge_client=client
    )
    assert len(server.requests) == requests  # summaries, similarities and verdicts all cached
    assert again.calls_saved == 12
    assert again.p1 == p1 and again.p2 == p2
    assert {s: j.share for s, j in again.p3.items()} == {s: j.share for s, j in first.p3.items()}

    changed = SscSettings(enabled=True, k=8, epsilon=0.35, temperature=0.5, judge_votes=0)
    await ssc.understand_project(project[:1], client, changed, cache, minilm)
    assert len(server.requests) == requests + 1  # another temperature: another key


async def test_partial_and_failed_answers_are_not_cached(server, client, minilm, tmp_path):
    cache = Cache(tmp_path)
    settings = SscSettings(enabled=True, k=8)
    result = await ssc.understand_project(functions(["partial"]), client, settings, cache, minilm)
    assert "7 of 8" in result.errors["partial"]
    assert len(result.summaries["partial"]) == 7
    await ssc.understand_project(functions(["partial"]), client, settings, cache, minilm)
    assert len(summary_requests(server)) == 2  # asked again: 7 summaries were never stored

    server.inject("500", always=True)
    failed = await ssc.understand_project(functions(["gone"]), client, settings, cache, minilm)
    assert "gone" in failed.errors and failed.p1.functions["gone"].label is None
    server.always = None
    before = len(summary_requests(server))
    again = await ssc.understand_project(functions(["gone"]), client, settings, cache, minilm)
    assert len(summary_requests(server)) == before + 1  # the failure left nothing behind
    assert again.errors == {} and len(again.summaries["gone"]) == 8


async def test_missing_encoder_is_reported_not_raised(server, client, tmp_path):
    settings = SscSettings(enabled=True, k=4, encoder=str(tmp_path / "no-encoder"))
    result = await ssc.understand_project(functions(["ok"]), client, settings)
    assert "could not be loaded" in result.errors["ok"]
    assert result.p1.functions["ok"].label is None and result.summaries["ok"]


def test_each_text_is_encoded_once_for_all_pairs(minilm, monkeypatch):
    batches = []
    embed = minilm.embed
    monkeypatch.setattr(minilm, "embed", lambda texts: batches.append(list(texts)) or embed(texts))
    sims = ssc.similarities(CHAOTIC, minilm, GOOD_DOC)
    assert batches == [CHAOTIC + [GOOD_DOC]]  # k + 1 encodings, not one per pair
    assert len(sims.pairwise) == 8 and len(sims.docstring) == 8
    assert sims.pairwise[2][5] == sims.pairwise[5][2]


def test_too_few_summaries_leave_a_function_unlabelled(minilm):
    per_function = {f"f{i}": CONSISTENT * 2 for i in range(10)} | {"short": CONSISTENT[:3]}
    result = ssc.calibrate(per_function, minilm, epsilon=0.2)
    assert result.functions["short"].label is None and result.functions["short"].k == 3
    assert result.n == 10
