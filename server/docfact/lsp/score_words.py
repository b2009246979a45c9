"""The scores in plain words: one line each, saying what was measured, what good looks
like and what to do when it is low. The measurement's own terms (FuncSim, SLOR, P2, tau)
are kept for the card's last part (``detail_lines``) and ``docfact score --json``."""

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
    lines = [
        _correctness(result.correctness),
        _abstraction(result.abstraction),
        _conciseness(result.conciseness),
        _fluency(result.fluency),
    ]
    example = result.counterexample
    if example is not None:
        lines.append(
            f"Where they differ: for `{example.input}` yours {example.original}; "
            f"the code written from the docstring {example.candidate}"
        )
    return lines


def _not_measured(name: str, measure: Measure) -> str:
    why = measure.how.removeprefix("not measurable: ")
    return f"{name}: not measured ({why})"


def _correctness(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Correctness", measure)
    value = measure.value
    if measure.approximate:
        return (
            f"Correctness ≈{value:.2f}: your function could not be run here, so code written "
            "from the docstring was compared with it by shape, not by behaviour"
        )
    cases = inputs_differed(measure)
    if cases is None:
        said = f"code written from this docstring behaved like yours ({value:.0%} of inputs)"
    else:
        differed, total = cases
        said = (
            f"code written from this docstring behaved like yours on {total - differed} "
            f"of {total} inputs"
            if differed == 0
            else f"code written from this docstring behaved differently on {differed} "
            f"of {total} inputs"
        )
    advice = (
        " — the docstring may miss a case or say something the code does not do"
        if value < LOW_CORRECTNESS
        else ""
    )
    return f"Correctness {value:.2f}: {said}{advice} (1.00 is best)"


def _abstraction(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Abstraction", measure)
    value = measure.value
    # Programs that differ show a docstring leaving the how to the code; alike ones, one
    # that pins it down.
    meaning = (
        "so it says what the function does and leaves how to the code"
        if value >= LOW_ABSTRACTION
        else "so it pins down how the code works, step by step: "
        'try the code action "Describe more abstractly"'
    )
    return (
        f"Abstraction {value:.2f}: programs written from this docstring differ from each "
        f"other by {value:.0%}, {meaning} (higher is more abstract)"
    )


def _conciseness(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Conciseness", measure)
    shorter = _SHORTER.search(measure.how)
    if shorter is None:
        return (
            f"Conciseness {measure.value:.2f}: no shorter docstring kept the behaviour, "
            "so every part of it counts (1.00 is best)"
        )
    return (
        f"Conciseness {measure.value:.2f}: a docstring {shorter.group(1)}% shorter kept the "
        "behaviour — some of it may be unnecessary (1.00 is best)"
    )


def _fluency(measure: Measure) -> str:
    if measure.value is None:
        return _not_measured("Fluency", measure)
    advice = " — write it in whole sentences" if measure.value < LOW_FLUENCY else ""
    return (
        f"Fluency {measure.value:.2f}: how much it reads like well-written docstring prose"
        f"{advice} (0 is word salad, 1 fluent)"
    )


def understandability_lines(scores: FunctionScores) -> list[str]:
    """SSC: whether a model reading the code summarises it the same way each time."""
    p1 = scores.ssc
    if p1 is None or p1.value is None:
        return [f"Understandability: not measured ({scores.ssc_error or 'no summaries'})"]
    read = f"a model's {p1.k} summaries of your code agree with each other at {p1.value:.2f}"
    if p1.label is None or not math.isfinite(p1.tau):
        line = (
            f"Understandability {p1.value:.2f}: {read}; not yet rated High or Low "
            f"(score more functions of this project: {p1.calibrated_over} so far)"
        )
    elif p1.label == "high":
        line = f"Understandability: High — {read}, as much as most of this project's"
    else:
        line = (
            f"Understandability: Low — {read}, less than most of this project's: the code is "
            "hard to read, so the docstring matters more"
        )
    lines = [line]
    p2 = scores.docstring_similarity
    if p2 is not None and p2.value is not None:
        agree = " — the docstring may describe something else" if p2.label == "low" else ""
        lines.append(
            f"What a model reads in the code matches the docstring at {p2.value:.2f}{agree}"
        )
    judged = scores.judged
    if judged is not None and judged.share is not None:
        lines.append(f"The model judged {judged.share:.0%} of its summaries of the code correct")
    return lines


def consistency_line(score: float, sentences: int, criteria: int, missing: int) -> str:
    checks = sentences * criteria - missing  # the verdicts the score is made of
    agreed = round(score * checks)
    gaps = f" ({missing} verdicts missing)" if missing else ""
    advice = " — see the findings above" if agreed < checks else ""
    return (
        f"Consistency {score:.2f}: the model judge found {agreed} of {checks} checks of your "
        f"sentences (name, type, behaviour, context) true of the code{gaps}{advice}"
    )


def detail_lines(scores: FunctionScores) -> list[str]:
    """How each score was measured, in the measurement's own terms (for the card's details
    part): what SONAR's ``how`` says of the measured ones, SSC's proxies and calibration."""
    lines = []
    sonar = scores.sonar
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
        lines.append(f"P2: docstring against the summaries {p2.value:.2f}")
    judged = scores.judged
    if judged is not None and judged.share is not None:
        lines.append(f"P3: summaries judged correct {judged.share:.0%}")
    return lines
