"""Find candidate docstring-only fix commits in a project's git history.

A candidate is a commit (one parent) whose changed Python files keep the same syntax
tree once docstrings are left out, while some docstring changed: the code untouched, a
docstring corrected. In each changed docstring, a word that looks like code (in
backquotes, in a cross-reference role, in a doctest, a documented entry's name, or a
dotted, snake_case or CamelCase word) replaced by another is printed, with the file, the
line before and after, and both lines, for a person to label (``bench/fix_commits.csv``).

Nothing is fetched: the argument is a bare git mirror (``git --git-dir``), read with git.

Usage: python bench/fix_commits_mine.py MIRROR [--rev HEAD] [--max-files 6] > candidates.tsv
"""

from __future__ import annotations

import argparse
import ast
import difflib
import re
import subprocess
import sys
import warnings

_WORD = re.compile(r"[A-Za-z_][\w.]*\w|[A-Za-z_]")
_CODE_LIKE = re.compile(r"\w+\.\w+|[a-z0-9]+_\w+|_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*")


def commits(mirror: str, rev: str):
    """(commit, parent, [(path, old blob, new blob)]) of every non-merge commit."""
    log = subprocess.run(
        [
            "git",
            "--git-dir",
            mirror,
            "log",
            "--no-merges",
            "--raw",
            "--no-abbrev",
            "--no-renames",
            "--format=C %H %P",
            rev,
        ],
        capture_output=True,
        text=True,
        errors="replace",
        check=True,
    ).stdout
    current = None
    for line in log.splitlines():
        if line.startswith("C "):
            if current:
                yield current
            parts = line.split()
            current = (parts[1], parts[2] if len(parts) > 2 else None, [])
        elif line.startswith(":") and current:
            meta, path = line.split("\t", 1)
            _, _, old, new, status = meta.split()
            current[2].append((path, old, new, status))
    if current:
        yield current


