import pytest

from docfact.understand import prompting


@pytest.mark.parametrize(
    "answer, verdict",
    [
        ("Correct", True),
        ("correct.", True),
        ("**Correct**", True),
        ("Answer: Correct", True),
        ("Incorrect", False),
        ("INCORRECT.", False),
        ("The summary is not correct.", False),
        ("It isn't correct", False),
        ("", None),
        ("I cannot tell.", None),
        ("Correct or Incorrect", None),
        (None, None),
    ],
)
def test_parse_judgement(answer, verdict):
    assert prompting.parse_judgement(answer) is verdict


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("  Returns the sum\n of two numbers. ", "Returns the sum of two numbers."),
        ("Summary: Adds numbers.", "Adds numbers."),
        ("**Intent:** Adds numbers.", "Adds numbers."),
        ('"Adds numbers."', "Adds numbers."),
        ("```\nAdds numbers.\n```", "Adds numbers."),
        ("   ", ""),
    ],
)
def test_clean_summary(raw, clean):
    assert prompting.clean_summary(raw) == clean


def test_messages_hold_the_code_and_the_summary():
    summary = prompting.summary_messages("def f():\n    return 1")
    assert [m["role"] for m in summary] == ["system", "user"]
    assert "def f():\n    return 1" in summary[1]["content"]
    judge = prompting.judge_messages("def f(): $x", "Returns one.")
    assert "def f(): $x" in judge[1]["content"] and "Returns one." in judge[1]["content"]
    assert "Correct or Incorrect" in judge[1]["content"]
    assert len(prompting.prompt_digest()) == 16
