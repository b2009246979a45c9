"""ReFEree's judge end to end: real client, real HTTP, real cache."""

import asyncio
import json
import re
import sqlite3

import pytest
from llm_helpers import analyze_text, cached_rows
from scripted_server import MARKERS, PAPER_TITLES

from docfact.cache import Cache
from docfact.config import Settings
from docfact.llm import LlmClient, judge_unit, judge_units
from docfact.llm.judge import code_without_docstring
from docfact.llm.prompts import MAX_CODE_CHARS
from docfact.model import Evidence
from docfact.rule_settings import FileRules, suppressions

SOURCE = '''\
import os


def load(path, strict=False):
    """Read the settings file at path.

    It returns the WRONGFUNC parsed settings as a dict. The OFFTOPIC weather is nice.

    Args:
        path: the file to read, a BADTYPE string.
        strict: whether to fail on unknown keys.

    Returns:
        The settings.
    """
    with open(path) as handle:
        return parse(handle.read(), strict)


def parse(text, strict):
    """Parse settings text."""
    return dict(line.split("=", 1) for line in text.splitlines())
'''

PARSE_EVIDENCE = Evidence(
    "sample.parse",
    "sample.py",
    21,
    'def parse(text, strict):\n    """Parse settings text."""\n'
    '    return dict(line.split("=", 1) for line in text.splitlines())',
)
WRONG = {  # sentence index -> the criterion the scripted server rejects
    1: "function",
    2: "context",
    3: "type",
}


@pytest.fixture
def analysis():
    return analyze_text(SOURCE)


@pytest.fixture
def load_report(analysis):
    return next(r for r in analysis.units if r.symbol == "sample.load")


def client_for_test(settings, **options):
    options.setdefault("backoff_base_s", 0.01)
    return LlmClient(settings, **options)


async def judge(report, settings, cache=None, evidence=(PARSE_EVIDENCE,), text=SOURCE, client=None):
    client = client or client_for_test(settings)
    return await judge_unit(report, text, evidence, settings, cache, client)


def code_block(prompt: str) -> str:
    """The unit's code as the prompt shows it."""
    return re.search(r"```python\n(.*?)```", prompt, re.DOTALL).group(1)


def span_text(finding):
    return SOURCE[finding.span.start : finding.span.end]


def assert_expected_verdicts(result, report):
    assert len(result.segments) == len(report.segments) == 6
    for verdict in result.segments:
        expected = {c: 0 if WRONG.get(verdict.index) == c else 1 for c in MARKERS}
        assert verdict.verdicts == expected, report.segments[verdict.index].text


# --- what the model sees -------------------------------------------------------------------


async def test_the_batched_prompt_holds_stripped_code_evidence_and_every_sentence(
    server, llm_settings, load_report
):
    await judge(load_report, llm_settings())
    (request,) = server.requests
    assert request.body["response_format"]["type"] == "json_schema"
    user = request.body["messages"][-1]["content"]
    code = code_block(user)
    assert code.startswith("def load(path, strict=False):\n    with open(path) as handle:")
    assert '"""' not in code and "Read the settings" not in code
    assert PARSE_EVIDENCE.text in user and "### sample.parse (sample.py:21)" in user
    lines = re.findall(r"^\[S(\d+)\] (.*)$", user, re.MULTILINE)
    assert [int(n) for n, _ in lines] == [1, 2, 3, 4, 5, 6]
    for (_, shown), segment in zip(lines, load_report.segments):
        assert " ".join(segment.text.split()) in shown
    assert lines[3][1] == "Parameter `path`: the file to read, a BADTYPE string."


async def test_the_paper_protocol_asks_once_per_sentence_and_criterion(
    server, llm_settings, load_report
):
    result = await judge(load_report, llm_settings(protocol="paper"))
    assert result.calls == len(server.requests) == 6 * 4
    titles = set()
    for request in server.requests:
        messages = request.body["messages"]
        assert "response_format" not in request.body and request.body["max_tokens"] <= 5
        assert '"""' not in code_block(messages[1]["content"])
        assert PARSE_EVIDENCE.text in messages[1]["content"]
        titles |= {t for t in PAPER_TITLES if t in messages[0]["content"]}
    assert titles == set(PAPER_TITLES)
    last_messages = {r.body["messages"][-1]["content"] for r in server.requests}
    assert "It returns the WRONGFUNC parsed settings as a dict." in last_messages
    assert_expected_verdicts(result, load_report)


