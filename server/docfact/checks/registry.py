"""The rule registry: every rule's code, criterion, default severity and check function."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatch
from typing import Callable, Iterable

from ..model import Finding

RULES: dict[str, "Rule"] = {}


@dataclass(frozen=True)
class Rule:
    code: str
    name: str  # kebab-case, as in docs/rules.md headings
    criterion: str
    severity: str
    default: bool  # enabled without being selected
    check: Callable[..., Iterable[Finding]] | None  # None: the model judge reports it
    summary: str  # one line: what the rule reports


def rule(code: str, name: str, criterion: str, summary: str, severity: str = "warning",
         default: bool = True):
    """Register the decorated function as the check of rule ``code``."""

    def register(check):
        RULES[code] = Rule(code, name, criterion, severity, default, check, summary)
        return check

    return register


def _matches(code: str, prefixes: Iterable[str]) -> bool:
    return any(prefix == "ALL" or code.startswith(prefix) for prefix in prefixes)


def enabled_codes(select: Iterable[str], ignore: Iterable[str]) -> frozenset[str]:
    """Codes enabled by default or selected, less the ignored ones."""
    select, ignore = tuple(select), tuple(ignore)
    return frozenset(
        code for code, r in RULES.items()
        if (r.default or _matches(code, select)) and not _matches(code, ignore)
    )


def ignored_for_path(relative_path: str, per_file_ignores) -> tuple[str, ...]:
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
