"""C1 (name): doctests that use what the code does not have.

``>>>`` lines are code, run in the module's namespace. A name they use must be bound by
the examples or the module; a dotted name on a project module or class must name a
member it has; an import of the project must import something that exists; a keyword
argument passed to a project callable must be one of its parameters. What only the
project can tell is settled by the graph (``graph/references.py``).

A name the module lacks is reported only when a name of the module is spelled closely, or
when it reads as the documented function's former name (the examples never use its present
name, and the two share a word): doctests often rely on names a test set-up provides
(``np``, ``pd``, fixtures).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Evidence, Field, Finding, Segment
from ..source.doctests import DoctestCode, doctest_code
from .context import CheckContext
from .evidence import FORMER_NAME
from .names import closest_name
from .referents import Names
from .registry import rule


@rule(
    "DF108",
    "doctest-unresolved-name",
    "name",
    "A doctest that uses a name, attribute, import or keyword argument the code does not have.",
)
def doctest_unresolved_name(ctx: CheckContext) -> Iterator[Finding]:
    if ctx.docstring.style == "javadoc" or ">>>" not in ctx.docstring.text.value:
        return
    code = doctest_code(ctx.docstring.text.value)
    known = ctx.known_names
    for name in code.names:
        if name.text in known or name.text in code.bound or "_" + name.text in known:
            continue  # ... or a private name by its public spelling (``write_call``)
        former = _former_name(ctx, code, name.text)
        closest = closest_name(name.text, (known - ctx.universal_names) | code.bound) or former
        if closest is None or len(name.text) < 4:
            continue  # a name the set-up may provide (``np``, ``xps``): not a clear typo
        yield _finding(
            ctx,
            name,
            f"`{name.text}` is used in a doctest but defined nowhere; did you mean `{closest}`?",
            ("defined", name.text),
            closest,
            _former_name_evidence(ctx, name.text) if closest == former else (),
        )
    for dotted in code.dotted:
        target = _absolute(code, dotted.text, known)
        if target is None:
            continue
        if "|" in target:  # the finding covers what follows the imported name
            head = dotted.text.partition(".")[0]
            dotted = Field(dotted.text[len(head) + 1 :], dotted.start + len(head) + 1, dotted.end)
        yield _finding(
            ctx, dotted, f"`{dotted.text}` in a doctest does not resolve", ("reference", target)
        )
    for module, where in code.imports:
        yield _finding(
            ctx, where, f"`{module.replace('|', '')}` cannot be imported", ("import", module)
        )
    for callee, keyword in code.keywords:
        target = _absolute(code, callee, known, every_part=False)
        if target is not None:
            yield _finding(
                ctx,
                keyword,
                f"`{callee}` takes no keyword `{keyword.text}`",
                ("keyword", f"{target.replace('|', '')}:{keyword.text}"),
            )


def _former_name(ctx: CheckContext, code: DoctestCode, name: str) -> str | None:
    """The documented function's or class's own name when ``name`` reads as what it was
    called before a rename: its examples never use it by its present name, and the two
    names share a word (``cachecontrol_directives(...)`` in the examples of
    ``parse_cachecontrol``)."""
    unit = ctx.unit
    if unit.kind not in ("function", "class") or not _words(name) & _words(unit.name):
        return None
    used = {n.text for n in code.names} | {
        part for dotted in code.dotted for part in dotted.text.split(".")
    }
    return None if unit.name in used or unit.name in code.bound else unit.name


def _former_name_evidence(ctx: CheckContext, name: str) -> tuple[Evidence, ...]:
    """What shows ``name`` is the documented unit's old name: its examples call it, never
    the unit itself, and the module has no ``name`` (they would fail with a NameError)."""
    unit = ctx.unit
    said = (
        f"the examples of `{unit.name}` call `{name}`, never `{unit.name}` itself, and "
        f"the module has no `{name}`"
    )
    return (Evidence(unit.name, ctx.path, unit.def_line + 1, said, FORMER_NAME),)


def _words(name: str) -> set[str]:
    """The words of a snake_case or CamelCase name long enough to tell it (not ``get``)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ")
    return {word.lower() for word in spaced.split() if len(word) >= 4}


def _absolute(code: DoctestCode, dotted: str, known: Names, every_part: bool = True) -> str | None:
    """``dotted`` as the project graph can resolve it: through what a doctest import
    binds (``nx.edge_dfs`` -> ``networkx.|edge_dfs``), or as written for a name of the
    module; None for a value the examples made (its type is unknown) or, with
    ``every_part``, when every part is a name of the file (nothing the graph could add)."""
    head, _, rest = dotted.partition(".")
    if head in code.assigned or any(part in code.bound for part in rest.split(".") if part):
        return None  # a value the examples made, or an attribute they set
    if head in code.aliases:
        return f"{code.aliases[head]}.|{rest}" if rest else f"|{code.aliases[head]}"
    if head in code.bound or head not in known:
        return None
    if every_part and all(part in known for part in dotted.split(".")):
        return None
    return dotted


def _finding(
    ctx: CheckContext,
    where: Field,
    message: str,
    condition: tuple[str, str],
    closest: str | None = None,
    evidence: tuple[Evidence, ...] = (),
) -> Finding:
    """A finding on ``where``, whose sentence is the doctest line holding it."""
    value = ctx.docstring.text.value
    start = value.rfind("\n", 0, where.start) + 1
    end = value.find("\n", where.end)
    line = value[start : end if end >= 0 else len(value)]
    indent = len(line) - len(line.lstrip())
    segment = Segment(line.strip(), start + indent, start + indent + len(line.strip()), "doctest")
    return ctx.finding(
        "DF108",
        message,
        where.start,
        where.end,
        segment=segment,
        fix=(f"Replace with `{closest}`", closest) if closest else None,
        evidence=evidence,
        condition=condition,
    )