def test_the_docstring_is_cut_out_with_its_line():
    text = (
        'class A:\n    def f(self):\n        """Doc."""\n        return 1\n\n'
        '    def g(self): "Doc."; return 2\n'
    )
    units = {r.unit.qualname: r.unit for r in analyze_text(text).units}
    assert code_without_docstring(text, units["A.f"]) == "def f(self):\n    return 1"
    assert "Doc" not in code_without_docstring(text, units["A.g"])


def test_a_long_unit_is_cut_at_a_line():
    body = "".join(f"    value_{i} = {i}\n" for i in range(2000))
    text = f'"""Module doc."""\n\nclass Big:\n    """Big."""\n{body}'
    units = {r.unit.qualname: r.unit for r in analyze_text(text).units}
    code = code_without_docstring(text, units["Big"])
    assert code.startswith("class Big:\n    value_0 = 0\n")
    assert len(code) <= MAX_CODE_CHARS + 50
    assert re.search(r"\n# \.\.\. \(\d+ more lines not shown\)$", code)
    module_code = code_without_docstring(text, units[""])  # only the unit's own docstring goes
    assert module_code.startswith('class Big:\n    """Big."""\n    value_0 = 0')


# --- verdicts and findings ------------------------------------------------------------------


async def test_verdicts_land_on_the_right_sentences(server, llm_settings, load_report):
    result = await judge(load_report, llm_settings())
    assert_expected_verdicts(result, load_report)
    assert result.calls == 1 and not result.cache_hit and result.error is None
    assert result.missing == 0 and result.score == pytest.approx(21 / 24)
    by_code = {f.code: f for f in result.findings}
    assert set(by_code) == {"DF301", "DF401", "DF206"}
    assert span_text(by_code["DF301"]) == "It returns the WRONGFUNC parsed settings as a dict."
    assert span_text(by_code["DF401"]) == "The OFFTOPIC weather is nice."
    assert span_text(by_code["DF206"]) == "the file to read, a BADTYPE string."
    assert by_code["DF301"].severity == "warning" and by_code["DF206"].severity == "information"
    finding = by_code["DF301"]
    assert finding.criterion == "function" and finding.symbol == "sample.load"
    assert (
        finding.message
        == "the code contradicts this sentence (function) (model: openai/test-model)"
    )
    assert finding.data == {"model": "openai/test-model", "votes": [0]}


async def test_a_deterministic_finding_stands_and_the_model_agrees(server, llm_settings):
    text = (
        'def scale(x, factor):\n    """Scale x. The BADNAME rule applies.\n\n    Args:\n'
        '        x: the value.\n        y: the BADNAME factor.\n    """\n    return x * factor\n'
    )
    (report,) = analyze_text(text).units
    deterministic = [f for f in report.findings if f.code == "DF101"]
    assert deterministic, "the deterministic check reports the unknown parameter y"
    result = await judge(report, llm_settings(), text=text, evidence=())
    (agreement,) = result.agreements
    assert agreement.finding is deterministic[0] and agreement.criterion == "name"
    (model_finding,) = result.findings  # the sentence no rule could judge
    assert model_finding.code == "DF104" and model_finding.severity == "information"
    assert text[model_finding.span.start : model_finding.span.end] == "The BADNAME rule applies."


def shown(analysis, findings, settings=None):
    """What the settings (the defaults unless given) and the file's suppression comments
    show of ``findings``."""
    return FileRules.of(
        settings or Settings(),
        analysis.path,
        suppressions(analysis.module.units, analysis.module_name),
    ).apply(findings)


async def test_a_suppressed_code_is_not_reported(server, llm_settings):
    text = 'def f():  # docfact: ignore[DF301]\n    """Do WRONGFUNC things."""\n    return 1\n'
    analysis = analyze_text(text)
    (report,) = analysis.units
    result = await judge(report, llm_settings(), text=text, evidence=())
    assert result.segments[0].verdicts["function"] == 0
    assert [f.code for f in result.findings] == ["DF301"]
    assert shown(analysis, result.findings) == []


async def test_a_sentence_suppressed_for_a_rule_is_not_reported_again_by_the_model(
    server, llm_settings
):
    text = (
        'def f():  # docfact: ignore[DF102]\n    """Call `BADNAME_helper` first."""\n    return 1\n'
    )
    with_df102 = Settings(select=("DF102",))  # a preview rule, selected by its code
    analysis = analyze_text(text, settings=with_df102)
    (report,) = analysis.units
    assert [f.code for f in report.findings] == ["DF102"]  # found, and silenced where shown
    result = await judge(report, llm_settings(), text=text, evidence=())
    assert result.segments[0].verdicts["name"] == 0
    assert result.findings == [] and [a.finding.code for a in result.agreements] == ["DF102"]
    assert shown(analysis, report.findings + result.findings, with_df102) == []
    # Without the comment the rule's finding shows, and the model only agrees with it.
    plain = analyze_text(text.replace("  # docfact: ignore[DF102]", ""), settings=with_df102)
    assert [f.code for f in shown(plain, plain.findings, with_df102)] == ["DF102"]


