"""C1 (name) for Javadoc: references that point nowhere: the targets of ``{@link}``,
``{@linkplain}``, ``{@value}`` and ``@see`` (``Target``, ``#member``, ``Target#member``).

Only what the file itself can settle is judged, plus types the project settles: a
member of a class with supertypes (it may inherit the member from outside the project),
a package-qualified target, or a member of a class in another file is never reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import DocEntry, Docstring, Field, Finding, Unit
from ..source import jdk
from .context import CheckContext
from .names import closest_name
from .registry import rule

_INLINE_REFERENCES = frozenset({"link", "linkplain", "value"})
_TARGET = re.compile(
    r"(?P<type>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)?"
    r"(?:#(?P<member>[A-Za-z_$<][\w$<>]*))?(?:\(.*\))?",
    re.DOTALL,
)
# Members every enum and record has without declaring them.
_IMPLICIT_MEMBERS = frozenset(
    {"values", "valueOf", "name", "ordinal", "compareTo", "getDeclaringClass", "describeConstable"}
)


@rule(
    "DF105",
    "unresolved-link",
    "name",
    "A {@link}, {@linkplain}, {@value} or @see whose target class or member does not exist.",
)
def unresolved_link(ctx: CheckContext) -> Iterator[Finding]:
    if ctx.docstring.style != "javadoc":
        return
    references = list(_references(ctx.docstring))
    if not references:
        return  # and the module's units go unread: the unit's findings stay reusable
    classes = {u.qualname: u for u in ctx.module.units if u.kind == "class"}
    for target, at, entry in references:
        yield from _check_target(ctx, target, at, entry, classes)


def _references(docstring: Docstring) -> Iterator[tuple[Field, int, DocEntry | None]]:
    """(target, where the reference starts, its @see entry or None) of every reference."""
    for tag in docstring.inline:
        if tag.tag in _INLINE_REFERENCES and tag.body is not None:
            yield tag.body, tag.whole.start, None
    for entry in docstring.entries:
        if entry.kind == "see" and entry.name is not None:
            yield entry.name, entry.name.start, entry


def _check_target(
    ctx: CheckContext, target: Field, at: int, entry: DocEntry | None, classes: dict[str, Unit]
) -> Iterator[Finding]:
    match = _TARGET.fullmatch(target.text)
    if match is None or not (match.group("type") or match.group("member")):
        return
    type_name, member = match.group("type"), match.group("member")
    start = target.start
    if type_name:
        head = type_name.split(".")[0]
        if head not in ctx.known_names:
            if head[:1].islower():
                return  # a package-qualified name: its scope is unknown here
            types = {n for n in ctx.known_names - ctx.universal_names if n[:1].isupper()}
            yield _finding(
                ctx,
                at,
                entry,
                start,
                head,
                closest_name(head, types),
                f"`{head}` is not a class the file imports or declares",
                condition=("visible", head),
            )
            return
        owner = _local_class(classes, ctx.unit, type_name)
    else:
        owner = _enclosing_class(classes, ctx.unit)
    if not member or member.startswith("<") or owner is None or _may_inherit(classes, owner):
        return
    declared = _members(classes, owner)
    if member in declared | jdk.OBJECT_MEMBERS | _IMPLICIT_MEMBERS:
        return
    member_start = start + match.start("member")
    yield _finding(
        ctx,
        at,
        entry,
        member_start,
        member,
        closest_name(member, declared - jdk.KEYWORDS),
        f"`{member}` is not a member of `{owner.name}`",
    )


def _finding(
    ctx: CheckContext,
    at: int,
    entry: DocEntry | None,
    start: int,
    name: str,
    closest: str | None,
    message: str,
    condition: tuple[str, str] | None = None,
) -> Finding:
    """A finding on value[start:] (``name``), in the sentence that holds ``at``, or, for
    a @see, in its entry."""
    if closest:
        message += f"; did you mean `{closest}`?"
    segment = (
        next((s for s in ctx.segments if s.start <= at < s.end), None) if entry is None else None
    )
    return ctx.finding(
        "DF105",
        message,
        start,
        start + len(name),
        segment=segment,
        entry=entry,
        fix=(f"Replace with `{closest}`", closest) if closest else None,
        condition=condition,
    )


def _enclosing_class(classes: dict[str, Unit], unit: Unit) -> Unit | None:
    if unit.kind == "class":
        return unit
    return classes.get(unit.qualname.rpartition(".")[0])


def _local_class(classes: dict[str, Unit], unit: Unit, written: str) -> Unit | None:
    """The class of this file that ``written`` (``Cart`` or ``Cart.Line``) names from ``unit``."""
    scope = unit.qualname
    while True:
        candidate = f"{scope}.{written}" if scope else written
        if candidate in classes:
            return classes[candidate]
        if not scope:
            return None
        scope = scope.rpartition(".")[0]


def _members(classes: dict[str, Unit], owner: Unit) -> frozenset[str]:
    """Names used in ``owner`` and the classes enclosing it (javadoc looks there too)."""
    found: frozenset[str] = frozenset()
    qualname = owner.qualname
    while qualname:
        if qualname in classes:
            found |= classes[qualname].attributes
        qualname = qualname.rpartition(".")[0]
    return found


def _may_inherit(classes: dict[str, Unit], owner: Unit) -> bool:
    """Whether ``owner`` or a class enclosing it has supertypes (members may come from them)."""
    qualname = owner.qualname
    while qualname:
        unit = classes.get(qualname)
        if unit is not None and unit.bases:
            return True
        qualname = qualname.rpartition(".")[0]
    return False
