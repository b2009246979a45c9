"""Recall on real docstring mistakes: docstring-only fix commits of public projects.

Each case of ``bench/fix_commits.csv`` is a commit that changed a docstring and nothing
else of the code (mined with ``bench/fix_commits_mine.py``, labelled by hand): the text
before named something that did not exist, or said something the code did not do. The
case is checked as a user would check it, in its project's own tree: docfact runs on the
project's package at the parent commit and must report a finding on the line the fix
changed; at the fix commit it must report nothing on the fixed line. A case counts as
caught only when both hold.

A case was kept when the changed text is code markup (backquotes, a cross-reference role,
an Epytext link or C{...}, a doctest line), a documented entry's name or type, and named a
Python object that did not exist at the parent commit; prose typos, string values,
configuration keys of plain prose, file names and literal blocks (``::`` examples that are
not run) were left out. One case per commit (its first such line). Dropped after reading:
twisted f879dee (``C{IMailboxListener}`` to ``C{IMailboxIMAPListener}`` in
twisted/mail/interfaces.py): the old name existed (twisted.mail.imap4) and the new one
only from the next commit (11e379a, which moved the class), a refactoring in two steps.

Rows carry a split: ``dev`` cases were looked at while docfact was built; ``heldout``
ones (whole projects) only measured, to see whether the rules carry over.

Nothing is fetched: the argument is a folder holding the projects' git mirrors, as
``owner+name/repo`` (the layout ``fetch`` leaves) or ``owner+name`` (a bare repository).

Each commit's tree is, by default (``--tree checkout``), a real git checkout: a
``git clone --shared --no-checkout`` of the mirror (its objects borrowed, the mirror never
written to) with the commit checked out detached, so a checker that reads the project's
history sees the commits before it, as in a user's clone. Files a snapshot lacks (blobs of
4 MiB and more) are left out of the checkout by a sparse-checkout pattern. ``--tree
archive`` instead extracts only the package folder with ``git archive`` (no history, no
files around the package), as the rounds before issue 22 measured.

``--select CODES`` is passed on to docfact (``--select DF102``: the preview rule DF102 too,
as a user who selects it by its code runs it).

Usage: python bench/fix_commits.py MIRRORS [--csv bench/fix_commits.csv] [--split dev]
           [--project NAME ...] [--tree checkout|archive] [--select CODES] [--verbose]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from corpus import check_out

HERE = Path(__file__).resolve().parent
DOCFACT = Path(sys.executable).parent / "docfact"
# Folders that hold a project's packages rather than being one.
_CONTAINERS = frozenset({"src", "lib", "python"})


@dataclass(frozen=True)
class Case:
    project: str
    repo: str
    parent: str
    fix: str
    path: str
    line_before: int
    line_after: int
    kind: str
    identifier: str
    split: str

    @property
    def package(self) -> str:
        """The folder docfact checks: the top-level package holding ``path``."""
        parts = self.path.split("/")
        if parts[0] in _CONTAINERS and len(parts) > 2:
            return "/".join(parts[:2])
        return parts[0] if len(parts) > 1 else self.path


def read_cases(path: Path) -> list[Case]:
    with path.open(newline="") as handle:
        return [
            Case(
                row["project"],
                row["repo"],
                row["parent"],
                row["fix"],
                row["path"],
                int(row["line_before"]),
                int(row["line_after"]),
                row["kind"],
                row["identifier"],
                row["split"],
            )
            for row in csv.DictReader(handle)
        ]


def git_dir(mirrors: Path, repo: str) -> Path:
    folder = mirrors / repo.replace("/", "+")
    return folder / "repo" if (folder / "repo").is_dir() else folder


class Checker:
    """docfact's findings per line of a project's package at a commit, one run per tree
    (a run's cache is shared across commits: unchanged files are not checked again)."""

    def __init__(
        self, mirrors: Path, work: Path, checkout: bool = True, select: str | None = None
    ) -> None:
        self.mirrors, self.work, self.checkout = mirrors, work, checkout
        self.select = ["--select", select] if select else []
        self.cache = work / "cache"
        self.runs: dict[tuple[str, str, str], dict[tuple[str, int], list[dict]]] = {}

    def findings(self, case: Case, commit: str) -> dict[tuple[str, int], list[dict]]:
        key = (case.repo, commit, case.package)
        if key not in self.runs:
            self.runs[key] = self._run(case, commit)
        return self.runs[key]

    def _run(self, case: Case, commit: str) -> dict[tuple[str, int], list[dict]]:
        tree = self.work / f"{case.project}-{commit[:12]}"
        mirror = git_dir(self.mirrors, case.repo)
        if self.checkout:
            check_out(mirror, commit, tree)
        else:
            export_package(mirror, commit, case.package, tree)
        done = subprocess.run(
            [
                str(DOCFACT),
                "check",
                case.package,
                "--format",
                "json",
                "--fail-on",
                "never",
                "--cache-dir",
                str(self.cache),
                *self.select,
            ],
            capture_output=True,
            text=True,
            cwd=tree,
        )
        if done.returncode != 0:
            raise RuntimeError(f"docfact failed on {case.project} {commit}: {done.stderr[-2000:]}")
        by_line: dict[tuple[str, int], list[dict]] = defaultdict(list)
        for finding in json.loads(done.stdout)["diagnostics"]:
            for line in range(finding["start"]["line"], finding["end"]["line"] + 1):
                by_line[finding["path"], line].append(finding)
        subprocess.run(["rm", "-rf", str(tree)], check=True)
        return by_line


def export_package(mirror: Path, commit: str, package: str, tree: Path) -> None:
    """Only the package folder at ``commit``, from ``git archive``: no history."""
    tree.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "--git-dir", str(mirror), "archive", commit, "--", package],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)


