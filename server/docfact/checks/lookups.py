"""What one unit's checks ask of the code around the unit, recorded with the answers.

A unit's findings depend on its own text and on a few questions about its surroundings:
is `total` a name the module defines, does the method's class use `size`? While another
version of the file answers every recorded question the same way, the unit's findings
are those of a fresh check, so typing a new name elsewhere in the file re-checks only
the units that asked about it. Listing a whole set of names ties the findings to all of
the names; reading anything else of the module (its other units, its variables) makes
them good for this version only.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from ..model import Module, Unit
from .referents import bound_names

# The sets of names the checks may ask about, by where they come from.
_DEFINED, _IMPORTED, _CLASS, _BOUND = (
    "defined_names",
    "imported_names",
    "class_names",
    "bound_names",
)


def _sources(module: Module, unit: Unit) -> dict[str, frozenset[str]]:
    # A method's (or a Java field's) `attributes` are the names used anywhere in its
    # class; a class's or a function's come from its own text.
    return {
        _DEFINED: module.defined_names,
        _IMPORTED: module.imported_names,
        _CLASS: unit.attributes,
        _BOUND: bound_names(module),
    }


class Lookups:
    """The recording side of one unit's checks. ``module`` stands in for the Module,
    ``class_names`` for the unit's class's names and ``bound_names`` for the names the
    file binds (``referents.bound_names``)."""

    def __init__(self, module: Module, unit: Unit) -> None:
        self._module, self._sources = module, _sources(module, unit)
        self.asked: dict[tuple[str, str], bool] | None = {}  # None: depends on every name
        self.read_module = False  # the checks read more of the module than its names
        self.module = _ModuleView(self, module)
        self.class_names = _RecordedNames(self, _CLASS)
        self.bound_names = _RecordedNames(self, _BOUND)

    def ask(self, source: str, name: str) -> bool:
        answer = name in self._sources[source]
        if self.asked is not None:
            self.asked[source, name] = answer
        return answer

    def units_within(self, unit: Unit) -> list[Unit]:
        """The units nested in ``unit``: its own text decides them, so nothing is recorded
        (by place, not name alone: a function defined twice, in an if and its else, has
        each its own)."""
        prefix, span = unit.qualname + ".", unit.span
        return [
            u
            for u in self._module.units
            if u.qualname.startswith(prefix) and span.start <= u.span.start <= span.end
        ]

    def every(self, source: str) -> frozenset[str]:
        self.asked = None
        return self._sources[source]

    def answers(self) -> Answers | None:
        """What the checks depended on, detached from this version of the module; None
        when that was more than names."""
        if self.read_module:
            return None
        return Answers(self.asked, None if self.asked is not None else self._sources)


class Answers:
    """The recorded questions and their answers, or (when the checks depended on every
    name) the names themselves."""

    __slots__ = ("_asked", "_names")

    def __init__(self, asked: dict | None, names: dict[str, frozenset[str]] | None) -> None:
        self._asked, self._names = asked, names

    def still_hold(self, module: Module, unit: Unit) -> Answers | None:
        """These answers, as of ``module`` (so older versions are let go), if it gives
        them all again; else None."""
        sources = _sources(module, unit)
        if self._asked is None:
            return Answers(None, sources) if sources == self._names else None
        if all(
            (name in sources[source]) == answer for (source, name), answer in self._asked.items()
        ):
            return self
        return None


class _RecordedNames:
    """A set of names that records the membership questions it is asked."""

    __slots__ = ("_lookups", "_source")

    def __init__(self, lookups: Lookups, source: str) -> None:
        self._lookups, self._source = lookups, source

    def __contains__(self, name: str) -> bool:
        return self._lookups.ask(self._source, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._lookups.every(self._source))

    def whole(self) -> frozenset[str]:
        """Every name, as one set (answers depend on all of them, as when iterating)."""
        return self._lookups.every(self._source)


class _ModuleView:
    """A Module whose names record what is asked of them; reading any other part of it
    ties the checks to this version of the module."""

    def __init__(self, lookups: Lookups, module: Module) -> None:
        self._lookups, self._module = lookups, module
        self.defined_names = _RecordedNames(lookups, _DEFINED)
        self.imported_names = _RecordedNames(lookups, _IMPORTED)

    def __getattr__(self, attribute: str) -> Any:  # what __init__ did not set: the Module's
        self._lookups.read_module = True
        return getattr(self._module, attribute)


class NameScope:
    """The names a unit resolves: its own first, then those asked of its surroundings."""

    __slots__ = ("_around", "_own")

    def __init__(self, own: frozenset[str], around: tuple) -> None:
        self._own, self._around = own, around

    def __contains__(self, name: str) -> bool:
        return name in self._own or any(name in names for names in self._around)

    def __iter__(self) -> Iterator[str]:
        return iter(self._own.union(*self._around))

    def __sub__(self, other: AbstractSet[str]) -> frozenset[str]:
        return frozenset(self) - other
