"""The findings low scores make, and the scores' JSON shape (no model needed)."""

import math

from docfact.config import Settings
from docfact.engine import analyze
from docfact.sonar.funcsim import Counterexample
from docfact.sonar.measure import Measure, not_measured
from docfact.sonar.score import SonarResult
from docfact.sonar_ssc import FunctionScores, score_findings, sonar_json, ssc_json
from docfact.understand.calibrate import Labelled

TEXT = '''def larger(a: int, b: int) -> int:
    """Return the larger of a and b.

    Ties return either.
    """
    return min(a, b)
'''


def report():
    [found] = [r for r in analyze(TEXT, "m.py", "m", Settings()).units if r.unit.name == "larger"]
    return found


def sonar(correctness: Measure, example=None) -> SonarResult:
    fine = Measure(0.8, "measured")
    return SonarResult(correctness, fine, fine, fine, example)


def test_low_correctness_is_a_warning_on_the_summary_with_where_they_disagree():
    example = Counterexample("(0, 1)", "returned 0", "returned 1")
    scores = FunctionScores(
        "m.larger", sonar=sonar(Measure(0.1, "FuncSim over 200 cases"), example)
    )
    [finding] = score_findings(report(), scores)
    assert (finding.code, finding.criterion, finding.severity) == ("DF304", "function", "warning")
    assert finding.sentence == "Return the larger of a and b."
    assert TEXT[finding.span.start : finding.span.end] == "Return the larger of a and b."
    assert finding.message.startswith(
        "Code written from this docstring behaved differently on 180 of 200 inputs "
        "(SONAR Correctness 0.10): for the input (0, 1) the function returned 0"
    )
    assert "FuncSim" not in finding.message  # the measurement's term: in the JSON's how


def test_approximate_or_unmeasured_or_high_correctness_says_nothing():
    for measure in (
        Measure(0.1, "structural similarity", approximate=True),
        not_measured("I/O"),
        Measure(0.9, "FuncSim over 200 cases"),
    ):
        assert score_findings(report(), FunctionScores("m.larger", sonar=sonar(measure))) == []


def test_a_docstring_far_from_the_models_reading_is_information():
    far = Labelled(0.31, 0.6, 0.69, "low", 0.4, 8)
    [finding] = score_findings(report(), FunctionScores("m.larger", docstring_similarity=far))
    assert (finding.code, finding.severity) == ("DF305", "information")
    assert "similarity 0.31 to the model's 8 summaries" in finding.message
    assert "threshold 0.60" in finding.message  # 1 - tau, on the similarity scale
    near = Labelled(0.9, 0.1, 0.1, "high", 0.4, 8)
    assert score_findings(report(), FunctionScores("m.larger", docstring_similarity=near)) == []


def test_json_shapes():
    example = Counterexample("(0, 1)", "returned 0", "returned 1")
    shaped = sonar_json(sonar(Measure(0.1, "FuncSim over 200 cases"), example))
    assert shaped["correctness"] == 0.1 and shaped["how"]["abstraction"] == "measured"
    assert shaped["counterexample"] == {
        "input": "(0, 1)",
        "original": "returned 0",
        "candidate": "returned 1",
    }
    assert sonar_json(None) is None
    p1 = Labelled(0.81, 0.2, 0.19, "high", 0.26, 8, 12)
    shaped = ssc_json(FunctionScores("m.f", ssc=p1))
    assert shaped == {
        "value": 0.81,
        "label": "high",
        "k": 8,
        "tau": 0.26,
        "threshold": 0.74,
        "calibrated_over": 12,
    }
    uncalibrated = ssc_json(
        FunctionScores("m.f", ssc=Labelled(0.81, 0.2, 0.19, "high", math.inf, 8))
    )
    assert uncalibrated["tau"] is None and uncalibrated["threshold"] is None
    assert ssc_json(FunctionScores("m.f", ssc_error="the model failed")) == {
        "value": None,
        "error": "the model failed",
    }
