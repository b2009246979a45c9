import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docfact.understand.calibrate import (
    conformal_labels,
    conformal_threshold,
    halves,
    minimum_functions,
    p1_alphas,
    p2_alphas,
)

alphas_lists = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=60)
epsilons = st.floats(0.01, 0.99)


def rank(n, epsilon):
    return math.ceil((n + 1) * (1 - epsilon))


@given(alphas_lists, epsilons)
def test_tau_is_a_calibration_value_or_infinite(alphas, epsilon):
    tau = conformal_threshold(alphas, epsilon)
    if rank(len(alphas), epsilon) > len(alphas):
        assert tau == math.inf
    else:
        assert tau in alphas


@given(alphas_lists, epsilons)
def test_finite_sample_correction(alphas, epsilon):
    """At least ceil((n + 1)(1 - eps)) calibration values lie at or below tau."""
    tau = conformal_threshold(alphas, epsilon)
    covered = sum(a <= tau for a in alphas)
    assert covered >= min(rank(len(alphas), epsilon), len(alphas))
    assert covered / len(alphas) >= 1 - epsilon


@given(alphas_lists, epsilons, epsilons)
def test_monotonic_in_epsilon(alphas, first, second):
    low, high = sorted((first, second))
    assert conformal_threshold(alphas, low) >= conformal_threshold(alphas, high)


@settings(max_examples=200)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=40), epsilons)
def test_coverage_under_exchangeability(values, epsilon):
    """Exchangeable scores: any of the n + 1 values is equally likely to be the test one.
    Averaged over that choice, the test value is <= tau at least 1 - eps of the time."""
    covered = [
        values[i] <= conformal_threshold(values[:i] + values[i + 1 :], epsilon)
        for i in range(len(values))
    ]
    assert sum(covered) / len(covered) >= 1 - epsilon - 1e-12


def test_coverage_on_random_draws():
    import numpy as np

    rng = np.random.default_rng(7)
    hits = []
    for _ in range(2000):
        draws = rng.beta(2, 5, size=31)
        hits.append(draws[-1] <= conformal_threshold(list(draws[:-1]), 0.1))
    assert np.mean(hits) >= 0.9 - 0.02  # exact expectation: ceil(31 * 0.9) / 31 = 0.903


def test_small_projects_get_an_infinite_threshold():
    assert conformal_threshold([0.2] * 8, 0.1) == math.inf  # ceil(9 * 0.9) = 9 > 8
    assert conformal_threshold([0.2] * 9, 0.1) == 0.2  # ceil(10 * 0.9) = 9 <= 9
    assert conformal_threshold([], 0.1) == math.inf
    assert conformal_threshold([0.5, 0.1, 0.3, 0.2], 0.5) == 0.3  # rank ceil(5 * 0.5) = 3


def test_with_an_infinite_tau_nothing_is_labelled():
    result = conformal_labels("p1", {"f": (0.1, 0.2), "g": (0.3, 0.9)}, 0.1, {})
    assert result.tau == math.inf and result.n == 2
    assert {labelled.label for labelled in result.functions.values()} == {None}
    assert result.functions["f"].value == pytest.approx(0.8)
    assert minimum_functions(0.1) == 9 and minimum_functions(0.5) == 1
    assert conformal_threshold([0.2] * minimum_functions(0.2), 0.2) < math.inf
    assert conformal_threshold([0.2] * (minimum_functions(0.2) - 1), 0.2) == math.inf


def test_labels_against_a_given_calibration_set():
    # 20 calibration values 0, 0.05, ..., 0.95: tau is the ceil(21 * 0.9) = 19th, 0.9.
    result = conformal_labels(
        "p1", {"f": (0.1, 0.2), "g": (0.3, 0.93)}, 0.1, {}, calibration=[i / 20 for i in range(20)]
    )
    assert result.n == 20 and result.functions["f"].label == "high"
    assert result.functions["g"].label == "low" and result.functions["g"].calibrated_over == 20


@pytest.mark.parametrize("epsilon", [0, 1, -0.1, 1.5])
def test_epsilon_out_of_range(epsilon):
    with pytest.raises(ValueError):
        conformal_threshold([0.1], epsilon)


def test_labels_against_tau():
    alphas = {f"f{i}": (i / 10, i / 10) for i in range(10)}
    alphas["odd"] = (0.05, 0.95)
    alphas["unscored"] = None
    result = conformal_labels("p1", alphas, 0.2, {"odd": 8})
    # 11 calibration values, rank ceil(12 * 0.8) = 10: tau is the 10th smallest, 0.8.
    assert result.n == 11 and result.tau == pytest.approx(0.8)
    assert result.functions["f3"].label == "high"
    assert result.functions["f9"].label == "low"
    odd = result.functions["odd"]
    assert (odd.label, odd.value, odd.k) == ("low", pytest.approx(0.05), 8)
    assert result.functions["unscored"].label is None


def test_alphas_of_each_half():
    assert list(map(list, halves(5))) == [[0, 1], [2, 3, 4]]
    matrix = [[1, 0.9, 0.1, 0.1], [0.9, 1, 0.1, 0.1], [0.1, 0.1, 1, 0.5], [0.1, 0.1, 0.5, 1]]
    assert p1_alphas(matrix) == pytest.approx((0.1, 0.5))
    assert (
        p1_alphas([[1, 0.5, 0.5], [0.5, 1, 0.5], [0.5, 0.5, 1]]) is None
    )  # one summary to calibrate
    assert p2_alphas([0.9, 0.7, 0.2, 0.4]) == pytest.approx((0.2, 0.7))
    assert p2_alphas([0.9]) is None
