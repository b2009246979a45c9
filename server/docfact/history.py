"""What git remembers of a name: a definition or a parameter the project had and has no more.

A docstring that names something gone is the commonest stale docstring: a parameter
renamed, a helper removed. A finding that says a name does not exist stands when the
project's history shows the name was there (``checks/evidence.py``), and says when it went
and what took its place: "`create_index_sig` was removed in abc1234 (2023-05-02);
`build_index` replaced it".

The history is read once per repository and HEAD, in one pass over the diffs of the last
``MAX_COMMITS`` commits that touched Python files (``git log -p``): every removed ``def``
and ``class``, instance attribute (``self.x = ...``) and module global, every removed
parameter (of a removed signature line, or a line of a multi-line signature in a hunk git
places in that function), and what the same commit added to the same file. Outside git,
in a shallow clone, or when git fails or takes too long, there is no history, and only
near misses count as evidence.
"""

from __future__ import annotations

import difflib
import logging
import re
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from .checks.evidence import HISTORY
from .model import Evidence, Finding, Fix
from .source import untrusted_git

log = logging.getLogger(__name__)

MAX_COMMITS = 1000
GIT_TIMEOUT_S = 60.0
_COMMIT = "\x00commit "
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\((.*)$")
_CLASS = re.compile(r"^\s*class\s+(\w+)\b")
# An attribute set on an instance, or a module's global (``TIMEOUT = 5``, ``x: int = 0``).
_ASSIGNMENT = re.compile(r"^(?:\s+self\.)?([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)")
_PARAMETER_LINE = re.compile(r"^\s*\**(\w+)\s*(?::[^=]*)?(?:=.*)?,?\s*(?:\)\s*(?:->.*)?:?)?\s*$")
_PARAMETER = re.compile(r"(?:^|,)\s*\**(\w+)\s*(?=[:=,)]|$)")
_NOT_PARAMETERS = frozenset({"self", "cls"})


@dataclass(frozen=True)
class Change:
    commit: str  # abbreviated hash
    date: str  # YYYY-MM-DD
    path: str  # the file, relative to the repository


@dataclass
class _Index:
    """Newest removal of each name (the log is read newest first), and what each commit
    added to each file."""

    definitions: dict[str, Change] = field(default_factory=dict)
    parameters: dict[tuple[str, str], Change] = field(default_factory=dict)
    # What each commit added: definitions by (commit, path), parameters by (commit, function)
    added_definitions: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    added_parameters: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    # ... and what it removed (see ``_new``)
    removed_definitions: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    removed_parameters: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    # Definitions each commit added, in any file: one removed and added by the same commit
    # was moved (to tests/, to another package of the repository), not removed.
    added_in_commit: dict[str, set[str]] = field(default_factory=dict)


class NameHistory:
    """The removed names of one git repository at its current HEAD."""

    def __init__(self, top: Path, head: str) -> None:
        self.top = top
        self.head = head
        self._index: _Index | None = None

    @classmethod
    def of(cls, folder: Path) -> NameHistory | None:
        """The history of the repository holding ``folder``; None outside git, in a
        shallow clone, or when git is missing."""
        start = folder if folder.is_dir() else folder.parent
        top = _git(start, "rev-parse", "--show-toplevel")
        if not top:
            return None
        if _git(start, "rev-parse", "--is-shallow-repository") != "false":
            return None
        head = _git(start, "rev-parse", "HEAD")
        return cls(Path(top), head) if head else None

    def __call__(
        self, finding: Finding, still_defined: Callable[[str], bool] = lambda name: False
    ) -> Finding | None:
        """A name-existence finding told by its history (when the name went, and what
        replaced it as an unsafe fix), or None when git knows nothing of the name.
        A definition removed from one file that the project ``still_defined`` elsewhere
        was moved, not removed: that tells nothing of the reference."""
        name = finding.subject.rsplit(".", 1)[-1]
        if not name.isidentifier():
            return None
        index = self._read()
        function = finding.symbol.rsplit(".", 1)[-1]
        change = index.parameters.get((function, name))
        if change is not None and name in index.added_parameters.get((change.commit, function), ()):
            change = None  # a line of the signature rewritten, the parameter kept
        if change is not None and "." not in finding.subject:
            what = f"was a parameter of `{function}` until"
            in_function = (change.commit, function)
            added = _new(index.added_parameters, index.removed_parameters, in_function)
        else:
            change = index.definitions.get(name)
            if change is None or still_defined(name) or not _api_name(name, change.path):
                return None
            if name in index.added_in_commit.get(change.commit, ()):
                return None  # moved, perhaps out of the folder checked
            what = "was removed in"
            where = (change.commit, change.path)
            added = _new(index.added_definitions, index.removed_definitions, where)
        said = f"`{name}` {what} {change.commit} ({change.date})"
        successor = _successor(name, added)
        fix = finding.fix
        if successor:
            said += f"; `{successor}` replaced it"
            if fix is None:
                replacement = finding.subject[: -len(name)] + successor
                fix = Fix(f"Replace with `{successor}`", replacement, finding.span, "unsafe")
        what_is_wrong = finding.message.split("; did you mean", 1)[0]
        proof = Evidence(name, change.path, 0, said, HISTORY)
        return replace(
            finding,
            message=f"{what_is_wrong}: {said}",
            evidence=(*finding.evidence, proof),
            fix=fix,
        )

    def read(self) -> None:
        """Read the log now: it can take seconds, so the editor does it in a worker
        thread before it uses the history."""
        self._read()

    def _read(self) -> _Index:
        if self._index is None:
            self._index = _index(self.top)
        return self._index


def _new(
    added: dict[tuple[str, str], set[str]],
    removed: dict[tuple[str, str], set[str]],
    key: tuple[str, str],
) -> set[str]:
    """What a commit added at ``key`` and did not remove there too: a changed line is removed
    and added again, and the names it kept (the other parameters of a one-line signature)
    replaced nothing."""
    return added.get(key, set()) - removed.get(key, set())


# Folders whose definitions are no API a docstring names: tests, examples, documentation.
_NOT_API = re.compile(r"(?:^|/)(?:tests?|testing|examples?|docs?|conftest\.py|test_[^/]*)(?:/|$)")


def _api_name(name: str, path: str) -> bool:
    """Whether a definition removed from ``path`` tells of a name a docstring may still
    name: not a plain word (a ``build`` task of an example, numpy's ``ndarray``, which an
    alias once bound), and not a test's or an example's."""
    return not (name.isalpha() and name.islower()) and _NOT_API.search(path) is None


# A name this short (a type variable ``T``, a loop's ``i``) is never what took the place
# of a name a docstring tells of, even when a commit added nothing else.
_SHORTEST_SUCCESSOR = 3


def _successor(name: str, added: set[str]) -> str | None:
    """What the commit that removed ``name`` added in its place (to the same function or
    file): the one name it added, else the most alike, if any is alike at all."""
    candidates = sorted(added - {name})
    if len(candidates) == 1 and len(candidates[0]) >= _SHORTEST_SUCCESSOR:
        return candidates[0]
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
    return close[0] if close else None


def _git(folder: Path, *args: str) -> str:
    try:
        done = untrusted_git.run(folder, *args, timeout=10)
    except untrusted_git.GitFailed:
        return ""
    return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else ""


def _index(top: Path) -> _Index:
    index = _Index()
    # The repository is untrusted, and so is its .git/config: it runs nothing here.
    log_args = [
        "log",
        *untrusted_git.DIFF_OPTIONS,
        f"--max-count={MAX_COMMITS}",
        "--no-merges",
        "--no-color",
        "--no-renames",
        "-p",
        "-U2",
        "--date=short",
        "--format=%x00commit %h %ad",
        "--",
        "*.py",
    ]
    try:
        command, environment = untrusted_git.command(top, *log_args)
        with subprocess.Popen(
            command,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
        ) as process:
            assert process.stdout is not None  # started with PIPE
            _Reader(index).read(process.stdout)
            process.wait(timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired, untrusted_git.GitFailed) as error:
        log.warning("git history of %s not read (%s): only near misses count", top, error)
        return _Index()
    return index


class _Reader:
    """The state of one pass over ``git log -p``: which commit and file, and whether the
    line read is inside a signature (its ``def`` line seen as context, removed or added)."""

    def __init__(self, index: _Index) -> None:
        self.index = index
        self.change = Change("", "", "")
        self.signature = ""  # the function whose parameter lines are being read

    def read(self, lines: Iterable[str]) -> None:
        for line in lines:
            self._line(line.rstrip("\n"))

    def _line(self, line: str) -> None:
        if line.startswith(_COMMIT):
            commit, _, date = line[len(_COMMIT) :].partition(" ")
            self.change = Change(commit, date, "")
        elif line.startswith(("--- ", "+++ ")):
            # A deleted file's new path is /dev/null: it is still named by its old one.
            path = line[4:]
            if path != "/dev/null":
                self.change = replace(self.change, path=_without_prefix(path))
        elif line.startswith(("---", "diff ", "index ")):
            pass
        elif line.startswith("@@"):
            self.signature = ""  # a hunk starts anywhere: nothing carries over
        elif line[:1] in ("-", "+", " "):
            self._code(line[0], line[1:])

    def _code(self, sign: str, code: str) -> None:
        definition = _DEF.match(code)
        cls = _CLASS.match(code)
        if definition:
            name, rest = definition.groups()
            self._names(sign, [name], rest)
            self.signature = "" if _closes(rest) else name
        elif cls:
            self._names(sign, [cls.group(1)], "")
            self.signature = ""
        elif not self.signature and (assigned := _ASSIGNMENT.match(code)):
            self._names(sign, [assigned.group(1)], "")
        elif self.signature and _PARAMETER_LINE.match(code):
            self._names(sign, [], code)
            if _closes(code):
                self.signature = ""
        else:
            self.signature = ""

    def _names(self, sign: str, definitions: list[str], parameters: str) -> None:
        """Remember what a removed (``-``) or added (``+``) line defines."""
        function = definitions[0] if definitions else self.signature
        found = [
            n for n in _PARAMETER.findall(parameters.split(")")[0]) if n not in _NOT_PARAMETERS
        ]
        commit = self.change.commit
        if sign == "-":
            for name in definitions:
                self._remember(self.index.definitions, name)
            for name in found:
                self._remember(self.index.parameters, (function, name))
            by_path, by_function = self.index.removed_definitions, self.index.removed_parameters
        elif sign == "+":
            by_path, by_function = self.index.added_definitions, self.index.added_parameters
        else:
            return
        by_path.setdefault((commit, self.change.path), set()).update(definitions)
        if sign == "+":
            self.index.added_in_commit.setdefault(commit, set()).update(definitions)
        if found:
            by_function.setdefault((commit, function), set()).update(found)

    def _remember(self, table: dict, key: object) -> None:
        if key not in table:  # newest first: the first removal read is the last one made
            table[key] = self.change


def _without_prefix(path: str) -> str:
    return path[2:] if path.startswith(("a/", "b/")) else path


def _closes(text: str) -> bool:
    return text.count(")") >= text.count("(") + 1
