"""A folder as the jail's unprivileged user can read it, at its own path.

As root, docfact's jail runs the program as ``nobody``, which reads only what is open to
everyone. A project in a private folder (``tempfile.mkdtemp`` makes 0700 folders; a
umask of 077 makes every folder 0700 and every file 0600) would not import there.
Permissions belong to the files, not to the path a mount shows them at, so bind mounts
alone cannot help; instead the jail is shown a view: a folder open to everyone is bound
whole, a private folder becomes a new folder in the jail's filesystem holding the same
entries, and a private file becomes a copy (mode 0644, in the run's own folder, which is
removed afterwards). The copies are capped; a larger private tree gets a clear reason.

Symbolic links in a private folder are shown only when they stay inside the folder
being shown: one leading out (to ``~/.ssh``) is left out, never followed.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field

MAX_COPIES = 2000  # private files copied per run
MAX_COPY_BYTES = 64 << 20  # their total size
MAX_ENTRIES = 4000  # mounts and folders the view adds (each is work for bwrap)
LEFT_OUT = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache"})


class TooPrivate(Exception):
    """The folder cannot be shown within the caps (the message says why, in one line)."""


@dataclass
class _Budget:
    staging: str
    copies: int = 0
    copied_bytes: int = 0
    entries: int = 0
    args: list[str] = field(default_factory=list)


def open_to_all(mode: int) -> bool:
    """Whether a user who owns nothing may read it (and enter it, for a folder)."""
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need


def readable_view(root: str, staging: str) -> list[str]:
    """bwrap arguments that show ``root`` at its own path, readable by anyone, copying
    private files into ``staging`` (an existing folder of the caller's). Raises
    TooPrivate when it would take more than the caps."""
    budget = _Budget(staging)
    info = os.lstat(root)
    if open_to_all(info.st_mode):
        return ["--ro-bind", root, root]
    _show_folder(root, root, budget)
    return budget.args


def _show_folder(folder: str, root: str, budget: _Budget) -> None:
    _count(budget, folder)
    budget.args += ["--perms", "0755", "--dir", folder]
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            path = entry.path
            if entry.name in LEFT_OUT:
                continue
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(path)
                if _inside(os.path.realpath(path), root):
                    _count(budget, path)
                    budget.args += ["--symlink", target, path]
            elif stat.S_ISDIR(info.st_mode):
                if open_to_all(info.st_mode):
                    _count(budget, path)
                    budget.args += ["--ro-bind", path, path]
                else:
                    _show_folder(path, root, budget)
            elif stat.S_ISREG(info.st_mode):
                _count(budget, path)
                source = path if open_to_all(info.st_mode) else _copy(path, info, budget)
                budget.args += ["--ro-bind", source, path]
            # FIFOs, sockets and devices are left out: nothing to import there


def _copy(path: str, info: os.stat_result, budget: _Budget) -> str:
    budget.copies += 1
    budget.copied_bytes += info.st_size
    if budget.copies > MAX_COPIES or budget.copied_bytes > MAX_COPY_BYTES:
        raise TooPrivate(
            f"{path}: the project's private files (not readable by others) are more than "
            f"{MAX_COPIES} files or {MAX_COPY_BYTES >> 20} MiB to copy into the jail; "
            "make the project readable by others (chmod -R o+rX) to run its code"
        )
    copy = os.path.join(budget.staging, str(budget.copies))
    mode = 0o755 if info.st_mode & stat.S_IXUSR else 0o644
    # O_NOFOLLOW: never what a link put there since the folder was read points to
    with (
        open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as reader,
        open(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as writer,
    ):
        shutil.copyfileobj(reader, writer)
    return copy


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
