"""Changed-code mode (`check --diff REF`): keep the findings of the units that changed
since a git revision.

A finding is kept when the unit it is in (function, method, class or module) is new since
REF, or its docstring changed, or its code changed while its docstring did not: the usual
way a docstring goes stale. A unit's code is its text with every docstring in it left out,
so that editing a method's docstring is not a change of its class's code. Units are
matched by qualified name (the n-th definition of a name with the n-th), in the file's
path at REF (renames followed), so a function moved within its file is unchanged.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .model import Module, Unit
from .source import java, python, untrusted_git
from .source.files import SkippedFile, decode_source, read_regular
from .source.lines import LineIndex

_GIT_TIMEOUT_S = 60


class DiffError(Exception):
    """No git, no repository or no such revision (said as one line, exit status 2)."""


@dataclass(frozen=True)
class _UnitText:
    docstring: str | None
    code: str


def _git(top: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return untrusted_git.run(top, *args, timeout=_GIT_TIMEOUT_S)
    except untrusted_git.GitFailed as error:
        raise DiffError(f"--diff needs git: {error}") from None


class ChangedUnits:
    """What changed in the working tree of the repository around ``where`` since ``ref``."""

    def __init__(self, ref: str, where: Path):
        start = where if where.is_dir() else where.parent
        found = _git(start, "rev-parse", "--show-toplevel")
        if found.returncode != 0:
            raise DiffError(f"--diff {ref}: {start} is not inside a git repository")
        self.top = Path(found.stdout.decode().strip()).resolve()
        commit = _git(
            self.top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"
        )
        if commit.returncode != 0:
            raise DiffError(f"--diff {ref}: no such commit, branch or tag in {self.top}")
        self.ref = ref
        self.commit = commit.stdout.decode().strip()
        self._renamed_from = self._renames()

    def _renames(self) -> dict[str, str]:
        """Path now -> path at REF, for the files git sees as renamed."""
        listed = _git(
            self.top,
            "diff",
            *untrusted_git.DIFF_OPTIONS,
            "--name-status",
            "-M",
            "-z",
            self.commit,
            "--",
        )
        fields = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
        renames, index = {}, 0
        while index < len(fields) and fields[index]:
            status = fields[index]
            if status.startswith(("R", "C")):
                renames[fields[index + 2]] = fields[index + 1]
                index += 3
            else:
                index += 2
        return renames

    def keep(self, diagnostics: list[dict]) -> list[dict]:
        """The diagnostics in units that changed (the files as they are now)."""
        changes: dict[str, _FileChanges | None] = {}
        kept = []
        for diagnostic in diagnostics:
            path = diagnostic["path"]
            if path not in changes:
                changes[path] = self._file_changes(Path(path))
            # None: nothing to compare with (a new, unreadable or outside file): all is new.
            found = changes[path]
            if found is None or found.changed_at(diagnostic["start"]):
                kept.append(diagnostic)
        return kept

    def _file_changes(self, path: Path) -> _FileChanges | None:
        try:
            relative = path.resolve().relative_to(self.top).as_posix()
            now = decode_source(read_regular(path, untrusted_git.BIG_FILE_BYTES))
        except (ValueError, OSError, RuntimeError, SkippedFile):  # RuntimeError: a link loop
            return None
        old_blob = f"{self.commit}:{self._renamed_from.get(relative, relative)}"
        # The size first: a blob of gigabytes of zeros is a few megabytes in the repository.
        size = _git(self.top, "cat-file", "-s", old_blob)
        if size.returncode != 0 or int(size.stdout or 0) > untrusted_git.BIG_FILE_BYTES:
            return None
        shown = _git(self.top, "cat-file", "blob", old_blob)
        if shown.returncode != 0:
            return None
        try:
            before = decode_source(shown.stdout)
        except SkippedFile:
            return None
        return _FileChanges(before, now, java=relative.endswith(".java"))


class _FileChanges:
    """The units of one file that changed between two of its texts."""

    def __init__(self, before: str, now: str, java: bool):
        self.lines = LineIndex(now)
        old = _parse(before, java)
        self.units = _parse(now, java)
        self.same_text = before == now
        self.old_texts = _unit_texts(before, old) if old is not None else None
        self.new_texts = _unit_texts(now, self.units) if self.units is not None else None

    def changed_at(self, position: dict) -> bool:
        if self.same_text:
            return False
        if self.units is None or self.new_texts is None or self.old_texts is None:
            return True
        offset = self.lines.offset(position["line"] - 1, position["column"] - 1)
        key = _owner(self.units, offset)
        if key is None:
            return True
        return self.old_texts.get(key) != self.new_texts[key]


def _parse(text: str, is_java: bool) -> Module | None:
    try:
        return java.parse_module(text) if is_java else python.parse_module(text)
    except (SkippedFile, RecursionError):
        return None


def _keys(module: Module) -> list[tuple[str, int]]:
    """(qualname, how many units of that name came before) for each unit, in order."""
    seen: dict[str, int] = {}
    keys = []
    for unit in module.units:
        keys.append((unit.qualname, seen.get(unit.qualname, 0)))
        seen[unit.qualname] = seen.get(unit.qualname, 0) + 1
    return keys


def _owner(module: Module, offset: int) -> tuple[str, int] | None:
    """The unit a finding at ``offset`` is about: the one whose docstring holds it, else
    the innermost one whose definition holds it (an override's name)."""
    keyed = list(zip(_keys(module), module.units))
    for key, unit in keyed:
        if (
            unit.docstring is not None
            and unit.docstring.literal.start <= offset <= unit.docstring.literal.end
        ):
            return key
    holding = [
        (unit.span.end - unit.span.start, key)
        for key, unit in keyed
        if unit.span.start <= offset <= unit.span.end
    ]
    return min(holding)[1] if holding else None


def _unit_texts(text: str, module: Module) -> dict[tuple[str, int], _UnitText]:
    literals = sorted(
        (u.docstring.literal for u in module.units if u.docstring is not None),
        key=lambda span: (span.start, span.end),
    )
    return {
        key: _UnitText(
            unit.docstring.value if unit.docstring else None, _code_of(text, unit, literals)
        )
        for key, unit in zip(_keys(module), module.units)
    }


def _code_of(text: str, unit: Unit, literals: list) -> str:
    """The unit's text with every docstring literal inside it left out."""
    pieces, at = [], unit.span.start
    for literal in literals:
        if (
            unit.span.start <= literal.start
            and literal.end <= unit.span.end
            and literal.start >= at
        ):
            pieces.append(text[at : literal.start])
            at = literal.end
    pieces.append(text[at : unit.span.end])
    return "".join(pieces)
