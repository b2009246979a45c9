"""Model failures are said, once each, and never blamed on the docstring: the real CLI
against a scripted server on 127.0.0.1 that answers garbage, stubs or errors."""

import json

from llm_helpers import SECRET, docfact_with_model
from scripted_server import ScriptedServer

SOURCE = '''\
def larger(a: int, b: int) -> int:
    """Return the larger of a and b."""
    return max(a, b)


def total(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b
'''


def check(tmp_path, server, *flags):
    (tmp_path / "arith.py").write_text(SOURCE)
    (tmp_path / "pyproject.toml").write_text("[tool.docfact.llm]\nmax-retries = 0\n")
    done = docfact_with_model(
        tmp_path,
        server,
        "check",
        str(tmp_path / "arith.py"),
        "--format",
        "json",
        "--trust-project",  # its max-retries
        *flags,
    )
    return json.loads(done.stdout), done.stderr.splitlines()


def stub_writer(body, sample):
    """Writes a stub for every function, garbage for every other question."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system.startswith("You are a Python programmer"):
        name = user.split("def ", 1)[1].split("(", 1)[0]
        return f"```python\ndef {name}(a, b):\n    raise NotImplementedError\n```"
    return "I would rather not say."


def test_garbage_and_stubs_are_not_measurable_and_said_once_each(tmp_path):
    with ScriptedServer(responder=stub_writer) as server:
        report, stderr = check(tmp_path, server, "--sonar")
    for entry in report["scores"]:
        sonar = entry["sonar"]
        assert sonar["correctness"] is None
        assert sonar["how"]["correctness"] == (
            "not measurable: the code regenerated from the docstring "
            "is a stub (raise NotImplementedError)"
        )
    assert not any(d["code"] == "DF304" for d in report["diagnostics"])
    for symbol in ("arith.larger", "arith.total"):
        assert [line for line in stderr if line.startswith(f"docfact: {symbol}: SONAR")] == [
            f"docfact: {symbol}: SONAR: the model's code is unusable: "
            "the regenerated code is a stub (raise NotImplementedError)"
        ]
        [judge] = [
            line for line in stderr if line.startswith(f"docfact: {symbol}: the model's judgement")
        ]
        assert judge.endswith("could not be read (4 of 4 verdicts missing)")


def test_every_failed_call_is_one_line(tmp_path):
    with ScriptedServer() as server:
        server.inject("500", always=True)
        report, stderr = check(tmp_path, server)
    failures = [line for line in stderr if "call failed" in line]
    assert len(failures) == 2  # one judge call per docstring, each failing once
    assert all(
        line.startswith("docfact: model openai/test-model: call failed: ") for line in failures
    )
    assert all(SECRET not in line for line in stderr)
    assert not any(d["code"] in ("DF301", "DF401") for d in report["diagnostics"])
