"""Split-conformal labels for similarity proxies (P1 self-consistency, P2 docstring).

Each function's k summaries are split in two halves: the first k // 2 calibrate, the rest
test (samples are drawn independently, so their order is already random). A proxy turns a
half into a nonconformity score alpha = 1 - similarity. Over the project's functions,

    tau = the ceil((n + 1)(1 - epsilon))-th smallest of the n calibration alphas,

the split-conformal quantile with its finite-sample correction: for exchangeable scores a
new function's alpha is <= tau with probability >= 1 - epsilon. When that rank exceeds n
(fewer than ``minimum_functions(epsilon)``, 9 at epsilon 0.1) no calibration value is high
enough and tau is infinite: the project is too small to tell, and no function is
labelled. A function is High when its test alpha <= tau, else Low. The calibration set
is the project's (``store.py`` keeps it in the cache), not only the functions at hand.
A half needs two summaries for P1 (a pair) and one for P2, so P1 labels need k >= 4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

HIGH, LOW = "high", "low"


def conformal_threshold(alphas: Sequence[float], epsilon: float) -> float:
    """The split-conformal (1 - epsilon) quantile of ``alphas``; math.inf when n is too small."""
    if not 0 < epsilon < 1:
        raise ValueError(f"epsilon must be between 0 and 1, not {epsilon}")
    n = len(alphas)
    rank = math.ceil((n + 1) * (1 - epsilon))
    if n == 0 or rank > n:
        return math.inf
    return sorted(alphas)[rank - 1]


def minimum_functions(epsilon: float) -> int:
    """The fewest calibration values that give a finite tau."""
    n = 1
    while math.ceil((n + 1) * (1 - epsilon)) > n:
        n += 1
    return n


def halves(k: int) -> tuple[range, range]:
    """Indices of the calibration and the test summaries."""
    return range(k // 2), range(k // 2, k)


@dataclass(frozen=True)
class Labelled:
    """One function under one proxy."""

    value: float | None  # the test half's similarity (1 - alpha_test)
    alpha_cal: float | None
    alpha_test: float | None
    label: str | None  # "high" | "low"; None when it could not be scored or tau is infinite
    tau: float
    k: int  # summaries it had
    calibrated_over: int = 0  # calibration values behind tau


@dataclass(frozen=True)
class Calibration:
    proxy: str  # "p1" self-consistency, "p2" similarity to the docstring
    epsilon: float
    tau: float  # math.inf when too few functions calibrate
    n: int  # calibration alphas behind tau
    functions: dict[str, Labelled]


def conformal_labels(
    proxy: str,
    alphas: Mapping[str, tuple[float, float] | None],
    epsilon: float,
    ks: Mapping[str, int],
    calibration: Sequence[float] | None = None,
) -> Calibration:
    """Labels from each function's (calibration alpha, test alpha); None = not scored.
    ``calibration``: the calibration alphas tau is taken from (default: these functions')."""
    if calibration is None:
        calibration = [pair[0] for pair in alphas.values() if pair is not None]
    tau = conformal_threshold(calibration, epsilon)
    n = len(calibration)
    functions = {}
    for symbol, pair in alphas.items():
        if pair is None:
            functions[symbol] = Labelled(None, None, None, None, tau, ks.get(symbol, 0), n)
            continue
        cal, test = pair
        label = None if math.isinf(tau) else HIGH if test <= tau else LOW
        functions[symbol] = Labelled(1 - test, cal, test, label, tau, ks.get(symbol, 0), n)
    return Calibration(proxy, epsilon, tau, n, functions)


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def p1_alphas(pairwise: Sequence[Sequence[float]]) -> tuple[float, float] | None:
    """1 - mean pairwise similarity of each half, from the k x k similarity matrix."""
    cal, test = halves(len(pairwise))
    if len(cal) < 2 or len(test) < 2:
        return None

    def alpha(members: range) -> float:
        return 1 - _mean([pairwise[a][b] for a in members for b in members if a < b])

    return alpha(cal), alpha(test)


def p2_alphas(to_reference: Sequence[float]) -> tuple[float, float] | None:
    """1 - mean similarity of each half's summaries to the reference (the docstring)."""
    cal, test = halves(len(to_reference))
    if not cal or not test:
        return None
    return 1 - _mean([to_reference[i] for i in cal]), 1 - _mean([to_reference[i] for i in test])
