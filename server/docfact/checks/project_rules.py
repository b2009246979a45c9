"""Rules that need the whole project: their findings are made from the project graph
once every file is known, not by a check function on one unit."""

from __future__ import annotations

from collections.abc import Iterator

from ..graph.build import ProjectGraph
from ..graph.facts import UnitFacts
from ..model import Evidence, Finding, Span
from .registry import RULES


def project_findings(project: ProjectGraph, path: str) -> list[Finding]:
    """The project-wide rules' findings for ``path`` (settings are applied where findings
    are shown: ``rule_settings``)."""
    return list(inherited_parameter_findings(project, path))


def inherited_parameter_findings(project: ProjectGraph, path: str) -> Iterator[Finding]:
    """DF106: an undocumented override whose inherited docstring (the nearest base
    method's, as ``inspect.getdoc`` finds it) documents parameters the override does not
    have. Not for Java: javadoc inherits @param tags by position, so renaming is harmless."""
    if path.endswith(".java"):
        return
    for unit in project.method_units(path):
        if unit.get("has_doc", False) or unit.get("kwargs", False) or unit.get("property", False):
            continue  # a property's inherited parameters are those of the callable it returns
        owner, _, name = unit["q"].rpartition(".")
        if name == "__init__" or not project.has_documented_method(name):
            continue  # a constructor is documented by its class, not by the base's __init__
        base = project.inherited_docstring(owner, name)
        if base is None:
            continue
        # Documentation of the base's *args is not a promise about named parameters.
        missing = [
            p
            for p in base.get("doc_params", ())
            if p not in unit.get("params", ()) and p not in base.get("var_params", ())
        ]
        if missing:
            yield _inherited_parameter_finding(unit, base, missing)


def _inherited_parameter_finding(unit: UnitFacts, base: UnitFacts, missing: list[str]) -> Finding:
    name = unit["q"].rsplit(".", 1)[-1]
    names = ", ".join(f"`{m}`" for m in missing)
    own = ", ".join(f"`{p}`" for p in unit.get("params", ()) if p not in ("self", "cls")) or "none"
    span = Span(*unit["name_at"])
    return Finding(
        code="DF106",
        criterion="name",
        severity=RULES["DF106"].severity,
        message=(
            f"`{name}` has no docstring and inherits the one of `{base['q']}`, which "
            f"documents {names}: not parameters of this override (its parameters: {own})"
        ),
        span=span,
        symbol=unit["q"],
        sentence="",
        sentence_span=span,
        evidence=(Evidence(base["q"], base["path"], base["line"], f"def {name}{base['sig']}"),),
    )
