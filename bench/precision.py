"""Precision of docfact's factual findings on real, maintained projects, against labels.

The projects are listed in bench/precision_projects.csv (name, GitHub repository, pinned
commit, the package folder a user would check). Each must already be exported under the
corpus folder given on the command line, as CORPUS/<name> (this script fetches nothing):

    git --git-dir=<mirror> archive <commit> | tar -x -C CORPUS/<name>

docfact checks each package folder as a user would (`docfact check <folder> --format
json`, from the project's root, no cache). Every factual finding (criteria name, type,
function, context) is matched to bench/precision_labels.csv by project, path, line, code
and subject (the flagged identifier); each label says whether the finding is true, false
or unsure, with a one-line reason.

Printed per project and overall: docstrings checked, findings, true, false, unsure,
unlabelled, precision (true / (true + false)), false alarms per 100 docstrings, and how
many labelled findings are no longer reported (false alarms fixed; true or unsure ones
lost); then every unlabelled finding (to be labelled: --todo prints them as CSV rows)
and every lost one.

Usage: python bench/precision.py CORPUS [--project NAME ...] [--todo]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "precision_projects.csv"
LABELS = HERE / "precision_labels.csv"
FACTUAL = frozenset({"name", "type", "function", "context"})
VERDICTS = ("true", "false", "unsure")
LABEL_COLUMNS = ("project", "commit", "path", "line", "code", "subject", "verdict", "reason")
TARGET_PRECISION = 0.90
TARGET_FALSE_PER_100 = 0.2
_IDENTIFIER = re.compile(r"[\w.]+")


@dataclass(frozen=True)
class Project:
    name: str
    repo: str
    commit: str
    folder: str  # the package folder, relative to the project's root


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the project's root
    line: int
    code: str
    subject: str  # the flagged identifier, or "" when the span is not one
    message: str

    @property
    def key(self) -> tuple[str, int, str, str]:
        return self.path, self.line, self.code, self.subject


@dataclass
class Outcome:
    project: Project
    docstrings: int
    findings: list[Finding]
    verdicts: Counter = field(default_factory=Counter)  # verdict -> count ("" unlabelled)
    unlabelled: list[Finding] = field(default_factory=list)
    gone: list[dict] = field(default_factory=list)  # labels no finding matches

    @property
    def precision(self) -> float | None:
        judged = self.verdicts["true"] + self.verdicts["false"]
        return self.verdicts["true"] / judged if judged else None

    def gone_count(self, verdict: str) -> int:
        return sum(row["verdict"] == verdict for row in self.gone)

    @property
    def false_per_100(self) -> float:
        return 100 * self.verdicts["false"] / self.docstrings if self.docstrings else 0.0


def read_projects() -> list[Project]:
    with PROJECTS.open(newline="") as handle:
        return [
            Project(row["name"], row["repo"], row["commit"], row["folder"])
            for row in csv.DictReader(handle)
        ]


def read_labels() -> list[dict]:
    if not LABELS.exists():
        return []
    with LABELS.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        if row["verdict"] not in VERDICTS:
            raise SystemExit(f"{LABELS.name}: verdict {row['verdict']!r} is not one of {VERDICTS}")
    return rows


def label_key(row: dict) -> tuple[str, int, str, str]:
    return row["path"], int(row["line"]), row["code"], row["subject"]


def run_docfact(root: Path, folder: str) -> dict:
    """`docfact check folder --format json` from the project's root, with the docfact of
    this interpreter (so PYTHONPATH decides which tree runs)."""
    command = [sys.executable, "-m", "docfact", "check", folder, "--format", "json", "--no-cache"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=root)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"docfact failed on {root} ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def factual_findings(result: dict, root: Path) -> list[Finding]:
    found = []
    for d in result["diagnostics"]:
        if d["criterion"] not in FACTUAL:
            continue
        found.append(
            Finding(
                Path(d["path"]).as_posix(),
                d["start"]["line"],
                d["code"],
                _subject(root / d["path"], d),
                d["message"],
            )
        )
    return found


def _subject(path: Path, diagnostic: dict) -> str:
    """The flagged text when it is an identifier on one line (never prose)."""
    start, end = diagnostic["start"], diagnostic["end"]
    if start["line"] != end["line"]:
        return ""
    try:
        line = path.read_text(encoding="utf-8", errors="replace").splitlines()[start["line"] - 1]
    except (OSError, IndexError):
        return ""
    text = line[start["column"] - 1 : end["column"] - 1]
    return text if _IDENTIFIER.fullmatch(text) else ""


def evaluate(project: Project, corpus: Path, labels: list[dict]) -> Outcome:
    root = corpus / project.name
    if not (root / project.folder).is_dir():
        raise SystemExit(
            f"{root / project.folder} is missing: export {project.repo} at "
            f"{project.commit} there first (see this script's docstring)"
        )
    result = run_docfact(root, project.folder)
    outcome = Outcome(project, result["units_checked"], factual_findings(result, root))
    own = {label_key(row): row for row in labels if row["project"] == project.name}
    matched = set()
    for finding in outcome.findings:  # one label covers every finding of its key (a name
        row = own.get(finding.key)  # written twice on one line is reported twice)
        if row is None:
            outcome.verdicts[""] += 1
            outcome.unlabelled.append(finding)
        else:
            matched.add(finding.key)
            outcome.verdicts[row["verdict"]] += 1
    outcome.gone = sorted((row for key, row in own.items() if key not in matched), key=label_key)
    return outcome


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def table(outcomes: list[Outcome]) -> list[str]:
    header = (
        f"{'project':<22}{'docstrings':>11}{'findings':>9}{'true':>6}{'false':>6}"
        f"{'unsure':>7}{'unlab.':>7}{'precision':>10}{'false/100':>10}{'fixed':>6}{'lost':>5}"
    )
    lines = [header, "-" * len(header)]
    total = Outcome(Project("overall", "", "", ""), 0, [])
    for o in outcomes:
        lines.append(_row(o))
        total.docstrings += o.docstrings
        total.findings += o.findings
        total.verdicts.update(o.verdicts)
        total.gone += o.gone
    lines += ["-" * len(header), _row(total)]
    lines.append(
        f"targets: precision >= {TARGET_PRECISION:.0%}, "
        f"false alarms <= {TARGET_FALSE_PER_100} per 100 docstrings"
    )
    return lines


def _row(o: Outcome) -> str:
    v = o.verdicts
    return (
        f"{o.project.name:<22}{o.docstrings:>11}{len(o.findings):>9}{v['true']:>6}"
        f"{v['false']:>6}{v['unsure']:>7}{v['']:>7}{_percent(o.precision):>10}"
        f"{o.false_per_100:>10.2f}{o.gone_count('false'):>6}"
        f"{len(o.gone) - o.gone_count('false'):>5}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="folder holding one exported project per name")
    parser.add_argument("--project", action="append", help="only these projects (repeatable)")
    parser.add_argument(
        "--todo", action="store_true", help="print the unlabelled findings as label rows to fill in"
    )
    arguments = parser.parse_args(argv)
    projects = [p for p in read_projects() if not arguments.project or p.name in arguments.project]
    labels = read_labels()
    outcomes = [evaluate(p, arguments.corpus, labels) for p in projects]
    print("\n".join(table(outcomes)))
    for o in outcomes:
        if o.unlabelled:
            print(f"\nunlabelled in {o.project.name}:")
            for f in o.unlabelled:
                print(f"  {f.path}:{f.line} {f.code} {f.message}")
        lost = [row for row in o.gone if row["verdict"] != "false"]
        if lost:
            print(f"\nlabelled findings of {o.project.name} no longer reported:")
            for row in lost:
                print(
                    f"  {row['path']}:{row['line']} {row['code']} {row['subject']} "
                    f"[{row['verdict']}] {row['reason']}"
                )
    if arguments.todo:
        writer = csv.writer(sys.stdout)
        print()
        for o in outcomes:
            for f in o.unlabelled:
                writer.writerow(
                    [
                        o.project.name,
                        o.project.commit,
                        f.path,
                        f.line,
                        f.code,
                        f.subject,
                        "",
                        f.message,
                    ]
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
