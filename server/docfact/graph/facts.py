"""What one file contributes to the project graph, as plain data (cached by content).

Kept small on purpose: the facts of every file are loaded on each run. The code and
docstring a neighbour shows as evidence are read from its file when asked for.
"""

from __future__ import annotations

import re
from typing import TypedDict, cast

from ..model import Module, Signature, Unit

_ALWAYS = ("q", "kind", "line", "sig", "name_at")


class _UnitIdentity(TypedDict):
    q: str  # qualified name
    kind: str
    line: int  # 1-based, of the definition
    sig: str  # "(a: int) -> str", or a class's "(Base)"


class UnitFacts(_UnitIdentity, total=False):
    """A function, method or class (the graph's variables and attributes have the four
    fields of their identity only). Empty and false fields are left out (readers default
    them): the facts of every file are decoded on each run, and most fields are empty."""

    path: str  # set by the graph when the file is added
    name_at: list[int]  # [start, end] offsets of the name
    calls: list[str]
    bases: list[str]
    raises: list[str]
    reraises: bool
    throws: list[str]  # Java's throws clause
    doc_raises: list[str]  # what callers may expect it to throw, as its docstring says
    has_doc: bool
    doc_params: list[str]
    params: list[str]
    kwargs: bool
    property: bool  # a property's accessor (``@property``, ``@x.setter``)
    var_params: list[str]
    suppressed: list[str]
    types: list[str]  # dotted names its annotations use
    uses: list[str]  # module- and class-level variables its code mentions
    writes: list[str]  # instance attributes it assigns through ``self``
    reads_attrs: list[str]
    through_attrs: list[str]


class FileFacts(TypedDict):
    """What one file contributes to the project graph."""

    module: str
    path: str
    package: bool
    imports: list[list[str]]  # [local name, target] ("*" for a star import)
    names: str  # the names the module defines, space-separated (decodes fast)
    names_at_run_time: bool  # its code makes names at run time (``globals().update``)
    units: list[UnitFacts]
    variables: list[list]  # [qualified name, 1-based line]
    attributes: list[list]  # [qualified name, 1-based line of its first write]


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def file_facts(
    module: Module,
    module_name: str,
    path: str,
    is_package: bool,
    documented_parameters: dict[str, list[str]] | None = None,
    documented_raises: dict[str, list[str]] | None = None,
) -> FileFacts:
    """Entities of one parsed file and their outgoing references.

    ``documented_parameters``, ``documented_raises``: qualname -> the parameter and
    exception names its docstring documents."""
    documented_parameters = documented_parameters or {}
    documented_raises = documented_raises or {}
    variable_names = frozenset(name.rsplit(".", 1)[-1] for name, _ in module.variables)
    # Fields are variables; ``@overload`` stubs only describe the definition that follows
    # them (of the same name), which is the entity.
    units = [
        _unit_facts(
            unit,
            module_name,
            documented_parameters.get(unit.qualname),
            variable_names,
            documented_raises.get(unit.qualname),
        )
        for unit in module.units
        if unit.kind not in ("module", "field") and not _is_overload(unit)
    ]
    if module.package is not None:  # Java
        units = _overloads_merged(units)
    else:  # a property's getter and setter: the entity may do what either does
        units = _overloads_merged(units[::-1])[::-1]
    return {
        "module": module_name,
        "path": path,
        "package": is_package,
        "imports": [list(pair) for pair in module.imports],
        # One string, not a list: loading thousands of files' facts from the cache is
        # dominated by JSON decoding, and one string decodes far faster than a list.
        "names": " ".join(sorted(module.defined_names)),
        "names_at_run_time": module.names_at_run_time,
        "units": units,
        "variables": [
            [f"{module_name}.{name}" if module_name else name, line + 1]
            for name, line in module.variables
        ],
        "attributes": _instance_attributes(module, module_name),
    }


