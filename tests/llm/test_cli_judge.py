"""`docfact check --llm-model ...` end to end: the real CLI, the real litellm client, the
scripted model server on 127.0.0.1."""

import json
import os
import subprocess
import sys

from llm_helpers import SECRET, docfact_with_model

SOURCE = '''\
def restock(item, amount):
    """Add stock to an item.

    It also sends an email WRONGFUNC to the warehouse.

    Args:
        item: The item.
        ammount: How many.
    """
    item.quantity += amount
    return item
'''


def check(tmp_path, server, *extra):
    (tmp_path / "shop.py").write_text(SOURCE)
    done = docfact_with_model(
        tmp_path,
        server,
        "check",
        str(tmp_path / "shop.py"),
        "--format",
        "json",
        *extra,
        timeout=120,
    )
    return done, json.loads(done.stdout)


def test_model_findings_scores_and_usage(tmp_path, server):
    _, report = check(tmp_path, server)
    codes = {(d["code"], d["sentence"].split()[0]) for d in report["diagnostics"]}
    assert ("DF301", "It") in codes  # the model's functionality finding on its sentence
    assert ("DF101", "ammount:") in codes  # the deterministic one stands
    [score] = report["scores"]
    assert score["symbol"] == "shop.restock" and 0 < score["referee"] < 1
    assert score["referee_missing"] == 0
    assert report["llm"]["calls"] == 1 and report["llm"]["failures"] == 0
    assert report["llm"]["prompt_tokens"] > 0
    [request] = server.requests
    prompt = json.dumps(request.body)
    assert "Add stock to an item." in prompt and "item.quantity += amount" in prompt
    assert request.headers["authorization"] == f"Bearer {SECRET}"


def test_second_run_is_served_from_the_cache(tmp_path, server):
    check(tmp_path, server)
    _, report = check(tmp_path, server)
    assert report["llm"]["calls"] == 0 and report["llm"]["cache_hits"] == 1
    assert len(server.requests) == 1


def test_a_failing_model_keeps_the_deterministic_findings(tmp_path, server):
    server.inject("500", always=True)
    done, report = check(tmp_path, server)
    assert done.returncode == 1
    assert [d["code"] for d in report["diagnostics"]] == ["DF101"]
    assert report["scores"][0]["referee"] is None
    assert report["llm"]["failures"] >= 1


def test_model_rules_follow_ignore(tmp_path, server):
    _, report = check(tmp_path, server, "--ignore", "DF3")
    assert "DF301" not in {d["code"] for d in report["diagnostics"]}


def test_nothing_is_sent_without_a_model(tmp_path, server):
    (tmp_path / "shop.py").write_text(SOURCE)
    done = subprocess.run(
        [sys.executable, "-m", "docfact", "check", str(tmp_path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DOCFACT_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert "llm" not in json.loads(done.stdout)
    assert server.requests == []
