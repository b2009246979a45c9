"""Model -> lsprotocol: positions in the negotiated encoding, diagnostics, edits.

This is the only place where string offsets become LSP positions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lsprotocol import types

from ..model import Evidence, Finding, Span
from ..output import local_rules, rule_url
from ..source.lines import LineIndex

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


class PositionMapper:
    """Offsets of one text <-> LSP positions in UTF-8, UTF-16 or UTF-32 units."""

    def __init__(self, lines: LineIndex, encoding: str | None):
        self.lines = lines
        self.encoding = str(encoding or types.PositionEncodingKind.Utf16)

    def position(self, offset: int) -> types.Position:
        line, column = self.lines.position(offset)
        prefix = self.lines.text[self.lines.starts[line] : self.lines.starts[line] + column]
        return types.Position(line=line, character=self._units(prefix))

    def range(self, span: Span) -> types.Range:
        return types.Range(start=self.position(span.start), end=self.position(span.end))

    def offset(self, position: types.Position) -> int:
        if position.line >= len(self.lines.starts):
            return len(self.lines.text)
        text = self.lines.line_text(position.line)
        units = 0
        for column, ch in enumerate(text):
            if units >= position.character:
                return self.lines.starts[position.line] + column
            units += self._units(ch)
        return self.lines.starts[position.line] + len(text)

    def _units(self, text: str) -> int:
        if self.encoding == types.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", "surrogatepass"))
        if self.encoding == types.PositionEncodingKind.Utf32:
            return len(text)
        return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def diagnostic(finding: Finding, mapper: PositionMapper, uri: str, path: str) -> types.Diagnostic:
    """The LSP diagnostic of a finding in the document at ``uri`` (file ``path``)."""
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=uri if evidence.path == path else Path(evidence.path).resolve().as_uri(),
                range=types.Range(
                    start=types.Position(line=evidence.line - 1, character=0),
                    end=types.Position(line=evidence.line - 1, character=0),
                ),
            ),
            message=_related_message(evidence),
        )
        for evidence in finding.evidence
        if evidence.path and evidence.line >= 1  # a place in a file (history has none)
    ]
    data: dict[str, object] = {
        "symbol": finding.symbol,
        "criterion": finding.criterion,
        "sentence": finding.sentence,
    }
    if finding.fix is not None:
        data["fix"] = {
            "title": finding.fix.title,
            "replacement": finding.fix.replacement,
            "range": _range_json(mapper.range(finding.fix.span)),
            "safety": finding.fix.safety,
        }
    return types.Diagnostic(
        range=mapper.range(finding.span),
        message=finding.message,
        severity=_SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=rule_link(finding.code)),
        source="docfact",
        related_information=related or None,
        data=data,
    )


_RELATED_CHARS = 120


def _related_message(evidence: Evidence) -> str:
    """One line: what the code uses and its signature (the location opens the source; the
    excerpt the model judge reads would fill the hover with a whole class)."""
    first = next((line for line in evidence.text.splitlines() if line.strip()), "")
    said = first.strip().removeprefix("# ").strip() or evidence.symbol
    if evidence.symbol not in said:
        said = f"{evidence.symbol}: {said}"
    return said if len(said) <= _RELATED_CHARS else said[: _RELATED_CHARS - 3] + "..."


def rule_link(code: str) -> str:
    """Where a diagnostic's code links to: the rule's own section. In a checkout, the local
    docs/rules.md at the line of the rule's heading (editors open file links at a line given
    as ``#L<n>``, but ignore Markdown anchors); else the public page's anchor."""
    line = _rule_headings().get(code)
    local = local_rules()
    return f"{local.as_uri()}#L{line}" if local and line else rule_url(code)


@lru_cache(maxsize=1)
def _rule_headings() -> dict[str, int]:
    """Rule code -> 1-based line of its ``## DFnnn name`` heading in the local rules.md."""
    local = local_rules()
    if local is None:
        return {}
    headings: dict[str, int] = {}
    for number, line in enumerate(local.read_text(encoding="utf-8").splitlines(), 1):
        match = re.match(r"## (DF\d{3}) ", line)
        if match:
            headings.setdefault(match.group(1), number)
    return headings


def _range_json(value: types.Range) -> dict:
    return {
        "start": {"line": value.start.line, "character": value.start.character},
        "end": {"line": value.end.line, "character": value.end.character},
    }


def range_from_json(value: dict) -> types.Range:
    return types.Range(start=types.Position(**value["start"]), end=types.Position(**value["end"]))
