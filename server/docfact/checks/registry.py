"""The rule table: every rule's code, name, criterion, default severity, whether it is on
by default, and what makes its findings. It is static data, complete without importing
anything (the registry, the severities, select and ignore and the docs read it); a rule's
check function is imported when the engine first asks for it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cache
from importlib import import_module
from typing import TypeVar

from ..model import Finding

Check = TypeVar("Check", bound=Callable[..., object])

_INFO = "information"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str  # kebab-case, as in docs/rules.md headings
    criterion: str
    severity: str
    # The module of checks/ whose function named after the rule (DF101 unknown-parameter:
    # ``names.unknown_parameter``) makes its findings; None when another layer makes them.
    module: str | None
    summary: str  # one line: what the rule reports
    default: bool = True  # enabled without being selected
    # Not yet proven on projects no one tuned it on (>= 90% of its findings true on the
    # blind half of bench/precision_projects.csv): off unless preview rules are asked for
    # (``--preview``, ``preview = true``), as ruff's preview rules are.
    preview: bool = False
    # "check" (a check function), "project" (from the project graph once every file is
    # known), "judge" (the model judge), "scores" (low SONAR or SSC scores)
    made_by: str = "check"

    @property
    def check(self) -> Callable[..., Iterable[Finding]] | None:
        """The rule's check function, or None when another layer makes its findings."""
        return None if self.module is None else _check_function(self.module, self.name)


@cache
def _check_function(module: str, name: str) -> Callable[..., Iterable[Finding]]:
    return getattr(import_module(f"{__package__}.{module}"), name.replace("-", "_"))


RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        # C1 name
        Rule(
            "DF101",
            "unknown-parameter",
            "name",
            "warning",
            "names",
            "A documented parameter that is not in the signature.",
        ),
        Rule(
            "DF102",
            "unresolved-name",
            "name",
            "warning",
            "names",
            "A name written as code in the prose that is defined nowhere.",
            # Blind first runs of bench/precision_projects.csv's halves pool to 53 of 87 true
            # (61%): code markup in prose also holds programs, placeholders, maths and other
            # libraries' names, which a role (DF107) never does.
            preview=True,
        ),
        Rule(
            "DF103",
            "unknown-callable",
            "name",
            "warning",
            "names",
            "A called name, such as `f()`, that exists nowhere in the project or its imports.",
        ),
        Rule(
            "DF104",
            "model-name-inconsistency",
            "name",
            _INFO,
            None,
            "The model judges that a name in the sentence does not match the code.",
            made_by="judge",
        ),
        Rule(
            "DF105",
            "unresolved-link",
            "name",
            "warning",
            "links",
            "A {@link}, {@linkplain}, {@value} or @see whose target class or member does not "
            "exist.",
        ),
        Rule(
            "DF106",
            "inherited-docstring-parameter",
            "name",
            "warning",
            None,
            "An override without a docstring inherits one that documents parameters it does "
            "not have.",
            made_by="project",
        ),
        Rule(
            "DF107",
            "unresolved-reference",
            "name",
            "warning",
            "xrefs",
            "A cross-reference (a Sphinx role, an Epytext link, a See Also entry) whose "
            "target does not exist.",
        ),
        Rule(
            "DF108",
            "doctest-unresolved-name",
            "name",
            "warning",
            "doctests",
            "A doctest that uses a name, attribute, import or keyword argument the code does "
            "not have.",
        ),
        Rule(
            "DF109",
            "unknown-attribute",
            "name",
            "warning",
            "attributes",
            "A documented attribute that the class (and its bases in the project) does not have.",
        ),
        # C2 type
        Rule(
            "DF201",
            "parameter-type-mismatch",
            "type",
            "warning",
            "types",
            "A documented parameter type that the annotation or the default value contradicts.",
        ),
        Rule(
            "DF202",
            "return-type-mismatch",
            "type",
            "warning",
            "types",
            "A documented return type that the return annotation or every returned value "
            "contradicts.",
        ),
        Rule(
            "DF203",
            "yields-without-generator",
            "type",
            "warning",
            "types",
            "A Yields section on a function that is not a generator and returns no iterator.",
        ),
        Rule(
            "DF204",
            "returns-in-generator",
            "type",
            "warning",
            "types",
            "A generator documented with Returns (what it produces belongs under Yields).",
        ),
        Rule(
            "DF205",
            "return-claim-mismatch",
            "type",
            "warning",
            "types",
            'A sentence such as "Returns True if ..." that the annotation or returned values '
            "contradict.",
            # Blind test half of bench/precision_projects.csv: 3 true of 5 (60%); dev 2 of 5.
            preview=True,
        ),
        Rule(
            "DF206",
            "model-type-inconsistency",
            "type",
            _INFO,
            None,
            "The model judges that a type in the sentence does not match the code.",
            made_by="judge",
        ),
        Rule(
            "DF207",
            "returns-documented-for-void",
            "type",
            "warning",
            "types",
            "A documented return value (@return) on a method declared void, or on a constructor.",
        ),
        # C3 function
        Rule(
            "DF301",
            "model-functionality-inconsistency",
            "function",
            "warning",
            None,
            "The model judges that the sentence describes behaviour the code does not have.",
            made_by="judge",
        ),
        Rule(
            "DF302",
            "exception-never-raised",
            "function",
            "warning",
            "function",
            "A documented exception that neither the function nor anything it calls can raise.",
        ),
        Rule(
            "DF303",
            "exception-never-thrown",
            "function",
            "warning",
            "throws",
            "A documented exception (@throws) the method cannot throw: a checked exception "
            "its throws clause does not declare, or one that neither it nor anything it calls "
            "throws.",
        ),
        Rule(
            "DF304",
            "low-sonar-correctness",
            "function",
            "warning",
            None,
            "Code written from the docstring behaves differently from the function (SONAR "
            "Correctness).",
            made_by="scores",
        ),
        Rule(
            "DF305",
            "docstring-far-from-model-reading",
            "function",
            _INFO,
            None,
            "The docstring is far from what a model reads in the code (SSC P2, calibrated "
            "over the project).",
            made_by="scores",
        ),
        Rule(
            "DF306",
            "summary-claims-missing-result",
            "function",
            "warning",
            "function",
            "A summary saying the function returns (or yields) something, on a function that "
            "never returns a value (or is not a generator).",
        ),
        # C4 context
        Rule(
            "DF401",
            "model-irrelevant-context",
            "context",
            "warning",
            None,
            "The model judges the sentence irrelevant, over-general or invented.",
            made_by="judge",
        ),
        # structure (not factual: off by default)
        Rule(
            "DF501",
            "undocumented-parameter",
            "structure",
            _INFO,
            "structure",
            "A parameter missing from a docstring that documents other parameters.",
            default=False,
        ),
        Rule(
            "DF502",
            "undocumented-return",
            "structure",
            _INFO,
            "structure",
            "A function that returns a value, in a docstring with sections but no Returns.",
            default=False,
        ),
        Rule(
            "DF503",
            "generator-without-yields",
            "structure",
            _INFO,
            "structure",
            "A generator whose Returns describes the generator itself, with no Yields section "
            "(numpydoc's convention: document what it yields).",
            default=False,
        ),
    )
}


