"""What the analysis of one file gives: each documented unit with its parsed docstring,
its sentences and the findings of its rules. Made by the engine, read by every layer above
the source (the model judge, the scores) and by the faces."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Docstring, Finding, Module, Segment, Unit
from .source.lines import LineIndex


@dataclass
class UnitAnalysis:
    unit: Unit
    symbol: str
    docstring: Docstring
    segments: tuple[Segment, ...]
    findings: list[Finding] = field(default_factory=list)


@dataclass
class FileAnalysis:
    path: str
    module_name: str
    text: str
    lines: LineIndex
    module: Module
    units: list[UnitAnalysis]
    skipped: str = ""  # why the file was not analysed (then it has no units)

    @property
    def findings(self) -> list[Finding]:
        return [f for report in self.units for f in report.findings]

    def unit_at(self, offset: int) -> UnitAnalysis | None:
        """The innermost documented unit whose definition contains ``offset``."""
        containing = [r for r in self.units if r.unit.span.start <= offset <= r.unit.span.end]
        return min(containing, key=lambda r: r.unit.span.end - r.unit.span.start, default=None)
