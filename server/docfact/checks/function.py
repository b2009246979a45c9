"""C3 (function): what the docstring says the function does that it cannot do."""

from __future__ import annotations

import re
from typing import Iterator

from ..model import Finding
from .context import CheckContext
from .registry import rule

_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "abstractmethod",
                               "abc.abstractmethod", "overload", "typing.overload"})
# A returned instance of a class: ``_IsCallableValidator()``, ``Checker(rule)``.
_INSTANCE = re.compile(r"_*[A-Z]\w*\(")


@rule("DF302", "exception-never-raised", "function",
      "A documented exception that neither the function nor anything it calls can raise.")
def exception_never_raised(ctx: CheckContext) -> Iterator[Finding]:
    unit = ctx.unit
    if unit.signature is None or unit.reraises or ctx.docstring.style == "javadoc":
        return  # Java's checked exceptions and throws clauses: DF303
    if any(d not in _PLAIN_DECORATORS for d in unit.decorators):
        return  # a decorator may raise on the function's behalf (``@not_implemented_for``)
    if "NotImplementedError" in unit.raises:
        return  # an abstract method documents what its implementations raise
    if any(_INSTANCE.match(value) for value in unit.return_values):
        return  # the object it returns raises on its behalf (a validator's ``__call__``)
    raised = {name.rsplit(".", 1)[-1] for name in unit.raises}
    entries = [e for e in ctx.docstring.entries if e.kind == "raises" and e.name is not None]
    if not entries or ctx.nested_units:
        return  # nested functions raise on its behalf (a returned validator, a generator)
    for entry in entries:
        documented = entry.name.text.lstrip("~!.")
        simple = documented.rsplit(".", 1)[-1]
        if not simple.isidentifier() or simple in raised:
            continue
        # Whether a callee raises it, and whether the project defines it at all, is only
        # known once every file is read: the condition is settled project-wide.
        message = (f"`{documented}` is documented as raised, but neither `{unit.name}` "
                   "nor anything it calls in the project raises it")
        yield ctx.finding("DF302", message, entry.name.start, entry.name.end, entry=entry,
                          condition=("raised", simple))
