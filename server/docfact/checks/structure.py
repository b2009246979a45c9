"""Completeness (structure): what a docstring leaves out. Not factual; off by default."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Finding
from .context import CheckContext
from .names import ignored_parameters
from .registry import rule
from .types import describes_the_generator


@rule(
    "DF501",
    "undocumented-parameter",
    "structure",
    "A parameter missing from a docstring that documents other parameters.",
    severity="information",
    default=False,
)
def undocumented_parameter(ctx: CheckContext) -> Iterator[Finding]:
    documented = {e.name.text for e in ctx.docstring.entries if e.kind == "param" and e.name}
    signature = ctx.signature
    if not documented or signature is None:
        return
    for parameter in signature.parameters:
        if parameter.name in documented or parameter.name in ignored_parameters(ctx):
            continue
        summary = ctx.docstring.summary
        start, end = (summary.start, summary.end) if summary else (0, 0)
        yield ctx.finding(
            "DF501",
            f"parameter `{parameter.name}` is not documented",
            start,
            end,
            evidence=(ctx.evidence(ctx.unit.qualname, parameter.span.start, parameter.name),),
        )


@rule(
    "DF502",
    "undocumented-return",
    "structure",
    "A function that returns a value, in a docstring with sections but no Returns.",
    severity="information",
    default=False,
)
def undocumented_return(ctx: CheckContext) -> Iterator[Finding]:
    unit, docstring = ctx.unit, ctx.docstring
    if unit.signature is None or unit.is_generator or not docstring.entries:
        return
    if any(e.kind == "returns" for e in docstring.entries):
        return
    if not any(value != "None" for value in unit.return_values):
        return
    if any(re.match(r"Returns?\b", s.text) for s in ctx.segments):
        return
    summary = docstring.summary
    start, end = (summary.start, summary.end) if summary else (0, 0)
    yield ctx.finding(
        "DF502", f"`{unit.name}` returns a value but has no Returns section", start, end
    )


@rule(
    "DF503",
    "generator-without-yields",
    "structure",
    "A generator whose Returns describes the generator itself, with no Yields section "
    "(numpydoc's convention: document what it yields).",
    severity="information",
    default=False,
)
def generator_without_yields(ctx: CheckContext) -> Iterator[Finding]:
    unit, docstring = ctx.unit, ctx.docstring
    if unit.signature is None or not unit.is_generator or docstring.style == "javadoc":
        return
    if any(e.kind == "yields" for e in docstring.entries):
        return
    if any(value != "None" for value in unit.return_values):
        return  # it also returns a value, which Returns may describe
    for entry in docstring.entries:
        if entry.kind == "returns" and describes_the_generator(unit, entry):  # else DF204's
            fields = [f for f in (entry.name, entry.type, entry.description) if f is not None]
            yield ctx.finding(
                "DF503",
                f"`{unit.name}` is a generator: numpydoc documents what it produces "
                "under Yields, not Returns",
                min(f.start for f in fields),
                max(f.end for f in fields),
                entry=entry,
            )
            return