# --- faults ------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["truncated", "wrong_ids", "empty"])
async def test_an_unusable_answer_is_no_verdict_and_never_cached(
    server, llm_settings, load_report, tmp_path, fault
):
    server.inject(fault)
    cache = Cache(tmp_path)
    deterministic = list(load_report.findings)
    result = await judge(load_report, llm_settings(), cache)
    assert all(v is None for s in result.segments for v in s.verdicts.values())
    assert result.missing == 24 and result.score is None
    assert result.findings == [] and result.agreements == []
    assert cached_rows(cache) == 0
    assert load_report.findings == deterministic


async def test_a_sentence_missing_from_the_answer_has_no_verdict(
    server, llm_settings, load_report, tmp_path
):
    server.inject("missing")
    cache = Cache(tmp_path)
    result = await judge(load_report, llm_settings(), cache)
    assert all(v is None for v in result.segments[-1].verdicts.values())
    assert result.segments[1].verdicts["function"] == 0
    assert result.missing == 4 and result.score == pytest.approx(17 / 20)
    assert cached_rows(cache) == 0


@pytest.mark.parametrize("fault", ["prose", "fenced"])
async def test_json_wrapped_in_prose_or_fences_is_read(
    server, llm_settings, load_report, tmp_path, fault
):
    server.inject(fault)
    cache = Cache(tmp_path)
    result = await judge(load_report, llm_settings(), cache)
    assert_expected_verdicts(result, load_report)
    assert cached_rows(cache) == 1


async def test_a_failing_model_costs_verdicts_not_the_check(
    server, llm_settings, load_report, tmp_path, secret, debug_log
):
    server.inject("500", always=True)
    cache = Cache(tmp_path)
    result = await judge(load_report, llm_settings(max_retries=1), cache)
    assert result.missing == 24 and result.findings == []
    assert "InternalServerError" in result.error
    assert cached_rows(cache) == 0
    assert secret not in debug_log.text and secret not in result.error


async def test_a_failed_paper_call_leaves_one_verdict_missing(
    server, llm_settings, load_report, tmp_path
):
    server.inject("500")
    cache = Cache(tmp_path)
    settings = llm_settings(protocol="paper", max_retries=0, max_concurrency=1)
    result = await judge(load_report, settings, cache)
    assert result.missing == 1 and result.error
    assert cached_rows(cache) == 0
    again = await judge(load_report, settings, cache)
    assert again.missing == 0 and again.calls == 24 and cached_rows(cache) == 1


async def test_the_key_never_reaches_the_logs(server, llm_settings, load_report, secret, debug_log):
    server.inject("429", "echo_key_401")
    settings = llm_settings()
    client = client_for_test(settings)
    first = await judge(load_report, settings, client=client)
    second = await judge(load_report, settings, client=client)
    assert first.error and secret not in first.error
    assert second.error is None
    assert any(r.name.startswith("docfact") for r in debug_log.records)
    assert secret not in debug_log.text


# --- cache ---------------------------------------------------------------------------------


async def test_a_second_identical_judge_makes_no_call(server, llm_settings, load_report, tmp_path):
    settings = llm_settings()
    first = await judge(load_report, settings, Cache(tmp_path))
    second = await judge(load_report, settings, Cache(tmp_path))
    assert len(server.requests) == 1
    assert second.cache_hit and second.calls == 0
    assert [s.verdicts for s in second.segments] == [s.verdicts for s in first.segments]
    assert second.findings == first.findings


@pytest.mark.parametrize("vote", [[1], "1", 2, True])
async def test_a_poisoned_vote_in_the_cache_file_is_a_miss(
    server, llm_settings, load_report, tmp_path, vote
):
    """A stored entry whose votes are not 0, 1 or None (a list among them made the
    majority count raise TypeError) is asked again, with the verdicts of a clean run."""
    settings = llm_settings()
    cache = Cache(tmp_path)
    first = await judge(load_report, settings, cache)
    with sqlite3.connect(cache.path) as db:
        [(key, text)] = db.execute("SELECT key, value FROM results").fetchall()
        entries = json.loads(text)
        for entry in entries:
            entry["votes"] = {c: [vote for _ in votes] for c, votes in entry["votes"].items()}
        db.execute("UPDATE results SET value=? WHERE key=?", (json.dumps(entries), key))

    second = await judge(load_report, settings, Cache(tmp_path))

    assert not second.cache_hit and len(server.requests) == 2
    assert [s.verdicts for s in second.segments] == [s.verdicts for s in first.segments]


