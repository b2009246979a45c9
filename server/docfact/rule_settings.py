"""Which findings of a file are shown, and how: ``select``, ``ignore``, ``per-file-ignores``,
``severity`` and ``# docfact: ignore[...]`` comments, applied in one place to the findings
of every layer (the rules, the project-wide rules, the model judge, the scores), by the
command line and the editor alike.

The rules themselves run for every enabled code, suppressed or not: the model judge must
see what a suppressed rule found, so that it does not report the same sentence again
under a model code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from .checks.registry import enabled_codes, ignored_for_path, is_suppressed
from .config import Settings
from .model import Finding, Unit


def codes_for(settings: Settings, relative_path: str) -> frozenset[str]:
    """The rule codes enabled for a file."""
    ignored = settings.ignore + ignored_for_path(relative_path, settings.per_file_ignores)
    return enabled_codes(settings.select, ignored, settings.preview)


def suppressions(units: Iterable[Unit], module_name: str) -> dict[str, list[str]]:
    """Symbol -> the codes its ``# docfact: ignore[...]`` comment silences ("*" for all).
    Java overloads share a symbol: a code silenced on one is silenced on all."""
    found: dict[str, set[str]] = {}
    for unit in units:
        if unit.suppressed:
            symbol = ".".join(p for p in (module_name, unit.qualname) if p)
            found.setdefault(symbol, set()).update(unit.suppressed)
    return {symbol: sorted(codes) for symbol, codes in found.items()}


@dataclass(frozen=True)
class FileRules:
    """The settings of one file that decide which findings are shown, and how."""

    enabled: frozenset[str]
    severities: Mapping[str, str]
    suppressed: Mapping[str, list[str]]  # as ``suppressions`` gives it
    preview: bool = False  # show the findings that rest on too little (``Finding.preview``)

    @classmethod
    def of(
        cls, settings: Settings, relative_path: str, suppressed: Mapping[str, list[str]]
    ) -> FileRules:
        return cls(
            codes_for(settings, relative_path),
            dict(settings.severity),
            suppressed,
            settings.preview,
        )

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings these settings show, with the severity they set."""
        shown = []
        for finding in findings:
            if (
                finding.code not in self.enabled
                or (finding.preview and not self.preview)
                or is_suppressed(finding.code, frozenset(self.suppressed.get(finding.symbol, ())))
            ):
                continue
            severity = self.severities.get(finding.code, finding.severity)
            shown.append(
                finding if severity == finding.severity else replace(finding, severity=severity)
            )
        return shown
