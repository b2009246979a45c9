"""Presenting a run's results: text, JSON (DESIGN.md's contract) and SARIF 2.1.0."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from . import __version__
from .checks.registry import RULES
from .model import SEVERITIES

PUBLIC_RULES_URL = "https://github.com/docfact/docfact/blob/main/docs/rules.md"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


@lru_cache(maxsize=1)
def rules_document() -> str:
    """docs/rules.md of this checkout when docfact runs from one, else the public copy."""
    local = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    return local.as_uri() if local.is_file() else PUBLIC_RULES_URL


def rule_url(code: str) -> str:
    rule = RULES.get(code)
    return f"{rules_document()}#{code.lower()}-{rule.name}" if rule else rules_document()


def sort_key(diagnostic: dict):
    return (diagnostic["path"], diagnostic["start"]["line"], diagnostic["start"]["column"],
            diagnostic["code"])


def to_json(result) -> str:
    report = {
        "tool": "docfact",
        "version": __version__,
        "files_checked": result.files_checked,
        "units_checked": result.units_checked,
        "diagnostics": sorted(result.diagnostics, key=sort_key),
        "scores": sorted(result.scores, key=lambda s: (s["path"], s["symbol"])),
    }
    if result.llm:
        report["llm"] = result.llm
    return json.dumps(report, indent=2, ensure_ascii=False)


def to_text(result) -> str:
    lines = []
    for d in sorted(result.diagnostics, key=sort_key):
        lines.append(f"{d['path']}:{d['start']['line']}:{d['start']['column']}: "
                     f"{d['code']} {d['message']}")
    counts = {}
    for d in result.diagnostics:
        counts[d["severity"]] = counts.get(d["severity"], 0) + 1
    found = ", ".join(f"{counts[s]} {s}" for s in SEVERITIES if s in counts) or "no findings"
    lines.append(
        f"Checked {result.units_checked} docstrings in {result.files_checked} files: {found}."
    )
    return "\n".join(lines)


def to_sarif(result) -> str:
    used = sorted({d["code"] for d in result.diagnostics})
    rules = [{
        "id": code,
        "name": RULES[code].name,
        "shortDescription": {"text": RULES[code].summary},
        "helpUri": rule_url(code),
        "properties": {"criterion": RULES[code].criterion},
    } for code in used if code in RULES]
    results = []
    for d in sorted(result.diagnostics, key=sort_key):
        entry = {
            "ruleId": d["code"],
            "level": _SARIF_LEVEL[d["severity"]],
            "message": {"text": d["message"]},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": d["path"].replace("\\", "/")},
                    "region": {
                        "startLine": d["start"]["line"], "startColumn": d["start"]["column"],
                        "endLine": d["end"]["line"], "endColumn": d["end"]["column"],
                    },
                },
                "logicalLocations": [{"fullyQualifiedName": d["symbol"]}],
            }],
            "properties": {"criterion": d["criterion"], "sentence": d["sentence"]},
        }
        if d["fix"]:
            fix = d["fix"]
            entry["fixes"] = [{
                "description": {"text": fix["title"]},
                "artifactChanges": [{
                    "artifactLocation": {"uri": d["path"].replace("\\", "/")},
                    "replacements": [{
                        "deletedRegion": {
                            "startLine": fix["start"]["line"], "startColumn": fix["start"]["column"],
                            "endLine": fix["end"]["line"], "endColumn": fix["end"]["column"],
                        },
                        "insertedContent": {"text": fix["replacement"]},
                    }],
                }],
            }]
        results.append(entry)
    return json.dumps({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "docfact", "version": __version__,
                                "informationUri": PUBLIC_RULES_URL, "rules": rules}},
            "results": results,
        }],
    }, indent=2, ensure_ascii=False)


def exceeds(result, fail_on: str) -> bool:
    """Whether any finding is at or above the ``fail_on`` severity."""
    if fail_on == "never":
        return False
    worst = SEVERITIES.index(fail_on)
    return any(SEVERITIES.index(d["severity"]) <= worst for d in result.diagnostics)
