"""SSC calibrated over the project: the real CLI (check --ssc, then score), the packaged
encoder, a real cache shared by both runs, and a scripted model on 127.0.0.1 whose
summaries agree for half of the functions and scatter for the other half."""

import json
import random
import re

import pytest
from llm_helpers import docfact_with_model
from scripted_server import ScriptedServer

TOPICS = [
    "Parse a configuration file into sections.",
    "Send reminders to overdue customers.",
    "Draw a histogram of the monthly sales.",
    "Translate the greeting into French.",
    "Compress the log files of last week.",
    "Validate the shipping address of an order.",
    "Render the invoice as a PDF document.",
    "Retry the failed payment after a delay.",
    "Sort the students by their final grade.",
    "Count the words of every chapter.",
    "Resize the uploaded image to a thumbnail.",
    "Merge the two sorted lists of ids.",
]
AGREEING = [
    "Add two numbers and return their sum.",
    "Return the sum of the two numbers.",
    "Add a and b and return the result.",
]


def summarise(body, sample):
    """Summaries of ``scattered_*`` functions: topics drawn at random per function and
    sample; of the others, one of a few wordings of the same intent."""
    user = body["messages"][-1]["content"]
    found = re.search(r"def (\w+)\(", user)
    if not found or not user.startswith("Summarise the intent"):
        return None
    name = found.group(1)
    if name.startswith("scattered_"):
        return random.Random(f"{name}-{sample}").choice(TOPICS)
    return AGREEING[random.Random(f"{name}-{sample}").randrange(len(AGREEING))]


def source(count: int) -> str:
    return "".join(
        f'''
def {kind}_{n:02}(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b
'''
        for n in range(count)
        for kind in ("scattered", "agreeing")
    )


def run(tmp_path, server, *arguments):
    done = docfact_with_model(
        tmp_path, server, arguments[0], "--format", "json", *arguments[1:], timeout=900
    )
    return json.loads(done.stdout), done.stderr


@pytest.fixture
def server():
    with ScriptedServer(responder=summarise) as scripted:
        yield scripted


def test_the_low_ones_are_the_scattered_ones_and_score_reuses_the_calibration(tmp_path, server):
    (tmp_path / "arith.py").write_text(source(15))
    report, _ = run(tmp_path, server, "check", str(tmp_path / "arith.py"), "--ssc")
    labels = {s["symbol"].split(".")[1]: s["ssc"]["label"] for s in report["scores"]}
    low = [name for name, label in labels.items() if label == "low"]
    assert low and "high" in labels.values()
    assert sum(name.startswith("scattered_") for name in low) / len(low) >= 0.9
    assert all(s["ssc"]["calibrated_over"] == 30 for s in report["scores"])
    # One function scored alone is labelled against the project's calibration set.
    asked = server.requests.__len__()
    name = low[0]
    entry, _ = run(tmp_path, server, "score", f"{tmp_path / 'arith.py'}::{name}")
    assert entry["ssc"]["label"] == "low" and entry["ssc"]["calibrated_over"] == 30
    summaries = [
        r
        for r in server.requests[asked:]
        if r.body["messages"][-1]["content"].startswith("Summarise the intent")
    ]
    assert summaries == []  # its summaries are cached


def test_too_few_functions_label_nothing_and_say_so_once(tmp_path, server):
    (tmp_path / "arith.py").write_text(source(2))
    report, stderr = run(tmp_path, server, "check", str(tmp_path / "arith.py"), "--ssc")
    assert {s["ssc"]["label"] for s in report["scores"]} == {None}
    assert all(s["ssc"]["value"] is not None and s["ssc"]["tau"] is None for s in report["scores"])
    [said] = [line for line in stderr.splitlines() if "calibrated so far" in line]
    assert said.startswith("docfact: SSC: 4 function(s) of ") and "need at least 9" in said
