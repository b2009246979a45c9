"""C1 (name): cross-references that point nowhere: Sphinx roles, Epytext links and
"See Also" entries whose target the code does not have.

A file can tell only that every part of a target is a name it knows. Anything else is
settled by the project graph (``graph/references.py``), which resolves the target as
Sphinx would (the current class and module first, then the project's modules, then the
standard library and installed packages) and names what is missing, with the closest
real name as the fix.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

from ..graph.references import nearest
from ..model import Finding, Segment
from ..source.xref import Reference, references
from .context import CheckContext
from .names import tells_history
from .referents import version_notes
from .registry import rule

_MODULE_ROLE = "mod"


@rule(
    "DF107",
    "unresolved-reference",
    "name",
    "A cross-reference (a Sphinx role, an Epytext link, a See Also entry) whose target "
    "does not exist.",
)
def unresolved_reference(ctx: CheckContext) -> Iterator[Finding]:
    if ctx.docstring.style == "javadoc":
        return  # DF105
    notes = version_notes(ctx.docstring)
    for reference in references(ctx.docstring):
        segment = next((s for s in ctx.segments if s.start <= reference.whole.start < s.end), None)
        if segment is not None and tells_history(
            segment.text, reference.whole.start - segment.start
        ):
            continue  # "The :meth:`linked` function was removed": names what is gone
        if any(start <= reference.whole.start < end for start, end in notes):
            continue  # a ``.. versionchanged::`` note names what was there then
        finding = _check(ctx, reference, segment)
        if finding is not None:
            yield finding


def _check(ctx: CheckContext, reference: Reference, segment: Segment | None) -> Finding | None:
    target = reference.target.text
    if reference.malformed:
        return _malformed(ctx, reference, segment)
    parts = target.split(".")
    if parts[0] in ctx.result_names:
        return None  # a name the docstring gives the returned value
    if reference.role == _MODULE_ROLE:
        if parts[0] in sys.stdlib_module_names and len(parts) == 1:
            return None
        kind = "module"
    else:
        if not reference.relative and all(_bound(ctx, part) for part in parts):
            return None  # every part is a name the file binds: nothing the graph could add
        if len(parts) == 1 and _written_as_text(ctx, target):
            return None
        # A class name in an entry's type may be a library's: reported when misspelt only.
        kind = "typename" if reference.how == "type name" else "reference"
    shown = ("." if reference.relative else "") + target
    message = f"`{shown}` is not defined: the {_described(reference)} resolves nowhere"
    closest = None
    if len(parts) == 1 and not reference.relative:
        suggestions = (ctx.bound_names.whole() | ctx.referents.parameters) - ctx.universal_names
        if kind == "module":
            suggestions = suggestions | sys.stdlib_module_names
        closest = nearest(target, suggestions)
    return _finding(ctx, reference, segment, message, closest, condition=(kind, shown))


def _malformed(ctx: CheckContext, reference: Reference, segment: Segment | None) -> Finding:
    """A target with a ``-``, which no Python name has; the fix writes ``_`` instead
    when every part of that name is one the file binds (``MD5_HEX`` for ``MD5-HEX``)."""
    target = reference.target.text
    fixed = target.replace("-", "_")
    message = (
        f"`{target}` is not a Python name (no name has a `-`), so the "
        f"{_described(reference)} resolves nowhere"
    )
    closest = fixed if all(_bound(ctx, part) for part in fixed.split(".")) else None
    return _finding(ctx, reference, segment, message, closest)


def _finding(
    ctx: CheckContext,
    reference: Reference,
    segment: Segment | None,
    message: str,
    closest: str | None,
    condition: tuple[str, str] | None = None,
) -> Finding:
    """DF107 on the reference's target, with the nearest name as its fix when there is one."""
    if closest:
        message += f"; did you mean `{closest}`?"
    return ctx.finding(
        "DF107",
        message,
        reference.target.start,
        reference.target.end,
        segment=segment,
        fix=(f"Replace with `{closest}`", closest) if closest else None,
        condition=condition,
    )


def _bound(ctx: CheckContext, name: str) -> bool:
    """Whether ``name`` is a target in the file as a documentation tool sees it: a
    parameter, a builtin, or a name the file binds (a word of a comment or a string is
    none: ``L{inlineCallback}`` beside a comment that says "inlineCallback")."""
    return (
        name in ctx.referents.parameters or name in ctx.universal_names or name in ctx.bound_names
    )


def _written_as_text(ctx: CheckContext, name: str) -> bool:
    """Whether the class of the docstring writes ``name`` as a whole string in its code:
    an attribute made from data (``attrs = (("expires", float), ...)`` that a base's
    ``__init__`` sets with ``setattr``, ``getattr(self, "expires")``)."""
    unit = ctx.unit
    if unit.kind != "class":
        owner = unit.qualname.rpartition(".")[0]
        unit = next((u for u in ctx.module.units if u.qualname == owner), unit)
    if unit.kind != "class":
        return False
    text = ctx.lines.text
    code = [text[unit.span.start : unit.span.end]]
    for within in [unit, *ctx.lookups.units_within(unit)]:  # their docstrings are prose
        if within.docstring is not None:
            literal = within.docstring.literal
            code.append(text[literal.start : literal.end])
    quoted = re.compile(rf"""(['"]){re.escape(name)}\1""")
    return len(quoted.findall(code[0])) > sum(len(quoted.findall(part)) for part in code[1:])


def _described(reference: Reference) -> str:
    if reference.how == "role":
        return f"`:{reference.role}:` target"
    return {"link": "link target", "see": "See Also entry"}.get(reference.how, reference.how)
