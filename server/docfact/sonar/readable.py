"""A folder as the jail's unprivileged user can read it, at its own path.

As root, docfact's jail runs the program as a uid of the run's own, which reads only what
is open to everyone. A project in a private folder (``tempfile.mkdtemp`` makes 0700
folders; a umask of 077 makes every folder 0700 and every file 0600) would not import
there.
Permissions belong to the files, not to the path a mount shows them at, so bind mounts
alone cannot help; instead the jail is shown a mirror: a private folder becomes a folder of
the run's own (mode 0755, removed afterwards) holding copies of its files (0644), and
within it a folder open to everyone is bound whole, as is a file open to everyone that is
too large to copy. A mirror costs one mount, not one per file. The copies are capped; a
larger private tree gets a clear reason.

Symbolic links in a private folder are shown only when they stay inside the folder
being shown: one leading out (to ``~/.ssh``) is left out, never followed. Folders more
than ``MOST_DEPTH`` below it are left out as well, said in one log line (the mirror is
made one call per level: 1,800 nested private folders were a RecursionError).
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field

from ..source.walk import MOST_DEPTH

MAX_COPIES = 2000  # files copied per run
MAX_COPY_BYTES = 64 << 20  # their total size
MAX_ENTRIES = 4000  # folders, links and mounts the mirror adds
COPY_OPEN_BYTES = 1 << 20  # a file open to all is copied up to this size, else bound
LEFT_OUT = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache"})

log = logging.getLogger(__name__)


class TooPrivate(Exception):
    """The folder cannot be shown within the caps (the message says why, in one line)."""


@dataclass
class _Budget:
    root: str
    copies: int = 0
    copied_bytes: int = 0
    entries: int = 0
    binds: list[str] = field(default_factory=list)
    too_deep: str | None = None  # the first folder whose subfolders were left out


def open_to_all(mode: int) -> bool:
    """Whether a user who owns nothing may read it (and enter it, for a folder)."""
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need


def readable_view(root: str, staging: str) -> list[str]:
    """bwrap arguments that show ``root`` at its own path, readable by anyone: the folder
    itself when it is open to all, else a mirror made in ``staging`` (an existing folder
    of the caller's). Raises TooPrivate when it would take more than the caps."""
    info = os.stat(root)
    if open_to_all(info.st_mode):
        return ["--ro-bind", root, root]
    budget = _Budget(root)
    if not stat.S_ISDIR(info.st_mode):  # an interpreter or a library, shown on its own
        copy = os.path.join(tempfile.mkdtemp(dir=staging), "copy")
        _copy(root, copy, info, budget)
        return ["--ro-bind", copy, root]
    mirror = tempfile.mkdtemp(dir=staging)
    os.chmod(mirror, 0o755)
    _mirror(root, mirror, budget)
    if budget.too_deep is not None:
        log.warning(
            "%s: not shown in the jail below: over %d folders deep", budget.too_deep, MOST_DEPTH
        )
    return ["--ro-bind", mirror, root, *budget.binds]


def _mirror(folder: str, mirror: str, budget: _Budget, depth: int = 0) -> None:
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    for entry in entries:
        if entry.name in LEFT_OUT:
            continue
        path, copy = entry.path, os.path.join(mirror, entry.name)
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            if _inside(os.path.realpath(path), budget.root):
                _count(budget, path)
                os.symlink(os.readlink(path), copy)
        elif stat.S_ISDIR(info.st_mode):
            if depth >= MOST_DEPTH:
                budget.too_deep = budget.too_deep or folder
                continue
            _count(budget, path)
            os.mkdir(copy)  # (the mount point of an open folder, or its mirror)
            os.chmod(copy, 0o755)  # (not narrowed by the umask)
            if open_to_all(info.st_mode):
                budget.binds += ["--ro-bind", path, path]
            else:
                _mirror(path, copy, budget, depth + 1)
        elif stat.S_ISREG(info.st_mode):
            if open_to_all(info.st_mode) and info.st_size > COPY_OPEN_BYTES:
                _count(budget, path)
                os.close(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
                budget.binds += ["--ro-bind", path, path]
            else:
                _copy(path, copy, info, budget)
        # FIFOs, sockets and devices are left out: nothing to import there


def _copy(path: str, copy: str, info: os.stat_result, budget: _Budget) -> None:
    budget.copies += 1
    budget.copied_bytes += info.st_size
    if budget.copies > MAX_COPIES or budget.copied_bytes > MAX_COPY_BYTES:
        raise TooPrivate(
            f"{path}: the project's private folders hold more than {MAX_COPIES} files or "
            f"{MAX_COPY_BYTES >> 20} MiB to copy into the jail; make the project readable "
            "by others (chmod -R o+rX) to run its code"
        )
    mode = 0o755 if info.st_mode & stat.S_IXUSR else 0o644
    # O_NOFOLLOW: never what a link put there since the folder was read points to
    with (
        open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as reader,
        open(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as writer,
    ):
        shutil.copyfileobj(reader, writer)
    os.chmod(copy, mode)  # (not narrowed by the umask)


def _count(budget: _Budget, path: str) -> None:
    budget.entries += 1
    if budget.entries > MAX_ENTRIES:
        raise TooPrivate(
            f"{path}: the project's private folders hold more than {MAX_ENTRIES} entries to "
            "show in the jail; make the project readable by others (chmod -R o+rX) to run "
            "its code"
        )


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
