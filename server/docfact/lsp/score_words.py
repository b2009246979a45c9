"""The scores in plain words: one short line each (a hover that scrolls is not read), saying
what was measured and what to do when it is low; 0 to 1, higher is better (the card says it
once). The measurement's own terms (FuncSim, SLOR, P2, tau) and a counterexample are kept
for the card's details (``detail_lines``) and ``docfact score --json``."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from ..sonar_ssc import inputs_differed

if TYPE_CHECKING:
    from ..sonar.measure import Measure
    from ..sonar.score import SonarResult
    from ..sonar_ssc import FunctionScores

# Below these a line says what to do (Correctness: sonar_ssc's DF304 threshold's spirit).
LOW_CORRECTNESS = 0.9
LOW_ABSTRACTION = 0.2
LOW_FLUENCY = 0.4
_SHORTER = re.compile(r"one (\d+)% shorter")


def sonar_lines(result: SonarResult) -> list[str]:
    return [
        _correctness(result.correctness),
        _abstraction(result.abstraction),
        _conciseness(result.conciseness),
        _fluency(result.fluency),
    ]


def _not_measured(name: str, measure: Measure) -> str:
    why = measure.how.removeprefix("not measurable: ")
    return f"{name}: not measured ({why})"


def _correctness(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Correctness", measure)
    value = measure.value
    if measure.approximate:
        return (
            f"Correctness ≈{value:.2f}: compared by shape only (your function could not run here)"
        )
    cases = inputs_differed(measure)
    written = "code written from this docstring"
    if cases is None:
        said = f"{written} behaved like yours on {value:.0%} of inputs"
    else:
        differed, total = cases
        said = (
            f"{written} behaved like yours on {total - differed} of {total} inputs"
            if differed == 0
            else f"{written} differed on {differed} of {total} inputs"
        )
    # Below LOW_CORRECTNESS it is also a DF304 finding, which says where they differ.
    return f"Correctness {value:.2f}: {said}"


def _abstraction(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Abstraction", measure)
    value = measure.value
    # Programs that differ show a docstring leaving the how to the code; alike ones, one
    # that pins it down.
    if value >= LOW_ABSTRACTION:
        return f"Abstraction {value:.2f}: it says what the function does and leaves how to the code"
    return (
        f"Abstraction {value:.2f}: it pins down how the code works: "
        'try the action "Describe more abstractly"'
    )


def _conciseness(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Conciseness", measure)
    shorter = _SHORTER.search(measure.how)
    if shorter is None:
        return f"Conciseness {measure.value:.2f}: no shorter docstring kept the behaviour"
    return (
        f"Conciseness {measure.value:.2f}: one {shorter.group(1)}% shorter kept the behaviour: "
        "some of it may be unneeded"
    )


def _fluency(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Fluency", measure)
    if measure.value < LOW_FLUENCY:
        return f"Fluency {measure.value:.2f}: reads unlike docstring prose: write whole sentences"
    return f"Fluency {measure.value:.2f}: reads like well-written docstring prose"


def understandability_lines(scores: FunctionScores) -> list[str]:
    """SSC: whether a model reading the code summarises it the same way each time (and,
    when it is low, whether what it reads is what the docstring says)."""
    p1 = scores.ssc
    if p1 is None or p1.value is None:
        return [f"Understandability: not measured ({scores.ssc_error or 'no summaries'})"]
    summaries = f"{p1.k} model summaries of your code"
    if p1.label is None or not math.isfinite(p1.tau):
        line = f"Understandability {p1.value:.2f}: how alike {summaries} are (not rated yet)"
    elif p1.label == "high":
        line = (
            f"Understandability High ({p1.value:.2f}): {summaries} agree, as for most of "
            "the project"
        )
    else:
        line = (
            f"Understandability Low ({p1.value:.2f}): {summaries} disagree: "
            "the docstring matters more"
        )
    lines = [line]
    p2 = scores.docstring_similarity
    if p2 is not None and p2.value is not None and p2.label == "low":
        lines.append(
            f"The docstring matches what a model reads in the code at {p2.value:.2f} only: "
            "it may describe something else"
        )
    return lines


def consistency_line(score: float, sentences: int, criteria: int, missing: int) -> str:
    checks = sentences * criteria - missing  # the verdicts the score is made of
    agreed = round(score * checks)
    gaps = f" ({missing} verdicts missing)" if missing else ""
    advice = ": see the findings" if agreed < checks else ""
    return (
        f"Consistency {score:.2f}: the model judge found {agreed} of {checks} checks of your "
        f"sentences true{gaps}{advice}"
    )


def detail_lines(scores: FunctionScores) -> list[str]:
    """How each score was measured, in the measurement's own terms (for the card's details
    part): what SONAR's ``how`` says of the measured ones, SSC's proxies and calibration."""
    lines = []
    sonar = scores.sonar
    example = sonar.counterexample if sonar is not None else None
    if example is not None:
        lines.append(
            f"Where they differ: for `{example.input}` yours {example.original}; "
            f"the code written from the docstring {example.candidate}"
        )
    if sonar is not None:
        named = (
            ("Correctness", sonar.correctness),
            ("Abstraction", sonar.abstraction),
            ("Conciseness", sonar.conciseness),
            ("Fluency", sonar.fluency),
        )
        lines += [f"{name}: {m.how}" for name, m in named if m.value is not None]
    p1 = scores.ssc
    if p1 is not None and p1.value is not None:
        if math.isfinite(p1.tau):
            cut = (
                f"High above 1 - tau = {1 - p1.tau:.2f}, calibrated over "
                f"{p1.calibrated_over} functions"
            )
        else:
            cut = f"no tau yet: {p1.calibrated_over} functions calibrated"
        lines.append(f"SSC (P1): BERTScore agreement of {p1.k} summaries {p1.value:.2f}; {cut}")
    p2 = scores.docstring_similarity
    if p2 is not None and p2.value is not None:
        lines.append(
            f"P2: docstring against the summaries {p2.value:.2f} ({p2.label or 'unrated'})"
        )
    judged = scores.judged
    if judged is not None and judged.share is not None:
        lines.append(f"P3: summaries judged correct {judged.share:.0%}")
    return lines
