"""The report's view of a run: one record per documented function that has a score or a
finding, read from the JSON contract of `docfact check --format json` (docs/design.md)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

CRITERIA = ("name", "type", "function", "context")
SONAR_DIMENSIONS = ("correctness", "abstraction", "conciseness", "fluency")


@dataclass
class Function:
    symbol: str
    path: str
    line: int | None = None
    referee: float | None = None
    sonar: dict[str, float | None] = field(default_factory=dict)
    ssc: dict | None = None
    findings: list[dict] = field(default_factory=list)

    @property
    def ssc_value(self) -> float | None:
        return self.ssc.get("value") if self.ssc else None


def functions(report: dict) -> list[Function]:
    """Every function with a score or a finding, in path and line order."""
    by_key: dict[tuple[str, str], Function] = {}
    for score in report.get("scores", ()):
        key = (score["path"], score["symbol"])
        by_key[key] = Function(
            score["symbol"],
            score["path"],
            score.get("line"),
            score.get("referee"),
            dict(score.get("sonar") or {}),
            score.get("ssc") or None,
        )
    for diagnostic in report.get("diagnostics", ()):
        key = (diagnostic["path"], diagnostic["symbol"])
        function = by_key.setdefault(key, Function(diagnostic["symbol"], diagnostic["path"]))
        function.findings.append(diagnostic)
    for function in by_key.values():
        if function.line is None and function.findings:
            function.line = min(d["start"]["line"] for d in function.findings)
    return sorted(by_key.values(), key=_place)


def _place(f: Function) -> tuple[str, int, str]:
    return f.path, f.line or 0, f.symbol


def by_criterion(report: dict) -> Counter:
    """Findings per criterion; the four ReFEree criteria always present, others when found."""
    counts = Counter({criterion: 0 for criterion in CRITERIA})
    counts.update(d["criterion"] for d in report.get("diagnostics", ()))
    return counts


def by_code(report: dict) -> Counter:
    return Counter(d["code"] for d in report.get("diagnostics", ()))


def referee_scores(items: list[Function]) -> list[float]:
    return [f.referee for f in items if f.referee is not None]


def sonar_scores(items: list[Function], dimension: str) -> list[float]:
    return [value for f in items if (value := f.sonar.get(dimension)) is not None]


def ssc_scores(items: list[Function]) -> list[float]:
    return [f.ssc_value for f in items if f.ssc_value is not None]


def ssc_threshold(items: list[Function]) -> float | None:
    """The run's conformal cut on the SSC scale, 1 - tau (one per run: the first function
    that has it); functions below it are labelled low."""
    return next(
        (f.ssc["threshold"] for f in items if f.ssc and f.ssc.get("threshold") is not None), None
    )


def least_understood(items: list[Function], limit: int = 10) -> list[tuple[Function, float]]:
    """The functions with the lowest SSC, with it."""
    scored = [(f, f.ssc_value) for f in items if f.ssc_value is not None]
    return sorted(scored, key=lambda pair: (pair[1], pair[0].symbol))[:limit]


def sentences_with_most_findings(report: dict, limit: int = 10) -> list[tuple[str, str, int]]:
    """``(sentence, where, findings)`` of the sentences with the most findings; a sentence
    is told apart by its file and symbol, as the same text can stand in many docstrings."""
    counts: Counter = Counter()
    for d in report.get("diagnostics", ()):
        text = " ".join((d.get("sentence") or "").split())
        if text:
            counts[(text, f"{d['path']} · {d['symbol']}")] += 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [(text, where, n) for (text, where), n in ranked]


def capped(items: list[Function], limit: int) -> list[Function]:
    """At most ``limit`` functions, those most worth a look first (most findings, then
    lowest scores), back in path and line order."""
    if len(items) <= limit:
        return items

    def worth(f: Function) -> tuple[int, float, float]:
        return (
            -len(f.findings),
            f.ssc_value if f.ssc_value is not None else 2.0,
            f.referee if f.referee is not None else 2.0,
        )

    return sorted(sorted(items, key=worth)[:limit], key=_place)
