"""One SONAR dimension's value and how it was obtained."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    value: float | None  # None: not measured (``how`` says why)
    how: str  # e.g. "FuncSim over 200 cases", "not measurable: ..."
    approximate: bool = False  # a proxy was used (structural similarity instead of execution)

    def to_json(self) -> dict:
        return {"value": self.value, "how": self.how, "approximate": self.approximate}

    @classmethod
    def from_json(cls, data: object) -> Measure:
        """The measure ``to_json`` wrote; ValueError for anything else (a cache entry is
        data from disk: damaged, or written by someone else)."""
        if not isinstance(data, dict) or set(data) != {"value", "how", "approximate"}:
            raise ValueError("not a measure")
        value, how, approximate = data["value"], data["how"], data["approximate"]
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1
        ):
            raise ValueError("a measure's value is a number from 0 to 1, or null")
        if not isinstance(how, str) or not isinstance(approximate, bool):
            raise ValueError("a measure's how is text and approximate true or false")
        return cls(float(value) if value is not None else None, how, approximate)


def not_measured(reason: str) -> Measure:
    return Measure(None, f"not measurable: {reason}")
