"""Precision of docfact's factual findings on real, maintained projects, against labels.

The projects are listed in bench/precision_projects.csv (name, GitHub repository, pinned
commit, the package folder a user would check, its half, and for the reader its domain,
docstring style and a note). Each must already be exported under the corpus folder given on
the command line, as CORPUS/<name> (this script fetches nothing; bench/corpus.py exports
what is missing from the repositories' git mirrors):

    git --git-dir=<mirror> archive <commit> | tar -x -C CORPUS/<name>

The projects are split into two halves by a rule fixed before any finding of the grown
corpus was labelled, and that depends on nothing but the project's name:

    half = "test" if int(sha256(name.encode()).hexdigest(), 16) % 2 == 1 else "dev"

Rules are designed from the dev half's findings only; the test half is blind: measured once,
at the end. The CSV's `half` column must agree with the rule (checked on every run).

Once the test half had been run and its false alarms fixed, no half was blind any more: a
third half, `fresh`, holds projects chosen by hand afterwards (other domains and docstring
styles, in no benchmark), pinned in the CSV before docfact ran on any of them, and measured
once before any rule changes. The split rule does not apply to it. `fresh2` is a fourth
half chosen the same way after the fresh half's families were fixed, `fresh3` a fifth after
fresh2's, `fresh4` a sixth after fresh3's, `fresh5` a seventh after fresh4's.

docfact checks each package folder as a user would (`docfact check <folder> --format
json`, from the project's root, no cache). Every factual finding (criteria name, type,
function, context) is matched to bench/precision_labels.csv by project, path, line, code
and subject (the flagged identifier); each label says whether the finding is true, false
or unsure, with a one-line reason.

Printed for each half (or only the one --half names), per project and per rule, with an
overall row: docstrings checked, findings, true, false, unsure, unlabelled, precision
(true / (true + false)), false alarms per 100 docstrings, and per project how many labelled
findings are no longer reported (false alarms fixed; true or unsure ones lost); then every
unlabelled finding and every lost one. --todo prints the unlabelled findings as CSV rows of
bench/precision_labels.csv with verdict and reason left empty, followed by two columns for
the labeller that are not stored: the finding's message and its sentence.

Usage: python bench/precision.py CORPUS [--half dev|test|fresh|fresh2|fresh3|fresh4|fresh5|all]
           [--project NAME ...] [--select CODES] [--todo] [--judged true|false|unsure]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
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
HALVES = ("dev", "test", "fresh", "fresh2", "fresh3", "fresh4", "fresh5")
# Chosen by hand, after the split:
CHOSEN_HALVES = frozenset({"fresh", "fresh2", "fresh3", "fresh4", "fresh5"})
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
    half: str = ""


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the project's root
    line: int
    code: str
    subject: str  # the flagged identifier, or "" when the span is not one
    message: str
    sentence: str = ""

    @property
    def key(self) -> tuple[str, int, str, str]:
        return self.path, self.line, self.code, self.subject


@dataclass
class Outcome:
    """Counts of one project, of one rule, or of a sum of them (``project`` then only names it)."""

    project: Project
    docstrings: int
    findings: list[Finding]
    verdicts: Counter = field(default_factory=Counter)  # verdict -> count ("" unlabelled)
    unlabelled: list[Finding] = field(default_factory=list)
    gone: list[dict] = field(default_factory=list)  # labels no finding matches
    judged: list[tuple[Finding, str]] = field(default_factory=list)  # verdict, "" unlabelled

    @property
    def precision(self) -> float | None:
        judged = self.verdicts["true"] + self.verdicts["false"]
        return self.verdicts["true"] / judged if judged else None

    def gone_count(self, verdict: str) -> int:
        return sum(row["verdict"] == verdict for row in self.gone)

    @property
    def false_per_100(self) -> float:
        return 100 * self.verdicts["false"] / self.docstrings if self.docstrings else 0.0


def half_of(name: str) -> str:
    """The half a project belongs to: fixed by its name alone, before any labelling."""
    return "test" if int(hashlib.sha256(name.encode()).hexdigest(), 16) % 2 == 1 else "dev"


def read_projects(path: Path = PROJECTS) -> list[Project]:
    with path.open(newline="") as handle:
        projects = [
            Project(row["name"], row["repo"], row["commit"], row["folder"], row["half"])
            for row in csv.DictReader(handle)
        ]
    for p in projects:
        if p.half not in CHOSEN_HALVES and p.half != half_of(p.name):
            raise SystemExit(
                f"{path.name}: {p.name} is in half {p.half!r}, but the split rule puts it "
                f"in {half_of(p.name)!r} (see bench/precision.py)"
            )
    return projects


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


def run_docfact(root: Path, folder: str, select: str | None = None) -> dict:
    """`docfact check folder --format json` from the project's root, with the docfact of
    this interpreter (so PYTHONPATH decides which tree runs); ``select``: its --select."""
    command = [sys.executable, "-m", "docfact", "check", folder, "--format", "json", "--no-cache"]
    command += ["--select", select] if select else []
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
                d.get("sentence", ""),
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


def evaluate(
    project: Project, corpus: Path, labels: list[dict], select: str | None = None
) -> Outcome:
    root = corpus / project.name
    if not (root / project.folder).is_dir():
        raise SystemExit(
            f"{root / project.folder} is missing: export {project.repo} at "
            f"{project.commit} there first (see this script's docstring)"
        )
    result = run_docfact(root, project.folder, select)
    outcome = Outcome(project, result["units_checked"], factual_findings(result, root))
    own = {label_key(row): row for row in labels if row["project"] == project.name}
    matched = set()
    for finding in outcome.findings:  # one label covers every finding of its key (a name
        row = own.get(finding.key)  # written twice on one line is reported twice)
        if row is None:
            outcome.verdicts[""] += 1
            outcome.unlabelled.append(finding)
            outcome.judged.append((finding, ""))
        else:
            matched.add(finding.key)
            outcome.verdicts[row["verdict"]] += 1
            outcome.judged.append((finding, row["verdict"]))
    outcome.gone = sorted((row for key, row in own.items() if key not in matched), key=label_key)
    return outcome


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def total(name: str, outcomes: list[Outcome]) -> Outcome:
    summed = Outcome(Project(name, "", "", ""), 0, [])
    for o in outcomes:
        summed.docstrings += o.docstrings
        summed.findings += o.findings
        summed.verdicts.update(o.verdicts)
        summed.gone += o.gone
        summed.judged += o.judged
    return summed


def per_rule(outcomes: list[Outcome]) -> list[Outcome]:
    """One row per rule code; false alarms per 100 are over all the docstrings checked."""
    docstrings = sum(o.docstrings for o in outcomes)
    rules: dict[str, Outcome] = {}
    for o in outcomes:
        for finding, verdict in o.judged:
            named = Project(finding.code, "", "", "")
            rule = rules.setdefault(finding.code, Outcome(named, docstrings, []))
            rule.findings.append(finding)
            rule.verdicts[verdict] += 1
    return [rules[code] for code in sorted(rules)]


def table(title: str, outcomes: list[Outcome], rules_of: int | None = None) -> list[str]:
    """Rows of projects, or of rules when ``rules_of`` is the count of docstrings they were
    found in (every rule ran on all of them, so the overall row does not sum them)."""
    with_gone = rules_of is None
    header = (
        f"{title:<22}{'docstrings':>11}{'findings':>9}{'true':>6}{'false':>6}"
        f"{'unsure':>7}{'unlab.':>7}{'precision':>10}{'false/100':>10}"
    ) + (f"{'fixed':>6}{'lost':>5}" if with_gone else "")
    lines = [header, "-" * len(header)]
    lines += [_row(o, with_gone) for o in outcomes]
    summed = total("overall", outcomes)
    if rules_of is not None:
        summed.docstrings = rules_of
    lines += ["-" * len(header), _row(summed, with_gone)]
    return lines


def _row(o: Outcome, with_gone: bool) -> str:
    v = o.verdicts
    gone = f"{o.gone_count('false'):>6}{len(o.gone) - o.gone_count('false'):>5}"
    return (
        f"{o.project.name:<22}{o.docstrings:>11}{len(o.findings):>9}{v['true']:>6}"
        f"{v['false']:>6}{v['unsure']:>7}{v['']:>7}{_percent(o.precision):>10}"
        f"{o.false_per_100:>10.2f}"
    ) + (gone if with_gone else "")


def report(outcomes: list[Outcome]) -> list[str]:
    """Per project and per rule, for each half present, then for all of them together."""
    groups = [(half, [o for o in outcomes if o.project.half == half]) for half in HALVES]
    groups = [(f"{half} half", group) for half, group in groups if group]
    if len(groups) > 1:
        groups.append(("both halves", outcomes))
    lines = []
    for title, group in groups:
        lines += ["", f"== {title}: {len(group)} projects =="]
        lines += table("project", group)
        docstrings = sum(o.docstrings for o in group)
        lines += [""] + table("rule", per_rule(group), rules_of=docstrings)
    lines.append(
        f"targets: precision >= {TARGET_PRECISION:.0%}, "
        f"false alarms <= {TARGET_FALSE_PER_100} per 100 docstrings"
    )
    return lines


def todo_rows(outcomes: list[Outcome]) -> list[list[object]]:
    """Label rows to fill in (verdict and reason empty), then message and sentence."""
    return [
        [o.project.name, o.project.commit, f.path, f.line, f.code, f.subject, "", ""]
        + [f.message, f.sentence]
        for o in outcomes
        for f in o.unlabelled
    ]


def chosen(projects: list[Project], half: str, names: list[str] | None) -> list[Project]:
    """The projects of the half (every one for "all"), narrowed to ``names`` if given."""
    if names:
        unknown = sorted(set(names) - {p.name for p in projects})
        if unknown:
            raise SystemExit(f"{PROJECTS.name} has no project {', '.join(unknown)}")
        elsewhere = [p.name for p in projects if p.name in names and half not in ("all", p.half)]
        if elsewhere:
            raise SystemExit(
                f"{', '.join(elsewhere)} not in the {half} half: pass --half with its half"
            )
    return [p for p in projects if half in ("all", p.half) and (not names or p.name in names)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="folder holding one exported project per name")
    parser.add_argument(
        "--half",
        choices=(*HALVES, "all"),
        default="dev",
        help="which half to run (default dev: the test and fresh halves are blind until the end)",
    )
    parser.add_argument("--project", action="append", help="only these projects (repeatable)")
    parser.add_argument(
        "--todo", action="store_true", help="print the unlabelled findings as label rows to fill in"
    )
    parser.add_argument(
        "--select", help="rule codes docfact runs besides its defaults (DF102: the preview rule)"
    )
    parser.add_argument(
        "--judged",
        metavar="VERDICT",
        choices=VERDICTS,
        help="also list the findings labelled so (false: the false alarms left)",
    )
    arguments = parser.parse_args(argv)
    projects = chosen(read_projects(), arguments.half, arguments.project)
    labels = read_labels()
    outcomes = [evaluate(p, arguments.corpus, labels, arguments.select) for p in projects]
    print("\n".join(report(outcomes)))
    for o in outcomes:
        if o.unlabelled:
            print(f"\nunlabelled in {o.project.name}:")
            for f in o.unlabelled:
                print(f"  {f.path}:{f.line} {f.code} {f.message}")
        shown = [f for f, verdict in o.judged if verdict == arguments.judged]
        if shown:
            print(f"\n{arguments.judged} in {o.project.name}:")
            for f in shown:
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
        print()
        writer = csv.writer(sys.stdout)
        writer.writerow([*LABEL_COLUMNS, "message", "sentence"])
        writer.writerows(todo_rows(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
