"""C3 (function): what the docstring says the function does that it cannot do."""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterator

from ..model import Finding
from .body import cannot_raise_implicitly, is_stub, only_calls, writes_code_with
from .context import CheckContext
from .registry import rule

_PLAIN_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "abstractmethod",
        "abc.abstractmethod",
        "overload",
        "typing.overload",
    }
)
# A returned instance of a class: ``_IsCallableValidator()``, ``Checker(rule)``.
_INSTANCE = re.compile(r"_*[A-Z]\w*\(")


@rule(
    "DF302",
    "exception-never-raised",
    "function",
    "A documented exception that neither the function nor anything it calls can raise.",
)
def exception_never_raised(ctx: CheckContext) -> Iterator[Finding]:
    unit = ctx.unit
    if unit.signature is None or unit.reraises or ctx.docstring.style == "javadoc":
        return  # Java's checked exceptions and throws clauses: DF303
    if any(d not in _PLAIN_DECORATORS for d in unit.decorators):
        return  # a decorator may raise on the function's behalf (``@not_implemented_for``)
    if any(d.rpartition(".")[2] == "abstractmethod" for d in unit.decorators):
        return  # an abstract method documents what its implementations raise
    if "NotImplementedError" in unit.raises or is_stub(ctx.lines.text, unit):
        return  # an abstract method or a stub (typing-only) documents what implementations raise
    if any(_INSTANCE.match(value) for value in unit.return_values):
        return  # the object it returns raises on its behalf (a validator's ``__call__``)
    raised = {name.rsplit(".", 1)[-1] for name in unit.raises}
    entries = [
        (e, e.name) for e in ctx.docstring.entries if e.kind == "raises" and e.name is not None
    ]
    if not entries or ctx.nested_units:
        return  # nested functions raise on its behalf (a returned validator, a generator)
    for entry, name in entries:
        documented = name.text.lstrip("~!.")
        simple = documented.rsplit(".", 1)[-1]
        if not simple.isidentifier() or simple in raised:
            continue
        # Whether a callee raises it, and whether the project defines it at all, is only
        # known once every file is read: the condition is settled project-wide (by the
        # name as written, which the file's imports may place outside the project).
        condition = ("raised", documented)
        if simple in _BUILTIN_EXCEPTIONS:
            # Anything the function calls, and most operations, may raise a builtin
            # exception: judged only for code that does nothing that could.
            if not cannot_raise_implicitly(ctx.lines.text, unit):
                continue
            condition = ("raised builtin", simple)
        message = (
            f"`{documented}` is documented as raised, but neither `{unit.name}` "
            "nor anything it calls in the project raises it"
        )
        yield ctx.finding("DF302", message, name.start, name.end, entry=entry, condition=condition)


_BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


# A summary that claims a result: "Return the total.", "Returns True if ...", "Yields rows".
_CLAIM = re.compile(r"(?P<word>(?P<verb>Return|Yield)s?)\b(?!\s+(?:None|nothing)\b)")
# "Return the connection to the pool": to return something *to* somewhere is to give it
# back, no claim about a result.
_GIVES_BACK = re.compile(
    r"Returns?\s+(?:[\w`'\".-]+\s+){1,6}?(?:back\s+)?(?:to|into)\s+(?:the|a|an|its|their|this|that)\b"
)
# "Yield control to the event loop": to yield control is to give it up (cooperative
# multitasking), no claim about a generator.
_GIVES_UP = re.compile(
    r"Yields?\s+(?:control|execution|the\s+(?:CPU|processor|thread|event\s+loop)|to\s+the\b)",
    re.IGNORECASE,
)
_CONSTRUCTORS = frozenset({"__init__", "__new__", "__init_subclass__", "__post_init__"})


@rule(
    "DF306",
    "summary-claims-missing-result",
    "function",
    "A summary saying the function returns (or yields) something, on a function that never "
    "returns a value (or is not a generator).",
)
def summary_claims_missing_result(ctx: CheckContext) -> Iterator[Finding]:
    unit, summary = ctx.unit, ctx.docstring.summary
    if (
        summary is None
        or unit.signature is None
        or ctx.docstring.style == "javadoc"
        or unit.name in _CONSTRUCTORS
        or unit.is_generator
    ):
        return
    claim = _CLAIM.match(summary.text)
    if claim is None or _GIVES_BACK.match(summary.text) or _GIVES_UP.match(summary.text):
        return
    if unit.return_values or unit.name.startswith("test"):
        return  # returns something (even None, on purpose); a test describes what it tests
    if (
        unit.raises
        or unit.reraises
        or any(d not in _PLAIN_DECORATORS or "abstract" in d for d in unit.decorators)
    ):
        return  # raises instead, documents its overrides, or a decorator makes the result
    if ctx.nested_units or is_stub(ctx.lines.text, unit) or only_calls(ctx.lines.text, unit):
        return  # a nested function may be what it hands back; a stub documents overrides;
        # one call may raise on its behalf (``self._unsupported("fileno")``)
    if writes_code_with(ctx.lines.text, unit, claim.group("verb").lower()):
        return  # a code generator: the code it writes returns (``writeline("return x")``)
    if claim.group("verb") == "Return":
        message = (
            f"the summary says `{unit.name}` returns something, but it has no `return` with a value"
        )
    else:
        message = (
            f"the summary says `{unit.name}` yields, but it has no `yield`: it is not a generator"
        )
    segment = next((s for s in ctx.segments if s.role == "summary"), None)
    yield ctx.finding(
        "DF306",
        message,
        summary.start,
        summary.start + claim.end("word"),
        segment=segment,
        evidence=(ctx.evidence(unit.qualname, unit.name_span.start),),
    )
