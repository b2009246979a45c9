"""A finding as JSON, in its two forms: the whole finding as workers send it and the cache
keeps it (``encode``/``decode``: offsets, the inverse of each other), and the finding as
``docfact check --format json`` prints it (``diagnostic_json``: docs/design.md's contract,
1-based lines and columns of the file's text)."""

from __future__ import annotations

from typing import Any

from .model import Evidence, Finding, Fix, Span
from .source.lines import LineIndex


def encode(finding: Finding) -> dict[str, Any]:
    """Everything of ``finding``, as plain JSON values."""
    return {
        "code": finding.code,
        "criterion": finding.criterion,
        "severity": finding.severity,
        "message": finding.message,
        "span": [finding.span.start, finding.span.end],
        "symbol": finding.symbol,
        "sentence": finding.sentence,
        "sentence_span": [finding.sentence_span.start, finding.sentence_span.end],
        "evidence": [[e.symbol, e.path, e.line, e.text, e.kind] for e in finding.evidence],
        "fix": None
        if finding.fix is None
        else {
            "title": finding.fix.title,
            "replacement": finding.fix.replacement,
            "span": [finding.fix.span.start, finding.fix.span.end],
            "safety": finding.fix.safety,
        },
        "condition": list(finding.condition) if finding.condition else None,
        "data": finding.data,
        "subject": finding.subject,
        "preview": finding.preview,
    }


def decode(item: dict[str, Any]) -> Finding:
    """The finding ``encode`` made ``item`` of."""
    fix = item["fix"]
    return Finding(
        code=item["code"],
        criterion=item["criterion"],
        severity=item["severity"],
        message=item["message"],
        span=Span(*item["span"]),
        symbol=item["symbol"],
        sentence=item["sentence"],
        sentence_span=Span(*item["sentence_span"]),
        evidence=tuple(Evidence(*e) for e in item["evidence"]),
        fix=None
        if fix is None
        else Fix(fix["title"], fix["replacement"], Span(*fix["span"]), fix["safety"]),
        condition=tuple(item["condition"]) if item["condition"] else None,
        data=item["data"],
        subject=item.get("subject", ""),
        preview=item.get("preview", False),
    )


def diagnostic_json(finding: Finding, lines: LineIndex, path: str) -> dict[str, Any]:
    """A finding as the JSON contract of docs/design.md (1-based lines and columns of the text
    ``lines`` indexes)."""
    return {
        "path": path,
        "symbol": finding.symbol,
        "code": finding.code,
        "criterion": finding.criterion,
        "severity": finding.severity,
        "message": finding.message,
        "start": _position(lines, finding.span.start),
        "end": _position(lines, finding.span.end),
        "sentence": finding.sentence,
        "evidence": [_evidence_json(e) for e in finding.evidence],
        "fix": None
        if finding.fix is None
        else {
            "title": finding.fix.title,
            "replacement": finding.fix.replacement,
            "start": _position(lines, finding.fix.span.start),
            "end": _position(lines, finding.fix.span.end),
            "safety": finding.fix.safety,
        },
    }


def _evidence_json(evidence: Evidence) -> dict[str, Any]:
    """Where the evidence is; a near miss or a name's history also says what it is."""
    found: dict[str, Any] = {
        "symbol": evidence.symbol,
        "path": evidence.path,
        "line": evidence.line,
    }
    if evidence.kind:
        found.update(kind=evidence.kind, text=evidence.text)
    return found


def _position(lines: LineIndex, offset: int) -> dict[str, int]:
    line, column = lines.position(offset)
    return {"line": line + 1, "column": column + 1}