async def test_the_key_covers_evidence_code_and_decoding(
    server, llm_settings, load_report, tmp_path
):
    cache = Cache(tmp_path)
    settings = llm_settings()
    await judge(load_report, settings, cache)
    await judge(load_report, settings, cache, evidence=())
    await judge(load_report, llm_settings(temperature=0.7), cache)
    edited = SOURCE.replace(
        "return parse(handle.read(), strict)", "return parse(handle.read(), not strict)"
    )
    report = next(r for r in analyze_text(edited).units if r.symbol == "sample.load")
    await judge(report, settings, cache, text=edited)
    assert len(server.requests) == 4 and cached_rows(cache) == 4


# --- votes ---------------------------------------------------------------------------------


def split_votes(sentence, criterion, sample):
    """WRONGFUNC is rejected by samples 0 and 1 only; OFFTOPIC by sample 0 only."""
    if criterion == "function" and "WRONGFUNC" in sentence:
        return 0 if sample < 2 else 1
    if criterion == "context" and "OFFTOPIC" in sentence:
        return 0 if sample == 0 else 1
    return 1


@pytest.mark.parametrize("honour_n, calls", [(True, 1), (False, 3)])
async def test_votes_take_the_majority(server, llm_settings, load_report, honour_n, calls):
    server.rule, server.honour_n = split_votes, honour_n
    result = await judge(load_report, llm_settings(votes=3))
    assert result.calls == len(server.requests) == calls
    assert result.segments[1].verdicts["function"] == 0
    assert result.segments[1].votes["function"] == [0, 0, 1]
    assert result.segments[2].verdicts["context"] == 1
    assert [f.code for f in result.findings] == ["DF301"]
    assert result.findings[0].data["votes"] == [0, 0, 1]


async def test_a_tie_is_no_verdict(server, llm_settings, load_report):
    server.rule = split_votes
    result = await judge(load_report, llm_settings(votes=2))
    assert result.segments[2].verdicts["context"] is None
    assert result.segments[1].verdicts["function"] == 0
    assert result.missing == 1


# --- many units ----------------------------------------------------------------------------


async def test_units_are_judged_concurrently(server, llm_settings, analysis):
    server.delay_s = 0.2
    settings = llm_settings(max_concurrency=4)
    results = await judge_units(
        analysis.units, SOURCE, lambda report: (), settings, None, client_for_test(settings)
    )
    assert [r.symbol for r in results] == ["sample.load", "sample.parse"]
    assert server.peak_in_flight == 2


async def test_cancelling_judge_units_cancels_the_calls(server, llm_settings, analysis, tmp_path):
    server.inject("hang", "hang")
    settings = llm_settings(timeout_s=30)
    cache = Cache(tmp_path)
    client = client_for_test(settings)
    task = asyncio.create_task(
        judge_units(analysis.units, SOURCE, lambda r: (), settings, cache, client)
    )
    while len(server.requests) < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert client.in_flight == 0
    assert cached_rows(cache) == 0


async def test_a_java_method_is_shown_to_the_judge_as_java(server, llm_settings, tmp_path):
    from docfact.cache import Cache
    from docfact.config import Settings
    from docfact.engine import analyze
    from docfact.llm import client_for, judge_units

    text = (
        "package shop;\n\nclass Cart {\n    /**\n     * Adds items WRONGFUNC to the cart.\n"
        "     * @param count how many\n     */\n    void add(int count) { total += count; }\n}\n"
    )
    analysis = analyze(text, "Cart.java", "shop", Settings())
    settings = llm_settings()
    [result] = await judge_units(
        [r for r in analysis.units if r.unit.name == "add"],
        text,
        lambda report: (),
        settings,
        Cache(tmp_path / "cache"),
        client_for(settings),
    )
    assert [f.code for f in result.findings] == ["DF301"]
    [request] = server.requests
    system, user = request.body["messages"][0]["content"], request.body["messages"][1]["content"]
    assert "the Java code it documents" in system
    assert "```java\n" in user and "void add(int count)" in user
