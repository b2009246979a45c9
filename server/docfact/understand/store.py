"""The project's SSC calibration set, kept in the cache: the calibration alphas of every
function of the project scored so far, under the same model, decoding, prompts and
encoder. The command line and the editor both add to it and both take tau from it, so a
function scored alone (``docfact score``, a hover) is labelled against the whole project,
and the same function gets the same label wherever it is scored."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..cache import Cache, cache_key
from ..config import SscSettings

PROXIES = ("p1", "p2")


def store_key(project: str, decoding: list, settings: SscSettings) -> str:
    """One calibration set per project root and per way of scoring."""
    return cache_key(
        "ssc-calibration",
        project,
        decoding,
        settings.k,
        settings.encoder,
        settings.encoder_layer,
        settings.idf,
    )


def remember(
    cache: Cache | None, key: str, alphas: Mapping[str, Mapping[str, float | None]]
) -> dict[str, dict[str, float]]:
    """Add (or replace) the calibration alphas of ``alphas``' functions, symbol -> proxy ->
    alpha, and return the whole set. A function whose proxy has no alpha leaves that
    proxy's stored value alone."""
    stored = cache.get(key) if cache is not None else None
    kept: dict[str, dict[str, float]] = {}
    if isinstance(stored, dict):
        for symbol, values in stored.items():
            if isinstance(values, dict):
                # floats only, as written: a 4,000-digit int would not even convert
                kept[symbol] = {
                    p: v
                    for p, v in values.items()
                    if p in PROXIES and isinstance(v, float) and math.isfinite(v)
                }
    changed = False
    for symbol, values in alphas.items():
        fresh = {p: float(v) for p, v in values.items() if v is not None and math.isfinite(v)}
        merged = {**kept.get(symbol, {}), **fresh}
        if fresh and merged != kept.get(symbol):
            kept[symbol] = merged
            changed = True
    if changed and cache is not None:
        cache.put(key, kept)
    return kept


def calibration_values(kept: Mapping[str, Mapping[str, float]], proxy: str) -> list[float]:
    return [values[proxy] for values in kept.values() if proxy in values]
