"""C3 (function) for Java: documented exceptions (``@throws``) the method cannot throw."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding
from ..source import jdk
from .context import CheckContext
from .registry import rule


@rule(
    "DF303",
    "exception-never-thrown",
    "function",
    "A documented exception (@throws) the method cannot throw: a checked exception its "
    "throws clause does not declare, or one that neither it nor anything it calls throws.",
)
def exception_never_thrown(ctx: CheckContext) -> Iterator[Finding]:
    unit, signature = ctx.unit, ctx.unit.signature
    if ctx.docstring.style != "javadoc" or unit.kind != "method" or signature is None:
        return
    declared = [_simple(name) for name in signature.throws]
    thrown = [_simple(name) for name in unit.raises]
    # A method that throws UnsupportedOperationException is there to be overridden: it
    # documents what its overrides throw.
    meant_to_be_overridden = "UnsupportedOperationException" in thrown
    for entry in ctx.docstring.entries:
        if entry.kind != "raises" or entry.name is None:
            continue
        if entry.description is not None and entry.description.text.startswith("{@inheritDoc}"):
            continue  # the interface's promise, which implementations may keep
        documented = _simple(entry.name.text)
        if not documented.isidentifier() or documented in jdk.GENERAL_EXCEPTIONS:
            continue
        if _covered(documented, declared):
            continue
        if jdk.is_checked(documented):
            clause = ", ".join(f"`{name}`" for name in signature.throws) or "none"
            yield ctx.finding(
                "DF303",
                f"`{documented}` is a checked exception, so `{unit.name}` can only "
                f"throw it if its throws clause declares it (it declares: {clause})",
                entry.name.start,
                entry.name.end,
                entry=entry,
                evidence=(ctx.evidence(unit.qualname, unit.name_span.start, f"throws {clause}"),),
            )
            continue
        if (
            unit.reraises
            or meant_to_be_overridden
            or documented in jdk.IMPLICIT_EXCEPTIONS
            or _covered(documented, thrown)
        ):
            continue
        # Whether a callee throws it is known once every file is read (ProjectGraph.may_throw).
        yield ctx.finding(
            "DF303",
            f"`{documented}` is documented as thrown, but neither `{unit.name}` nor "
            "anything it calls throws it",
            entry.name.start,
            entry.name.end,
            entry=entry,
            condition=("thrown", documented),
        )


def _covered(documented: str, names: list[str]) -> bool:
    """Whether one of ``names`` may be ``documented``: the same, a JDK exception related
    to it, or an exception docfact cannot place (a project's own may inherit from it)."""
    return any(name not in jdk.EXCEPTION_PARENTS or jdk.related(documented, name) for name in names)


def _simple(name: str) -> str:
    return name.rsplit(".", 1)[-1].strip()