def _instance_attributes(module: Module, module_name: str) -> list[list]:
    """[qualified name, 1-based line of its first write] of every attribute the methods of
    a class assign through ``self`` (``Cart.total``)."""
    found: dict[str, int] = {}
    for unit in module.units:
        owner = unit.qualname.rpartition(".")[0]
        for name, line in unit.attribute_writes:
            qualified = ".".join(p for p in (module_name, owner, name) if p)
            found[qualified] = min(found.get(qualified, line + 1), line + 1)
    return [[name, line] for name, line in found.items()]


def _unit_facts(
    unit: Unit,
    module_name: str,
    documented: list[str] | None,
    variable_names: frozenset[str],
    documented_raises: list[str] | None,
) -> UnitFacts:
    """A unit's facts; empty and false fields are left out (readers default them): the facts
    of every file are decoded on each run, and most fields of most units are empty."""
    signature = unit.signature
    facts = {
        "q": f"{module_name}.{unit.qualname}" if module_name else unit.qualname,
        "kind": unit.kind,
        "line": unit.def_line + 1,
        "sig": unit.signature.rendered() if unit.signature else _class_header(unit),
        "calls": list(unit.calls),
        "bases": list(unit.bases),
        "raises": list(unit.raises),
        "reraises": unit.reraises,
        "throws": list(signature.throws) if signature else [],  # Java's throws clause
        # What callers may expect it to throw, as its docstring says (Java's @throws):
        "doc_raises": documented_raises or [],
        # For docstrings inherited by overrides (checked project-wide):
        "has_doc": unit.docstring is not None,
        "property": is_property(unit),
        "doc_params": documented or [],
        "params": [p.name for p in signature.parameters] if signature else [],
        "kwargs": signature is not None
        and any(p.kind == "var_keyword" for p in signature.parameters),
        "var_params": [
            p.name for p in signature.parameters if p.kind in ("var_positional", "var_keyword")
        ]
        if signature
        else [],
        "suppressed": sorted(unit.suppressed),
        "name_at": [unit.name_span.start, unit.name_span.end],
        "types": _annotation_names(signature),
        # Module- and class-level variables this unit's code mentions (resolved project-wide).
        "uses": sorted(unit.local_names & variable_names),
        # Instance attributes a method assigns and reads through ``self``.
        "writes": [name for name, _ in unit.attribute_writes],
        "reads_attrs": list(unit.attribute_reads),
        "through_attrs": list(unit.attributes_through),
    }
    return cast(UnitFacts, {key: value for key, value in facts.items() if value or key in _ALWAYS})


_PROPERTY = re.compile(r"(?:^|\.)(?:cached_)?property$|\.(?:getter|setter|deleter)$")


def is_property(unit: Unit) -> bool:
    """Whether ``unit`` is a property's accessor: its docstring's parameters are those of
    what it returns, when that is a callable (a delegate's method)."""
    return any(_PROPERTY.search(d) for d in unit.decorators)


def _is_overload(unit: Unit) -> bool:
    return any(d.rpartition(".")[2] == "overload" for d in unit.decorators)


def _overloads_merged(units: list[UnitFacts]) -> list[UnitFacts]:
    """One entity per qualified name, the first of ``units`` so named. Java's overloads
    share it, and so do Python's property accessors (the last definition is the entity),
    so the graph sees what any of them calls, throws or documents (may it raise)."""
    merged: dict[str, UnitFacts] = {}
    for unit in units:
        first = merged.setdefault(unit["q"], unit)
        if first is unit:
            continue
        for key in ("calls", "raises", "throws", "doc_raises", "uses", "types"):
            if key in unit:
                first[key] = list(dict.fromkeys([*first.get(key, ()), *unit[key]]))
        if unit.get("reraises"):
            first["reraises"] = True
    return list(merged.values())


def _annotation_names(signature: Signature | None) -> list[str]:
    """Dotted names used in the annotations (``Item``, ``models.Order``, ``Optional``)."""
    if signature is None:
        return []
    texts = [p.annotation for p in signature.parameters if p.annotation] + [signature.returns or ""]
    return sorted(set(_DOTTED.findall(" ".join(texts))))


def _class_header(unit: Unit) -> str:
    return f"({', '.join(unit.bases)})" if unit.bases else ""
