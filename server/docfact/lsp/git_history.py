"""The git history of each workspace folder, read in a worker thread and kept per HEAD.

A finding that says a name does not exist stands on the name's history (``history.py``):
a parameter renamed, a helper removed. Reading ``git log -p`` takes seconds on a large
repository, so the editor never waits for it: the rules' findings are shown at once, and
when a folder's history has been read they are resolved again with it. A commit or a
checkout (an event under ``.git``: HEAD, a ref) has the history read for the new HEAD;
histories already read are kept by HEAD, so going back to a branch costs nothing. Outside
git and in a shallow clone there is no history: only near misses count, as in the CLI.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from ..history import NameHistory

log = logging.getLogger("docfact")
KEPT = 4  # histories kept, by repository and HEAD (a branch switched to and back)


def moves_head(path: Path) -> bool:
    """Whether a file event at ``path`` may mean that a repository's HEAD moved (a
    commit, a checkout, a fetch of the current branch, ``git gc`` packing the refs)."""
    parts = path.parts
    if ".git" not in parts:
        return False
    inside = parts[parts.index(".git") + 1 :]
    return bool(inside) and (inside[0] == "refs" or inside in (("HEAD",), ("packed-refs",)))


class FolderHistories:
    """The history of each workspace folder at its current HEAD, once read."""

    def __init__(self) -> None:
        self._current: dict[Path, NameHistory] = {}  # folder -> its history, read
        self._read: OrderedDict[tuple[Path, str], NameHistory] = OrderedDict()
        self._none_said: set[Path] = set()
        self._lock = asyncio.Lock()
        # Counts the changes of any folder's history: part of every result id, so a pull
        # client re-pulling with its previous id gets what the history now tells.
        self.revision = 0

    def of(self, path: Path) -> NameHistory | None:
        """The history that tells the findings of the file ``path`` (its folder's)."""
        path = path.resolve()
        folders = [f for f in self._current if path.is_relative_to(f)]
        return self._current[max(folders, key=lambda f: len(f.parts))] if folders else None

    async def update(self, folders: Iterable[Path]) -> bool:
        """Read the histories of ``folders`` at their HEADs, in a worker thread; whether
        any changed. One update at a time: the next finds what this one read."""
        async with self._lock:
            changed = False
            for folder in folders:
                try:
                    history = await asyncio.to_thread(self._at_head, folder)
                except Exception:  # git failing must never fail the server
                    log.exception("reading the git history of %s failed", folder)
                    history = None
                key = folder.resolve()
                if history is not self._current.get(key):
                    if history is None:
                        self._current.pop(key, None)
                    else:
                        self._current[key] = history
                    changed = True
            if changed:
                self.revision += 1
            return changed

    def _at_head(self, folder: Path) -> NameHistory | None:
        """In a worker thread: the folder's history at its HEAD, read once per HEAD."""
        found = NameHistory.of(folder)
        if found is None:
            if folder not in self._none_said:
                self._none_said.add(folder)
                log.info(
                    "no git history for %s (not a git repository, a shallow clone, or no "
                    "git): only near misses count as evidence",
                    folder,
                )
            return None
        self._none_said.discard(folder)
        key = (found.top, found.head)
        known = self._read.get(key)
        if known is not None:
            self._read.move_to_end(key)
            return known
        started = time.monotonic()
        found.read()
        log.info(
            "git history of %s at %s read in %.1f s",
            found.top,
            found.head[:10],
            time.monotonic() - started,
        )
        self._read[key] = found
        while len(self._read) > KEPT:
            self._read.popitem(last=False)
        return found
