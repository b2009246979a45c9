"""Presenting a run's results: text, JSON (docs/design.md's contract) and SARIF 2.1.0."""

from __future__ import annotations

import json
import os
import urllib.parse
from functools import lru_cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from . import __version__
from .checks.registry import RULES
from .model import SEVERITIES
from .terminal import printable

if TYPE_CHECKING:
    from .runner import RunResult

PUBLIC_RULES_URL = "https://github.com/docfact/docfact/blob/main/docs/rules.md"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def local_rules() -> Path | None:
    """docs/rules.md of this checkout, when docfact runs from one."""
    local = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    return local if local.is_file() else None


@lru_cache(maxsize=1)
def rules_document() -> str:
    """docs/rules.md of this checkout when docfact runs from one, else the public copy."""
    local = local_rules()
    return local.as_uri() if local else PUBLIC_RULES_URL


def rule_url(code: str) -> str:
    rule = RULES.get(code)
    return f"{rules_document()}#{code.lower()}-{rule.name}" if rule else rules_document()


def sort_key(diagnostic: dict) -> tuple[str, int, int, str]:
    return (
        diagnostic["path"],
        diagnostic["start"]["line"],
        diagnostic["start"]["column"],
        diagnostic["code"],
    )


def to_json(result: RunResult) -> str:
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


def to_text(result: RunResult) -> str:
    lines = []
    for d in sorted(result.diagnostics, key=sort_key):
        lines.append(printable(_finding_line(d)))
    counts: dict[str, int] = {}
    for d in result.diagnostics:
        counts[d["severity"]] = counts.get(d["severity"], 0) + 1
    found = ", ".join(_severity_count(counts[s], s) for s in SEVERITIES if s in counts)
    found = found or "no findings"
    lines.append(
        f"Checked {_count(result.units_checked, 'docstring')} in "
        f"{_count(result.files_checked, 'file')}: {found}."
    )
    return "\n".join(lines)


def _finding_line(d: dict) -> str:
    return f"{d['path']}:{d['start']['line']}:{d['start']['column']}: {d['code']} {d['message']}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _severity_count(number: int, severity: str) -> str:
    """A severity counted: 3 warnings, 2 errors; information is a mass noun."""
    return f"{number} {severity}" if severity == "information" else _count(number, severity)


def score_card(entry: dict) -> str:
    """`docfact score`'s text: each score as a bar, with how it was measured."""
    lines = [f"{entry['symbol']}  ({entry['path']}:{entry['line']})", ""]
    referee = entry.get("referee")
    lines.append(
        _score_line(
            "ReFEree SCORE",
            referee,
            "consistent verdicts of the judge, 4 criteria per sentence"
            if referee is not None
            else "no verdict from the model",
        )
    )
    sonar = entry.get("sonar") or {}
    lines.append("SONAR")
    for name in ("correctness", "abstraction", "conciseness", "fluency"):
        lines.append(
            _score_line(
                f"  {name.capitalize()}",
                sonar.get(name),
                sonar.get("how", {}).get(name, "not computed"),
            )
        )
    example = sonar.get("counterexample")
    if example:
        lines.append(
            f"  where they disagree: for {example['input']} the function "
            f"{example['original']}; code written from the docstring {example['candidate']}"
        )
    ssc = entry.get("ssc") or {}
    if ssc.get("value") is None:
        lines.append(
            f"Model understandability: not computed ({ssc.get('error') or 'no summaries'})"
        )
    else:
        over = f"calibrated over {ssc.get('calibrated_over', '?')} functions of the project"
        cut = (
            f"High at SSC >= {ssc['threshold']:.2f}, {over}"
            if ssc.get("threshold") is not None
            else f"not labelled: too few functions calibrated ({over})"
        )
        lines.append(
            _score_line(
                f"Model understandability: {(ssc['label'] or 'unlabelled').capitalize()}",
                ssc["value"],
                f"SSC of k = {ssc['k']} summaries; {cut}",
            )
        )
        if "docstring" in ssc:
            lines.append(
                f"  P2, docstring vs the model's reading: {ssc['docstring']['value']:.2f} "
                f"({ssc['docstring']['label']})"
            )
        if "judged_correct" in ssc:
            lines.append(
                f"  P3, summaries judged correct: {ssc['judged_correct']['share']:.0%} "
                f"({ssc['judged_correct']['label']})"
            )
    findings = entry.get("findings") or []
    if findings:
        lines += ["", "Findings"] + [f"  {_finding_line(d)}" for d in findings]
    return "\n".join(map(printable, lines))


def _score_line(label: str, value: float | None, how: str) -> str:
    if value is None:
        return f"{label:<36} {'':10}  --    {how}"
    filled = round(max(0.0, min(1.0, value)) * 10)
    return f"{label:<36} {'█' * filled}{'░' * (10 - filled)}  {value:.2f}  {how}"


def artifact_uri(path: str) -> str:
    """The SARIF ``uri`` of a reported path, percent-encoded (a file name with a space, a
    ``#``, a ``%`` or a non-ASCII letter made an invalid URI, or one naming another file):
    a relative path stays a relative reference (to where docfact ran), an absolute one is a
    ``file:`` URI."""
    pure = PurePath(path)
    if pure.is_absolute():
        return Path(path).as_uri()
    # (quote encodes ':' too: "a:b.py" would read as the scheme "a")
    return urllib.parse.quote_from_bytes(os.fsencode(pure.as_posix()), safe="/")


def to_sarif(result: RunResult) -> str:
    used = sorted({d["code"] for d in result.diagnostics})
    rules = [
        {
            "id": code,
            "name": RULES[code].name,
            "shortDescription": {"text": RULES[code].summary},
            "helpUri": rule_url(code),
            "properties": {"criterion": RULES[code].criterion},
        }
        for code in used
        if code in RULES
    ]
    results = []
    for d in sorted(result.diagnostics, key=sort_key):
        entry = {
            "ruleId": d["code"],
            "level": _SARIF_LEVEL[d["severity"]],
            "message": {"text": d["message"]},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(d["path"])},
                        "region": {
                            "startLine": d["start"]["line"],
                            "startColumn": d["start"]["column"],
                            "endLine": d["end"]["line"],
                            "endColumn": d["end"]["column"],
                        },
                    },
                    "logicalLocations": [{"fullyQualifiedName": d["symbol"]}],
                }
            ],
            "properties": {"criterion": d["criterion"], "sentence": d["sentence"]},
        }
        if d["fix"]:
            fix = d["fix"]
            entry["fixes"] = [
                {
                    "description": {"text": fix["title"]},
                    "properties": {"safety": fix.get("safety", "unsafe")},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": artifact_uri(d["path"])},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": fix["start"]["line"],
                                        "startColumn": fix["start"]["column"],
                                        "endLine": fix["end"]["line"],
                                        "endColumn": fix["end"]["column"],
                                    },
                                    "insertedContent": {"text": fix["replacement"]},
                                }
                            ],
                        }
                    ],
                }
            ]
        results.append(entry)
    return json.dumps(
        {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "docfact",
                            "version": __version__,
                            "informationUri": PUBLIC_RULES_URL,
                            "rules": rules,
                        }
                    },
                    "results": results,
                }
            ],
        },
        indent=2,
        ensure_ascii=False,
    )


def exceeds(result: RunResult, fail_on: str) -> bool:
    """Whether any finding is at or above the ``fail_on`` severity."""
    if fail_on == "never":
        return False
    worst = SEVERITIES.index(fail_on)
    return any(SEVERITIES.index(d["severity"]) <= worst for d in result.diagnostics)
