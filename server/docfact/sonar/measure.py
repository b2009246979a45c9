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
    def from_json(cls, data: dict) -> Measure:
        return cls(data["value"], data["how"], data["approximate"])


def not_measured(reason: str) -> Measure:
    return Measure(None, f"not measurable: {reason}")
