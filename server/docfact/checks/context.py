"""What a rule sees of one documented unit, and how it reports a finding."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..model import DocEntry, Docstring, Evidence, Finding, Fix, Segment, Signature, Unit
from ..source import jdk
from ..source.lines import LineIndex
from ..source.pynames import UNIVERSAL_NAMES
from .lookups import Lookups, NameScope, _ModuleView, _RecordedNames
from .referents import Referents, example_names, result_names
from .registry import RULES


@dataclass(frozen=True)
class CheckContext:
    unit: Unit
    docstring: Docstring
    segments: tuple[Segment, ...]
    lookups: Lookups  # the code around the unit, recording what the checks ask of it
    symbol: str  # dotted name: module.Class.method
    path: str
    lines: LineIndex
    # For a class: its __init__ (or __new__) signature, which its docstring documents.
    init_signature: Signature | None = None

    @property
    def signature(self) -> Signature | None:
        return self.unit.signature or self.init_signature

    @property
    def module(self) -> _ModuleView:
        """The module around the unit (a view of it that records what is asked)."""
        return self.lookups.module

    @property
    def class_names(self) -> _RecordedNames:
        """The names used in the unit's class (for a method) or in the class itself."""
        return self.lookups.class_names

    @property
    def nested_units(self) -> list[Unit]:
        return self.lookups.units_within(self.unit)

    @cached_property
    def known_names(self) -> NameScope:
        """Names that resolve in this unit without looking at other files."""
        parameters = {p.name for p in self.signature.parameters} if self.signature else set()
        own = self.unit.local_names | parameters | self.universal_names
        return NameScope(
            own, (self.class_names, self.module.defined_names, self.module.imported_names)
        )

    @property
    def universal_names(self) -> frozenset[str]:
        """Names the language gives every file (builtins, or java.lang and keywords)."""
        return jdk.UNIVERSAL_NAMES if self.docstring.style == "javadoc" else UNIVERSAL_NAMES

    @property
    def bound_names(self) -> _RecordedNames:
        """The names the file binds (definitions, assignments, imports, attributes)."""
        return self.lookups.bound_names

    @cached_property
    def referents(self) -> Referents:
        """What the names the docstring writes refer to (``checks.referents``)."""
        return Referents(self)

    @cached_property
    def example_names(self) -> frozenset[str]:
        """Names bound or used in the docstring's own code (``referents.example_names``)."""
        return example_names(self.docstring)

    @cached_property
    def result_names(self) -> frozenset[str]:
        """Names the docstring gives its results and tuple members (``referents.result_names``)."""
        return result_names(self.docstring)

    def evidence(self, symbol: str, offset: int, text: str = "") -> Evidence:
        """Evidence at ``offset`` of this file (a definition, an annotation)."""
        return Evidence(symbol, self.path, self.lines.line(offset) + 1, text)

    def finding(
        self,
        code: str,
        message: str,
        start: int,
        end: int,
        segment: Segment | None = None,
        entry: DocEntry | None = None,
        fix: tuple[str, ...] | None = None,
        evidence: tuple[Evidence, ...] = (),
        condition: tuple[str, str] | None = None,
    ) -> Finding:
        """A finding of rule ``code`` on value[start:end] of the docstring.

        The sentence is ``segment``'s, else the whole ``entry``, else the span itself;
        ``fix`` is (title, replacement text for value[start:end]), or the same with its
        safety last (``model.FIX_SAFETIES``; "unsafe" when not given).
        """
        rule = RULES[code]
        text = self.docstring.text
        sentence_start, sentence_end = _sentence_bounds(start, end, segment, entry)
        span = text.span_of(start, end)
        return Finding(
            code=code,
            criterion=rule.criterion,
            severity=rule.severity,
            message=message,
            span=span,
            symbol=self.symbol,
            sentence=text.value[sentence_start:sentence_end],
            sentence_span=text.span_of(sentence_start, sentence_end),
            evidence=evidence,
            fix=Fix(fix[0], fix[1], span, *fix[2:]) if fix else None,
            condition=condition,
            subject=text.value[start:end],
        )


def _sentence_bounds(
    start: int, end: int, segment: Segment | None, entry: DocEntry | None
) -> tuple[int, int]:
    if segment is not None:
        return segment.start, segment.end
    if entry is not None:
        fields = [f for f in (entry.name, entry.type, entry.description) if f is not None]
        return min(f.start for f in fields), max(f.end for f in fields)
    return start, end