def rule(
    code: str,
    name: str,
    criterion: str,
    summary: str,
    severity: str = "warning",
    default: bool = True,
) -> Callable[[Check], Check]:
    """Mark the decorated function as the check of rule ``code``. The table above is what
    counts: what the decorator repeats of it must agree with it."""
    known = RULES.get(code)
    if known is None or (name, criterion, summary, severity, default) != (
        known.name,
        known.criterion,
        known.summary,
        known.severity,
        known.default,
    ):
        raise ValueError(
            f"rule {code} {name}: add it to (or make it agree with) the table in checks/registry.py"
        )

    def check(function: Check) -> Check:
        if known.module is None or function.__name__ != name.replace("-", "_"):
            raise ValueError(f"rule {code}: the table names no check {function.__name__}")
        return function

    return check


def _matches(code: str, prefixes: Iterable[str]) -> bool:
    return any(prefix == "ALL" or code.startswith(prefix) for prefix in prefixes)


def enabled_codes(
    select: Iterable[str], ignore: Iterable[str], preview: bool = False
) -> frozenset[str]:
    """Codes enabled by default or selected, less the ignored ones; preview rules only
    when ``preview`` is on or when selected by their own code (``DF102``, not ``DF1`` or
    ``ALL``: a prefix means the stable rules it covers)."""
    select, ignore = tuple(select), tuple(ignore)
    return frozenset(
        code
        for code, r in RULES.items()
        if (r.default or _matches(code, select))
        and not _matches(code, ignore)
        and (preview or not r.preview or code in select)
    )


def ignored_for_path(
    relative_path: str, per_file_ignores: Iterable[tuple[str, Iterable[str]]]
) -> tuple[str, ...]:
    """Code prefixes that ``per_file_ignores`` silences for this path."""
    return tuple(
        code
        for pattern, codes in per_file_ignores
        if fnmatch(relative_path, pattern) or fnmatch(relative_path.rsplit("/", 1)[-1], pattern)
        for code in codes
    )


def is_suppressed(code: str, suppressed: frozenset[str]) -> bool:
    """Whether a ``# docfact: ignore[...]`` comment silences ``code``."""
    return "*" in suppressed or _matches(code, suppressed)
