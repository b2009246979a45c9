"""The scores hover in plain words: what each score measured, what good looks like, what
to do when it is low; no measurement jargon; docstring markup rendered as code."""

from __future__ import annotations

import math

from docfact.config import Settings
from docfact.engine import analyze
from docfact.llm.judge import JudgeResult
from docfact.lsp.hover import DETAILS, markdown, rendered
from docfact.sonar.funcsim import Counterexample
from docfact.sonar.measure import Measure
from docfact.sonar.score import SonarResult
from docfact.sonar_ssc import FunctionScores
from docfact.understand.calibrate import Labelled

SOURCE = '''\
def to_feet(metres: float) -> float:
    """Convert metres to feet with :func:`round_to`, as in\\_feet.

    Args:
        metres: The length, see :py:class:`~units.Length`.
    """
    return metres * 3.28084
'''
JARGON = ("FuncSim", "SLOR", "perplexity", "anchors", "P2", "P3", "tau", "SSC", "ReFEree", "`█")


def _report():
    analysis = analyze(SOURCE, "units.py", "units", Settings(), "units.py")
    return next(r for r in analysis.units if r.symbol == "units.to_feet")


def _scores(correctness: float, label: str | None) -> FunctionScores:
    sonar = SonarResult(
        correctness=Measure(correctness, "FuncSim over 100 cases"),
        abstraction=Measure(0.12, "9 programs from 1 model x 9 samples, 36 pairs"),
        conciseness=Measure(0.7, "3 compressions; one 30% shorter preserves behaviour; ..."),
        fluency=Measure(0.9, "Kneser-Ney trigram: SLOR 1.03 (perplexity 86.0) (anchors ...)"),
        counterexample=Counterexample("(2.0,)", "returned 6.56", "returned 6.5"),
    )
    tau = 0.3 if label else math.inf
    ssc = Labelled(0.81, 0.2, 0.19, label, tau, 5, 40 if label else 3)
    return FunctionScores("units.to_feet", sonar=sonar, ssc=ssc)


def test_low_scores_say_what_they_measured_and_what_to_do():
    card = markdown(_report(), [], scores=_scores(0.42, "low"), scoring="run it")
    assert "Correctness 0.42: code written from this docstring differed on 58 of 100 inputs" in card
    assert 'try the action "Describe more abstractly"' in card  # abstraction 0.12
    # A low Abstraction says the docstring pins the how down, never that it leaves it out.
    assert "it pins down how the code works" in card
    assert "says what the function does" not in card
    assert "one 30% shorter kept the behaviour" in card
    assert "Understandability Low (0.81): " in card and "the docstring matters more" in card
    plain, details = card.split("\n---\n")
    for word in JARGON:
        assert word not in plain, word
    # The measurement's own terms and the counterexample, in the details, after a rule.
    assert "Where they differ: for `(2.0,)` yours returned 6.56" in details
    assert "- Correctness: FuncSim over 100 cases" in details
    assert "- Fluency: Kneser-Ney trigram: SLOR 1.03 (perplexity 86.0)" in details
    assert "SSC (P1): BERTScore agreement of 5 summaries 0.81; High above 1 - tau = 0.70" in details


def test_good_scores_say_so_and_an_unrated_one_says_how_to_rate_it():
    card = markdown(_report(), [], scores=_scores(1.0, None), scoring="run it")
    assert (
        "Correctness 1.00: code written from this docstring behaved like yours on 100 of 100"
        in card
    )
    assert "differed" not in card
    assert "(not rated yet)" in card
    assert "no tau yet: 3 functions calibrated" in card.split(DETAILS)[1]


def test_the_card_fits_a_hover_one_short_line_per_score():
    """VS Code's hover is at most 250 px high unless the editor is over 1000 px, and about
    100 characters wide: the part before the details is a dozen short lines, one per score."""
    card = markdown(_report(), [], scores=_scores(0.42, "low"), scoring="run it")
    plain = [line for line in card.split("\n---\n")[0].splitlines() if line]
    assert len(plain) <= 10, plain
    assert all(len(line.removeprefix("- ")) <= 100 for line in plain), max(plain, key=len)
    assert sum(line.startswith("- Correctness") for line in plain) == 1


def test_markup_is_rendered_as_code_and_plain_names_are_not_escaped():
    card = markdown(_report(), [], scoring="run *docfact: Score Docstrings of This File*")
    assert "Convert metres to feet with `round_to`, as in_feet." in card
    assert "metres: The length, see `Length`." in card
    assert ":func:" not in card and "in\\_feet" not in card
    assert "**Scores**: not computed — run *docfact: Score Docstrings of This File*" in card


def test_restructuredtext_escapes_show_the_character_written():
    """in\\_feet in a docstring is reStructuredText for in_feet; other backslashes stay."""
    assert rendered("Length in\\_feet, see \\*args") == "Length in_feet, see \\*args"
    assert rendered("Matches \\d+ digits") == "Matches \\d+ digits"
    assert rendered("``in\\_feet``") == "`in\\_feet`"  # a literal keeps what it holds


def test_plain_text_that_markdown_would_read_is_escaped():
    assert rendered("a *b* and _c_ and <b> [x]") == "a \\*b\\* and \\_c\\_ and \\<b> \\[x]"
    assert rendered("``literal`` and C{epydoc}") == "`literal` and `epydoc`"
    assert rendered(":class:`the title <pkg.Target>`") == "`the title`"


def test_a_failed_judgement_says_why_on_one_short_line_as_text():
    """A model server's error (here a proxy's HTML page with a link) is one line, cut, and
    shown as text: nothing in it is a link or markup in the card."""
    page = "model m: call failed: 502 <html>\n<body>[retry](http://x.test/a) " + "x" * 400
    card = markdown(_report(), [], judged=JudgeResult("units.to_feet", [], error=page))
    [line] = [line for line in card.splitlines() if "Consistency" in line]
    assert line.startswith("- Consistency: no verdict — model m: call failed: 502 \\<html> ")
    assert "\\[retry](http://x.test/a)" in line and line.endswith("(the docfact log has all of it)")
    assert len(line) < 240
