"""Which files are the user's own source: the server never analyses the rest.

A workspace holds much that its owner did not write: virtual environments (any folder
with a ``pyvenv.cfg``, conda's ``conda-meta``), ``site-packages``, ``node_modules``,
``.git``, build folders, and whatever ``.gitignore`` or ``exclude`` names. Files there
arrive by file events (installing a package creates thousands), by the client opening
them (go to definition) and by workspace diagnostics; all of them ask ``owned`` first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pathspec

from ..source.files import DEFAULT_EXCLUDES, SkippedFile, gitignore_spec, read_regular

# Folders whose files are never a project's own, wherever they are (outside a workspace
# folder too: a library opened by "go to definition").
_INSTALLED = frozenset({"site-packages", "dist-packages", "node_modules"})
_GITIGNORE_BYTES = 1 << 20


def is_environment(folder: Path) -> bool:
    """Whether ``folder`` is a Python environment (venv, virtualenv, conda)."""
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


class Ownership:
    """``owned(path)``; ``folders`` are the workspace folders, ``exclude_of(folder)`` the
    ``exclude`` patterns in force there. Answers are cached per folder; ``forget`` drops
    them when a .gitignore or the settings change."""

    def __init__(
        self, folders: Callable[[], list[Path]], exclude_of: Callable[[Path], tuple[str, ...]]
    ) -> None:
        self._folders = folders
        self._exclude_of = exclude_of
        self._lock = threading.Lock()  # file events are sorted in a worker thread
        self._environments: set[Path] = set()
        self._gitignores: dict[Path, pathspec.PathSpec | None] = {}
        self._excludes: dict[Path, pathspec.PathSpec] = {}

    def forget(self) -> None:
        with self._lock:
            self._environments.clear()
            self._gitignores.clear()
            self._excludes.clear()

    def owned(self, path: Path) -> bool:
        path = Path(path).absolute()
        folder = self._folder_of(path)
        ancestors = list(reversed(path.parents))
        if folder is None:  # outside the workspace: only installed code is known as such
            return not (
                _INSTALLED.intersection(path.parts[:-1])
                or any(self._environment(a) for a in ancestors)
            )
        # Below the workspace folder only: a project kept in a venv's own folder is still
        # the user's (its lib/.../site-packages is not).
        below = [a for a in ancestors if folder in a.parents]
        if _INSTALLED.intersection(a.name for a in below) or any(
            self._environment(a) for a in below
        ):
            return False
        return not self._ignored(path, folder, [folder, *below])

    def _folder_of(self, path: Path) -> Path | None:
        containing = [f.absolute() for f in self._folders() if f.absolute() in path.parents]
        return max(containing, key=lambda f: len(f.parts), default=None)

    def _environment(self, folder: Path) -> bool:
        with self._lock:
            if folder in self._environments:
                return True
        # Not cached when false: `python -m venv` writes pyvenv.cfg a moment after mkdir.
        if is_environment(folder):
            with self._lock:
                self._environments.add(folder)
            return True
        return False

    def _ignored(self, path: Path, folder: Path, inside: list[Path]) -> bool:
        """Whether the path, or a folder on the way to it, is excluded (the defaults and
        ``exclude``, relative to the workspace folder) or git-ignored."""
        excluded = self._excluded_in(folder)
        specs = [(a, self._gitignore(a)) for a in inside]
        steps = [(a, True) for a in inside if a != folder] + [(path, False)]
        for step, is_dir in steps:
            suffix = "/" if is_dir else ""
            if excluded.match_file(step.relative_to(folder).as_posix() + suffix):
                return True
            for base, spec in specs:
                if (
                    spec is not None
                    and base in step.parents
                    and spec.match_file(step.relative_to(base).as_posix() + suffix)
                ):
                    return True
        return False

    def _excluded_in(self, folder: Path) -> pathspec.PathSpec:
        with self._lock:
            spec = self._excludes.get(folder)
        if spec is None:
            patterns = [*DEFAULT_EXCLUDES, *self._exclude_of(folder)]
            spec = pathspec.PathSpec.from_lines("gitignore", patterns)
            with self._lock:
                self._excludes[folder] = spec
        return spec

    def _gitignore(self, folder: Path) -> pathspec.PathSpec | None:
        with self._lock:
            if folder in self._gitignores:
                return self._gitignores[folder]
        spec = None
        gitignore = folder / ".gitignore"
        if gitignore.exists():
            try:  # read as any file of an untrusted repository (it may be a FIFO)
                data = read_regular(gitignore, _GITIGNORE_BYTES, self._folders())
                text = data.decode("utf-8", "replace")
                spec = gitignore_spec(text.splitlines())
            except SkippedFile:
                pass  # unreadable: nothing is ignored by it
        with self._lock:
            self._gitignores[folder] = spec
        return spec
