"""Finding and reading the source files to check (Python and Java)."""

from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pathspec

# Folders no one wants checked (as ruff skips them by default).
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", "__pycache__", "node_modules", "site-packages", "__pypackages__",
    "build", "dist", "_build", ".eggs",
)
SUFFIXES = (".py", ".pyi", ".java")


class SkippedFile(Exception):
    """A file that is not checked; the message is the one-line reason."""


@dataclass(frozen=True)
class SourceFile:
    path: Path  # as it should be shown: the argument joined with the relative path
    text: str


def read_source(path: Path, max_bytes: int) -> SourceFile:
    """The file's text, decoded as Python would (PEP 263), or SkippedFile."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise SkippedFile(f"{size:,} bytes is over the {max_bytes:,}-byte limit")
        data = path.read_bytes()
    except OSError as error:
        raise SkippedFile(f"cannot be read: {error.strerror or error}") from None
    return SourceFile(path, decode_source(data))


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
    return text[1:] if text.startswith("\ufeff") else text


def iter_python_files(root: Path, exclude: tuple[str, ...] = ()) -> list[Path]:
    """Python and Java files under ``root``, honouring .gitignore files and ``exclude``
    patterns."""
    if root.is_file():
        return [root]
    excluded = pathspec.PathSpec.from_lines("gitignore", [*DEFAULT_EXCLUDES, *exclude])
    found: list[Path] = []
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        gitignore = here / ".gitignore"
        if gitignore.is_file():
            try:
                lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
                ignores.append((here, pathspec.PathSpec.from_lines("gitignore", lines)))
            except OSError:
                pass
        dirs[:] = sorted(
            d for d in dirs if not _ignored(here / d, root, excluded, ignores, is_dir=True)
        )
        for name in sorted(files):
            candidate = here / name
            if name.endswith(SUFFIXES) and not _ignored(candidate, root, excluded, ignores):
                found.append(candidate)
    return found


def _ignored(path: Path, root: Path, excluded, ignores, is_dir: bool = False) -> bool:
    suffix = "/" if is_dir else ""
    if excluded.match_file(path.relative_to(root).as_posix() + suffix):
        return True
    for base, spec in ignores:
        if base == path or base in path.parents:
            if spec.match_file(path.relative_to(base).as_posix() + suffix):
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
        packages[folder] = _package_of(folder.parent, packages) + (folder.name,) if is_package else ()
    return packages[folder]
