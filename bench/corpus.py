"""Export the precision corpus: each project of bench/precision_projects.csv at its pinned commit.

The projects' git repositories are read from a mirrors folder, as ``owner+name/repo`` (the
layout the ``fetch`` tool leaves under /work/.mirror) or ``owner+name`` (a bare repository).
Each project is written to CORPUS/<name> with

    git --git-dir=<mirror> archive <commit> | tar -x -C CORPUS/<name>

A project already exported (its folder exists) is left alone, so a rerun exports only what
is missing; --force exports it again. With ``--tree checkout`` each project is instead a git
checkout at its commit (``git clone --shared`` of the mirror, the mirror never written to):
the tree a user has, with the history that docfact's history evidence reads.

Snapshots may lack their largest files (4 MiB and more, and Git LFS content): the blobs
the repository does not have are left out of the archive or the checkout (and listed), so
that the rest of the tree still exports. Third-party source never goes into
docfact's repository: the corpus folder lives outside it.

Usage: python bench/corpus.py MIRRORS CORPUS [--csv PROJECTS] [--project NAME ...] [--force]
           [--tree archive|checkout]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from precision import PROJECTS, Project, read_projects


def git_dir(mirrors: Path, repo: str) -> Path | None:
    """The mirror of ``owner/name``, or None when it has not been fetched."""
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def missing_blobs(git: Path, commit: str) -> list[str]:
    """Paths of the commit's files whose content the repository does not hold."""
    listing = subprocess.run(
        ["git", f"--git-dir={git}", "ls-tree", "-r", "-z", commit],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    blobs: dict[bytes, list[str]] = {}  # object id -> paths
    for entry in filter(None, listing):
        meta, path = entry.split(b"\t", 1)
        _mode, kind, oid = meta.split()
        if kind == b"blob":
            blobs.setdefault(oid, []).append(path.decode("utf-8", "surrogateescape"))
    checked = subprocess.run(
        ["git", f"--git-dir={git}", "cat-file", "--batch-check"],
        input=b"".join(oid + b"\n" for oid in blobs),
        capture_output=True,
        check=True,
    ).stdout.decode()
    absent = [line.split()[0] for line in checked.splitlines() if line.endswith(" missing")]
    return sorted(path for oid in absent for path in blobs[oid.encode()])


def check_out(mirror: Path, commit: str, tree: Path) -> list[str]:
    """A clone of the mirror sharing its objects, at ``commit`` (detached), without the
    files the mirror lacks (git cannot check out a blob it does not have); returns those."""
    git = ["git", "-C", str(tree)]
    subprocess.run(
        ["git", "clone", "--quiet", "--shared", "--no-checkout", str(mirror), str(tree)],
        check=True,
    )
    lacking = missing_blobs(mirror, commit)
    if lacking:  # non-cone patterns: everything but those paths
        subprocess.run([*git, "config", "core.sparseCheckout", "true"], check=True)
        patterns = ["/*", *(f"!/{_escaped(path)}" for path in lacking)]
        (tree / ".git" / "info").mkdir(exist_ok=True)
        (tree / ".git" / "info" / "sparse-checkout").write_text("\n".join(patterns) + "\n")
    subprocess.run([*git, "checkout", "--quiet", "--detach", commit], check=True)
    return lacking


def _escaped(path: str) -> str:
    """A path as a gitignore-style pattern that matches only itself."""
    return "".join("\\" + c if c in "*?[]!#\\" else c for c in path)


def export(project: Project, git: Path, target: Path) -> list[str]:
    """Write the project's tree at its commit to ``target``; returns the paths left out."""
    left_out = missing_blobs(git, project.commit)
    excludes = [f":(exclude,literal){path}" for path in left_out]
    partial = Path(tempfile.mkdtemp(prefix=f".{project.name}.", dir=target.parent))
    try:
        archive = subprocess.run(
            ["git", f"--git-dir={git}", "archive", project.commit, "--", ".", *excludes],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(partial)], input=archive, check=True)
        if target.exists():
            shutil.rmtree(target)
        partial.rename(target)  # a half-written export is never taken for a whole one
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return left_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", type=Path, help="folder of the projects' git mirrors")
    parser.add_argument("corpus", type=Path, help="folder to export the projects into")
    parser.add_argument("--csv", type=Path, default=PROJECTS, help="the projects' list")
    parser.add_argument("--project", action="append", help="only these projects (repeatable)")
    parser.add_argument("--force", action="store_true", help="export again what is there")
    parser.add_argument(
        "--tree",
        choices=("archive", "checkout"),
        default="archive",
        help="a plain export (default) or a git checkout with the project's history",
    )
    arguments = parser.parse_args(argv)
    projects = [
        p
        for p in read_projects(arguments.csv)
        if not arguments.project or p.name in arguments.project
    ]
    arguments.corpus.mkdir(parents=True, exist_ok=True)
    failed = 0
    for project in projects:
        target = arguments.corpus / project.name
        if target.exists() and not arguments.force:
            continue
        git = git_dir(arguments.mirrors, project.repo)
        if git is None:
            print(f"{project.name}: no mirror of {project.repo} under {arguments.mirrors}")
            failed += 1
            continue
        try:
            if arguments.tree == "checkout":
                if target.exists():
                    shutil.rmtree(target)
                left_out = check_out(git, project.commit, target)
            else:
                left_out = export(project, git, target)
        except subprocess.CalledProcessError as error:
            reason = error.stderr.decode(errors="replace").strip() if error.stderr else error
            print(f"{project.name}: not exported ({reason})")
            failed += 1
            continue
        note = f", left out {len(left_out)} file(s) the mirror lacks" if left_out else ""
        print(f"{project.name}: exported {project.commit[:12]} from {git}{note}")
        for path in left_out:
            print(f"  left out: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
