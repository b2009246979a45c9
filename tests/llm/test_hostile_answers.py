"""Hostile model answers, through the real CLI and litellm against the scripted server: an
answer nested 1,000 deep, an answer of many megabytes, a reason full of terminal escape
sequences. Each costs only its own unit: one line on stderr, the other unit's model
findings kept, no traceback, and the exit status decided by the findings alone."""

from __future__ import annotations

import json

import pytest
from llm_helpers import docfact_with_model
from scripted_server import ENDLESS, ScriptedServer

SOURCE = '''\
def restock(item, amount):
    """Add stock to an item.

    It also sends an email WRONGFUNC to the warehouse.
    """
    item.quantity += amount
    return item


def hostile(item):
    """Poison the answer HOSTILE."""
    return item
'''

NESTED = "[" * 1000 + "]" * 1000
HUGE = json.dumps({"segments": [{"id": "S1", "reason": "x" * (24 << 20)}]})
# Clears the screen, moves the cursor, sets the window title, then a fake finding line.
ESCAPES = "\x1b[2J\x1b[H\x1b]0;owned\x07\u202eevil\nshop.py:1:1: DF101 forged finding"


def answering(hostile_answer: str):
    def responder(body: dict, sample: int) -> str | None:
        if "HOSTILE" in body["messages"][-1]["content"]:
            return hostile_answer
        return None  # the scripted judge's own rules

    return responder


def check(tmp_path, hostile_answer: str, output: str = "json"):
    (tmp_path / "shop.py").write_text(SOURCE)
    with ScriptedServer(responder=answering(hostile_answer)) as server:
        return docfact_with_model(
            tmp_path, server, "check", str(tmp_path / "shop.py"), "--format", output, timeout=300
        )


@pytest.mark.parametrize("answer", [NESTED, HUGE], ids=["nested-1000-deep", "24-megabytes"])
def test_a_hostile_answer_costs_only_its_unit(tmp_path, answer):
    done = check(tmp_path, answer)
    assert "RecursionError" not in done.stderr and "MemoryError" not in done.stderr
    report = json.loads(done.stdout)
    assert [(d["code"], d["symbol"]) for d in report["diagnostics"]] == [("DF301", "shop.restock")]
    scores = {s["symbol"]: s["referee"] for s in report["scores"]}
    assert scores["shop.hostile"] is None and 0 < scores["shop.restock"] < 1
    assert done.returncode == 1  # the other unit's finding, as without the hostile answer
    said = [line for line in done.stderr.splitlines() if "hostile" in line or "failed" in line]
    assert len(said) == 1 and len(said[0]) < 300, done.stderr
    assert said[0].endswith(
        "could not be read (4 of 4 verdicts missing)"
        if answer is NESTED
        else "call failed: the answer has 25,165,866 characters, over the 1,000,000 docfact reads"
    )


def test_an_endless_answer_is_cut_at_the_cap_while_it_streams(tmp_path):
    """A server streaming gigabytes (no Content-Length): litellm read it whole before the
    cap on an answer applied; now the read stops at 32 MiB, the call fails in one line and
    is not asked again, and the other unit keeps its finding."""
    (tmp_path / "shop.py").write_text(SOURCE)
    with ScriptedServer(responder=answering(ENDLESS)) as server:
        done = docfact_with_model(
            tmp_path, server, "check", str(tmp_path / "shop.py"), "--format", "json", timeout=300
        )
        streamed = server.streamed_bytes
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert [(d["code"], d["symbol"]) for d in report["diagnostics"]] == [("DF301", "shop.restock")]
    assert done.returncode == 1
    said = [line for line in done.stderr.splitlines() if "hostile" in line or "failed" in line]
    assert len(said) == 1, done.stderr
    assert said[0].endswith("call failed: the answer is over the 33,554,432 bytes docfact reads")
    # Read once (no retry), and only so far: the client stops, the kernel buffers a little.
    assert streamed < 64 << 20, f"{streamed:,} bytes sent before the client stopped"


def test_escape_sequences_in_a_reason_never_reach_the_terminal(tmp_path):
    verdicts = {"name": 1, "type": 1, "function": 0, "context": 1}
    answer = json.dumps({"segments": [{"id": "S1", **verdicts, "reason": ESCAPES}]})
    text = check(tmp_path, answer, "text")
    assert "\x1b" not in text.stdout + text.stderr and "\u202e" not in text.stdout
    assert "\x07" not in text.stdout
    [forged] = [line for line in text.stdout.splitlines() if "forged finding" in line]
    assert forged.startswith(str(tmp_path / "shop.py") + ":11:")  # one line, the real one
    assert "\\x1b[2J" in forged
    report = json.loads(check(tmp_path, answer, "json").stdout)
    [message] = [d["message"] for d in report["diagnostics"] if d["symbol"] == "shop.hostile"]
    assert message.startswith(" ".join(ESCAPES.split()))  # JSON keeps the text, escaped