class Blobs:
    """Blob contents through one ``git cat-file --batch``."""

    def __init__(self, mirror: str) -> None:
        self.process = subprocess.Popen(
            ["git", "--git-dir", mirror, "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, blob: str) -> str:
        self.process.stdin.write(blob.encode() + b"\n")
        self.process.stdin.flush()
        header = self.process.stdout.readline().split()
        if len(header) < 3:
            return ""
        data = self.process.stdout.read(int(header[2]) + 1)[:-1]
        return data.decode("utf-8", "replace")


def _docstrings(tree: ast.AST) -> dict[str, tuple[str, int]]:
    """qualname -> (docstring, line of the literal's start) for every documented scope."""
    found = {}

    def visit(node, prefix):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            found[prefix or "<module>"] = (body[0].value.value, body[0].value.lineno)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{prefix}.{child.name}" if prefix else child.name)

    visit(tree, "")
    return found


def _without_docstrings(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0] = ast.Pass()
    return ast.dump(tree, include_attributes=False)


def _parse(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError):
            return None


def _replacements(old: str, new: str):
    """(old word, new word, old line index, new line index) of words replaced."""

    def tokens(text):
        out = []
        for number, line in enumerate(text.split("\n")):
            out += [(m.group(), number, line) for m in _WORD.finditer(line)]
        return out

    a, b = tokens(old), tokens(new)
    matcher = difflib.SequenceMatcher(None, [t[0] for t in a], [t[0] for t in b], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or i2 - i1 > 3 or j2 - j1 > 3:
            continue
        for k in range(i1, i2):
            word, line, text = a[k]
            partner = b[min(j1 + (k - i1), j2 - 1)]
            if _looks_like_code(word, text):
                yield word, partner[0], line, partner[1], text, partner[2]


def _looks_like_code(word: str, line: str) -> bool:
    stripped = line.strip()
    if stripped.startswith((">>>", "...")):
        return not re.search(
            rf"[\"'][^\"']*\b{re.escape(word)}\b[^\"']*[\"']", line
        )  # not in a string
    if re.search(rf"[`{{]~?\.?[\w.]*{re.escape(word)}", line) or re.search(
        rf":\w+ {re.escape(word)}:", line
    ):
        return True
    if re.match(rf"(?:\*{{0,2}}){re.escape(word)}\s*(?:\(|:)", stripped):
        return True  # an entry: "name (type): ..." or "name : type"
    return bool(_CODE_LIKE.fullmatch(word))


class ProjectNames:
    """The identifiers of a commit's Python code (docstrings excluded), cached by blob."""

    def __init__(self, mirror: str, blobs: Blobs) -> None:
        self.mirror, self.blobs, self.by_blob = mirror, blobs, {}

    def at(self, commit: str) -> set[str]:
        listing = subprocess.run(
            ["git", "--git-dir", self.mirror, "ls-tree", "-r", commit],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        names = set()
        for line in listing.splitlines():
            meta, path = line.split("\t", 1)
            if path.endswith(".py") and meta.split()[1] == "blob":
                names |= self._names(meta.split()[2], path)
        return names

    def _names(self, blob: str, path: str) -> set[str]:
        if blob not in self.by_blob:
            tree = _parse(self.blobs.read(blob))
            found = set(re.split(r"[/.]", path[:-3]))
            for node in ast.walk(tree) if tree is not None else ():
                for attribute in ("id", "attr", "name", "arg", "asname", "module"):
                    value = getattr(node, attribute, None)
                    if isinstance(value, str):
                        found.update(value.split("."))
            self.by_blob[blob] = frozenset(found)
        return self.by_blob[blob]


def _bound_in(word: str, docstring: str) -> bool:
    """Whether the docstring's own examples bind ``word`` (``>>> word = ...``, ``def word``)."""
    head = re.escape(word.split(".")[0])
    return (
        re.search(
            rf"(?:>>>|\.\.\.)\s*(?:(?:def|class)\s+{head}\b|{head}\s*=[^=]|for\s+{head}\b"
            rf"|(?:from\s+\S+\s+)?import\s+.*\b{head}\b)",
            docstring,
        )
        is not None
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirror")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--max-files", type=int, default=6)
    args = parser.parse_args(argv)
    blobs = Blobs(args.mirror)
    project = ProjectNames(args.mirror, blobs)
    for commit, parent, changes in commits(args.mirror, args.rev):
        python = [c for c in changes if c[0].endswith(".py")]
        if parent is None or not python or len(python) > args.max_files:
            continue
        if any(status != "M" for _, _, _, status in python):
            continue
        found = []
        for path, old_blob, new_blob, _ in python:
            old_text, new_text = blobs.read(old_blob), blobs.read(new_blob)
            old_tree, new_tree = _parse(old_text), _parse(new_text)
            if old_tree is None or new_tree is None:
                found = None
                break
            old_docs, new_docs = _docstrings(old_tree), _docstrings(new_tree)
            if _without_docstrings(old_tree) != _without_docstrings(new_tree):
                found = None
                break
            for qualname, (old_doc, old_line) in old_docs.items():
                new_doc, new_line = new_docs.get(qualname, ("", 0))
                if old_doc == new_doc or not new_doc:
                    continue
                for word, replacement, line, new_index, text, new_text_line in _replacements(
                    old_doc, new_doc
                ):
                    if _bound_in(word, old_doc):
                        continue
                    found.append(
                        (
                            path,
                            qualname,
                            old_line + line,
                            new_line + new_index,
                            word,
                            replacement,
                            text.strip(),
                            new_text_line.strip(),
                        )
                    )
        if not found:
            continue
        names = project.at(parent)
        for item in found:
            word = item[4]
            if all(part in names for part in word.split(".")):
                continue  # the old text named something the code has
            print("\t".join([commit[:12], parent[:12], *map(str, item)]))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
