"""Rules that need the whole project: their findings are made from the project graph
once every file is known, not by a check function on one unit."""

from __future__ import annotations

from typing import Iterator

from ..model import Evidence, Finding, Span
from .registry import RULES


def project_findings(project, path: str) -> list[Finding]:
    """The project-wide rules' findings for ``path`` (settings are applied where findings
    are shown: ``rule_settings``)."""
    return list(inherited_parameter_findings(project, path))


def inherited_parameter_findings(project, path: str) -> Iterator[Finding]:
    """DF106 for the undocumented overrides in ``path`` (see ProjectGraph)."""
    for unit, base, missing in project.inherited_docstring_mismatches(path):
        name = unit["q"].rsplit(".", 1)[-1]
        names = ", ".join(f"`{m}`" for m in missing)
        own = ", ".join(f"`{p}`" for p in unit.get("params", ()) if p not in ("self", "cls")) or "none"
        span = Span(*unit["name_at"])
        yield Finding(
            code="DF106", criterion="name", severity=RULES["DF106"].severity,
            message=(f"`{name}` has no docstring and inherits the one of `{base['q']}`, which "
                     f"documents {names}: not parameters of this override (its parameters: {own})"),
            span=span, symbol=unit["q"], sentence="", sentence_span=span,
            evidence=(Evidence(base["q"], base["path"], base["line"], f"def {name}{base['sig']}"),),
        )
