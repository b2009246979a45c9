"""What one file contributes to the project graph, as plain data (cached by content)."""

from __future__ import annotations

from ..checks.names import render_signature
from ..model import Module, Unit

_EXCERPT_LINES = 6
_EXCERPT_CHARS = 400


def file_facts(module: Module, module_name: str, path: str, text: str, is_package: bool) -> dict:
    """Entities of one parsed file and their outgoing references."""
    return {
        "module": module_name,
        "path": path,
        "package": is_package,
        "imports": [list(pair) for pair in module.imports],
        "names": sorted(module.defined_names),
        "units": [_unit_facts(unit, module_name, text) for unit in module.units if unit.kind != "module"],
        "doc": _summary(module.units[0]) if module.units else "",
    }


def _unit_facts(unit: Unit, module_name: str, text: str) -> dict:
    return {
        "q": f"{module_name}.{unit.qualname}" if module_name else unit.qualname,
        "kind": unit.kind,
        "line": unit.def_line + 1,
        "sig": render_signature(unit.signature) if unit.signature else _class_header(unit),
        "doc": _summary(unit),
        "excerpt": _excerpt(unit, text),
        "calls": list(unit.calls),
        "bases": list(unit.bases),
        "raises": list(unit.raises),
        "reraises": unit.reraises,
    }


def _class_header(unit: Unit) -> str:
    return f"({', '.join(unit.bases)})" if unit.bases else ""


def _summary(unit: Unit) -> str:
    if unit.docstring is None:
        return ""
    return unit.docstring.value.split("\n\n", 1)[0][:_EXCERPT_CHARS]


def _excerpt(unit: Unit, text: str) -> str:
    """The definition's first lines, its docstring left out."""
    start, end = unit.span.start, unit.span.end
    if unit.docstring is not None:
        literal = unit.docstring.literal
        body = text[start:literal.start].rstrip() + text[literal.end:end]
    else:
        body = text[start:end]
    lines = [line for line in body.splitlines() if line.strip()][:_EXCERPT_LINES]
    return "\n".join(lines)[:_EXCERPT_CHARS]
