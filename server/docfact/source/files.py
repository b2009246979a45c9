"""Finding and reading the source files to check (Python and Java)."""

from __future__ import annotations

import io
import os
import re
import stat
import tokenize
from collections.abc import Sequence
from pathlib import Path

import pathspec

from .walk import walk_folders

# Folders no one wants checked (as ruff skips them by default).
DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "__pycache__",
    "node_modules",
    "site-packages",
    "__pypackages__",
    "build",
    "dist",
    "_build",
    ".eggs",
)
SUFFIXES = (".py", ".pyi", ".java")


class SkippedFile(Exception):
    """A file that is not checked; the message is the one-line reason."""


def read_regular(
    path: Path, max_bytes: int, within: Sequence[Path] = (), limit: str = "max_file_bytes"
) -> bytes:
    """The bytes of the regular file at ``path`` (links followed), or SkippedFile: a FIFO
    would block the read forever, a device (a link to /dev/zero) would never end, and a
    file may grow between the size check and the read. With ``within`` (the folders being
    checked), a file whose links lead out of them is not read: a repository's
    ``notes.py -> ~/.ssh/id_rsa`` is not source to check (or to send to a model)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if within:
        real = resolved_inside(path, within)
        if real is None:
            raise SkippedFile("a link that leads out of the checked folder (not followed)")
        path, flags = real, flags | getattr(os, "O_NOFOLLOW", 0)  # a link now is a swap
    if os.path.realpath(path).startswith(("/proc/", "/sys/")):
        # "regular" files of the kernel's: /proc/kmsg blocks, and a read takes its messages
        raise SkippedFile("a file of the kernel's (/proc, /sys)")
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; nothing else notices it.
        descriptor = os.open(path, flags)
    except OSError as error:
        raise SkippedFile(f"cannot be read: {error.strerror or error}") from None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise SkippedFile("not a regular file")
        too_big = f"over the {max_bytes:,}-byte limit" + (f" ({limit})" if limit else "")
        if status.st_size > max_bytes:
            raise SkippedFile(too_big)
        try:
            data = handle.read(max_bytes + 1)
        except OSError as error:
            raise SkippedFile(f"cannot be read: {error.strerror or error}") from None
    if data is None:  # a "regular" file that would block (/proc/kmsg): nothing to read yet
        raise SkippedFile("cannot be read without waiting")
    if len(data) > max_bytes:
        raise SkippedFile(too_big)
    return data


def resolved_inside(path: Path, folders: Sequence[Path]) -> Path | None:
    """``path`` with its links resolved, when that lies in one of ``folders`` (theirs
    resolved too); else None."""
    real = Path(os.path.realpath(path))
    if any(real.is_relative_to(os.path.realpath(folder)) for folder in folders):
        return real
    return None


def decode_source(data: bytes) -> str:
    """Text of a Python source file, or SkippedFile saying why it has none."""
    if b"\0" in data[:8192]:
        raise SkippedFile("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SkippedFile(f"unknown source encoding: {error.msg}") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise SkippedFile(
            f"not valid {encoding} (byte {error.start}); declare the encoding with a coding line"
        ) from None
    except LookupError:  # a codec that is not a text encoding (rot13, base64)
        raise SkippedFile(
            f"its coding line names {encoding}, which is not a text encoding"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


# A .gitignore is the repository's, and its cost grows with its patterns (every path is
# matched against each): 100,000 lines made a check of 300 files take 92 s instead of 4.
GITIGNORE_BYTES = 1 << 20
GITIGNORE_LINES = 5000


def iter_python_files(
    root: Path, exclude: tuple[str, ...] = (), unreadable: list[tuple[str, str]] | None = None
) -> list[Path]:
    """Python and Java files under ``root``, honouring .gitignore files and ``exclude``
    patterns (checked when the settings are read). Folders that cannot be listed are added
    to ``unreadable`` with the reason."""
    if not root.is_dir():
        return [root]  # a file, or something that is not one: the reader says which
    excluded = pathspec.PathSpec.from_lines("gitignore", [*DEFAULT_EXCLUDES, *exclude])
    found: list[Path] = []
    ignores: list[tuple[Path, pathspec.PathSpec]] = []

    tell = None if unreadable is None else lambda path, why: unreadable.append((path, why))
    for folder, dirs, files in walk_folders(root, tell):
        here = Path(folder)
        gitignore = here / ".gitignore"
        if gitignore.is_file():
            try:
                data = read_regular(gitignore, GITIGNORE_BYTES, within=(root,), limit="")
            except SkippedFile as why:  # a link to /proc/kmsg blocked for ever
                if unreadable is not None:
                    unreadable.append((str(gitignore), f"not applied: {why}"))
            else:
                lines = data.decode("utf-8", "replace").splitlines()
                if len(lines) > GITIGNORE_LINES and unreadable is not None:
                    said = f"only its first {GITIGNORE_LINES:,} lines are applied"
                    unreadable.append((str(gitignore), said))
                costly = sum(map(too_costly, lines[:GITIGNORE_LINES]))
                if costly and unreadable is not None:
                    said = f"{costly} pattern(s) of over {MOST_WILDCARDS} wildcards not applied"
                    unreadable.append((str(gitignore), said))
                ignores.append((here, gitignore_spec(lines[:GITIGNORE_LINES])))
        dirs[:] = sorted(
            d
            for d in dirs
            if not (here / d / "pyvenv.cfg").is_file()  # a virtual environment, whatever its name
            and not _ignored(here / d, root, excluded, ignores, is_dir=True)
        )
        for name in sorted(files):
            candidate = here / name
            if name.endswith(SUFFIXES) and not _ignored(candidate, root, excluded, ignores):
                found.append(candidate)
    return found


def gitignore_spec(lines: list[str]) -> pathspec.PathSpec:
    """The patterns of a .gitignore, less the lines that are no pattern (git ignores a
    lone backslash too) and those too costly to match; each line compiled once."""
    compiled = pathspec.util.lookup_pattern("gitignore")
    valid = []
    for line in lines:
        try:
            pattern = compiled(line)
        except ValueError:
            continue
        if not _costly(pattern):
            valid.append(pattern)
    return pathspec.PathSpec(valid)


# A pattern is matched as a regular expression, and each unbounded wildcard in it (`*`,
# `**`, the "any folder" before an unanchored pattern) multiplies the backtracking on a
# long name: `*a*a*a*a*a*a*b` held `docfact check` for good on one file name of 250
# characters, and `**/a*/**/a*/**/b` on a deep path. Git's own matcher has no such cost;
# a pattern past this many is not applied (and in `exclude` refused).
MOST_WILDCARDS = 3


def too_costly(line: str) -> bool:
    """Whether the gitignore-style pattern ``line`` has over MOST_WILDCARDS wildcards."""
    try:
        return _costly(pathspec.util.lookup_pattern("gitignore")(line))
    except ValueError:
        return False


def _costly(pattern: pathspec.Pattern) -> bool:
    regex = getattr(pattern, "regex", None)
    text = regex.pattern if regex is not None else ""
    return len(re.findall(r"(?<!\\)[*+]", text)) > MOST_WILDCARDS


def _ignored(
    path: Path,
    root: Path,
    excluded: pathspec.PathSpec,
    ignores: list[tuple[Path, pathspec.PathSpec]],
    is_dir: bool = False,
) -> bool:
    suffix = "/" if is_dir else ""
    if excluded.match_file(path.relative_to(root).as_posix() + suffix):
        return True
    for base, spec in ignores:
        if (base == path or base in path.parents) and spec.match_file(
            path.relative_to(base).as_posix() + suffix
        ):
            return True
    return False


def module_name_for(path: Path, packages: dict[Path, tuple[str, ...]] | None = None) -> str:
    """Dotted module name: the file's stem, prefixed by every enclosing package.

    ``packages``: folder -> its package path, shared by the files of one discovery (so
    each folder is looked at once)."""
    path = Path(os.path.abspath(path))
    parts = _package_of(path.parent, {} if packages is None else packages)
    if path.stem != "__init__":
        parts += (path.stem,)
    return ".".join(parts) or path.parent.name


def _package_of(folder: Path, packages: dict[Path, tuple[str, ...]]) -> tuple[str, ...]:
    if folder not in packages:
        is_package = folder.parent != folder and (folder / "__init__.py").is_file()
        packages[folder] = (
            _package_of(folder.parent, packages) + (folder.name,) if is_package else ()
        )
    return packages[folder]
