"""C1 (name): documented attributes (``Attributes:``, ``:ivar x:``, ``@ivar x:``) that
the class does not have.

A class has an attribute when the code of its module names it anywhere (an assignment,
``self.x = ``, a property, ``__slots__``, ``options.x = `` on an instance made elsewhere in
the module); else the project graph looks in its project bases, and a base outside the
project may have any attribute.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding
from .context import CheckContext
from .registry import rule

_NAME_TAGS = frozenset(
    {"attributes", ":ivar", ":cvar", ":var", "@ivar", "@cvar", "@var", ":vartype", "@vartype"}
)


@rule(
    "DF109",
    "unknown-attribute",
    "name",
    "A documented attribute that the class (and its bases in the project) does not have.",
)
def unknown_attribute(ctx: CheckContext) -> Iterator[Finding]:
    unit = ctx.unit
    if ctx.docstring.style == "javadoc" or unit.kind not in ("class", "method"):
        return
    if unit.kind == "method" and unit.name != "__init__":
        return
    owner = unit.qualname if unit.kind == "class" else unit.qualname.rpartition(".")[0]
    unknown = [
        (e, e.name)
        for e in ctx.docstring.entries
        if e.kind == "attribute"
        and e.name is not None
        and e.section.lower() in _NAME_TAGS
        and e.name.text.isidentifier()
        and e.name.text not in ctx.module.defined_names
    ]
    if not unknown or _made_dynamically(ctx, owner):
        return
    for entry, field in unknown:
        name = field.text
        yield ctx.finding(
            "DF109",
            f"`{name}` is documented as an attribute, but the class does not have it",
            field.start,
            field.end,
            entry=entry,
            condition=("reference", f"{owner.rpartition('.')[2]}.|{name}"),
        )


def _made_dynamically(ctx: CheckContext, owner: str) -> bool:
    """Whether the class's bases are more than names (``namedtuple("P", "x y")``, a
    metaclass), which may give it attributes its code never names."""
    cls = (
        ctx.unit
        if ctx.unit.kind == "class"
        else next((u for u in ctx.module.units if u.qualname == owner and u.kind == "class"), None)
    )
    if cls is None:
        return True
    text = ctx.lines.text
    header = text[cls.name_span.end : text.find(":", cls.name_span.end)]
    return "(" in header[1:] or "=" in header