def judge(checker: Checker, case: Case) -> tuple[bool, bool, list[dict], list[dict]]:
    """(flagged before the fix, clean after it, the findings on each line)."""
    before = checker.findings(case, case.parent).get((case.path, case.line_before), [])
    after = checker.findings(case, case.fix).get((case.path, case.line_after), [])
    return bool(before), not after, before, after


def report(results: list[tuple[Case, bool, bool, list, list]], verbose: bool) -> str:
    lines = []
    for split in sorted({case.split for case, *_ in results}):
        chosen = [r for r in results if r[0].split == split]
        lines.append(
            f"== {split}: {len(chosen)} cases, {len({c.project for c, *_ in chosen})} projects =="
        )
        for title, key in (("kind", lambda c: c.kind), ("project", lambda c: c.project)):
            groups = defaultdict(list)
            for result in chosen:
                groups[key(result[0])].append(result)
            lines.append(f"  per {title}:")
            for name, group in sorted(groups.items()):
                caught = sum(1 for _, flagged, clean, *_ in group if flagged and clean)
                lines.append(f"    {name:28} {caught:3}/{len(group):3}  {caught / len(group):.2f}")
        caught = sum(1 for _, flagged, clean, *_ in chosen if flagged and clean)
        flagged = sum(1 for _, f, *_ in chosen if f)
        lines.append(
            f"  overall: {caught}/{len(chosen)} = {caught / len(chosen):.2f} "
            f"(flagged before: {flagged}, of those still flagged after: "
            f"{sum(1 for _, f, c, *_ in chosen if f and not c)})"
        )
    lines.append("")
    for case, flagged, clean, before, after in results:
        if flagged and clean and not verbose:
            continue
        verdict = "ok" if flagged and clean else "MISSED" if not flagged else "STILL FLAGGED"
        lines.append(
            f"{verdict:13} {case.split:7} {case.kind:18} {case.project}:{case.path}:"
            f"{case.line_before} `{case.identifier}` ({case.fix[:10]})"
        )
        for finding in before if flagged else ():
            lines.append(f"      before: {finding['code']} {finding['message'][:110]}")
        for finding in after:
            lines.append(f"      after:  {finding['code']} {finding['message'][:110]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirrors", type=Path, help="folder of the projects' git mirrors")
    parser.add_argument("--csv", type=Path, default=HERE / "fix_commits.csv")
    parser.add_argument("--split", action="append", help="only these splits (dev, heldout)")
    parser.add_argument("--project", action="append", help="only these projects")
    parser.add_argument(
        "--tree",
        choices=("checkout", "archive"),
        default="checkout",
        help="a git checkout with history (default) or the package alone from git archive",
    )
    parser.add_argument("--select", help="rule codes docfact runs besides its defaults")
    parser.add_argument("--verbose", action="store_true", help="list caught cases too")
    args = parser.parse_args(argv)
    cases = [
        c
        for c in read_cases(args.csv)
        if (not args.split or c.split in args.split)
        and (not args.project or c.project in args.project)
    ]
    missing = sorted({c.repo for c in cases if not git_dir(args.mirrors, c.repo).is_dir()})
    if missing:
        print(f"no mirror in {args.mirrors} for: {', '.join(missing)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="docfact-fixes-") as work:
        checker = Checker(
            args.mirrors, Path(work), checkout=args.tree == "checkout", select=args.select
        )
        results = []
        for case in sorted(cases, key=lambda c: (c.repo, c.parent)):
            results.append((case, *judge(checker, case)))
            if sys.stderr.isatty():
                print(f"\r{len(results)}/{len(cases)}", end="", file=sys.stderr)
    print(report(results, args.verbose))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    sys.exit(main())
