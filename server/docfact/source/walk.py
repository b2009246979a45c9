"""A bounded walk of a folder tree. Standard library only: the sandbox, whose jail may run
it as a user who cannot read docfact's environment, imports it too."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

MOST_DEPTH = 200  # folders below the checked one that are read


def walk_folders(
    root: str | Path, said: Callable[[str, str], None] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(root)``, top down, that reads no folder more than MOST_DEPTH below
    ``root``: os.walk recurses once per level, and 1,800 nested folders (a path git checks
    out) were a RecursionError traceback. ``said(folder, reason)`` hears, in one line
    each, of the folders not read below and of those that cannot be listed."""

    def cannot_list(error: OSError) -> None:
        if said is not None:
            said(str(error.filename), f"cannot be read: {error.strerror or error}")

    for folder, dirs, files in os.walk(root, onerror=cannot_list):
        if dirs and len(Path(folder).relative_to(root).parts) >= MOST_DEPTH:
            if said is not None:
                said(folder, f"not read below: over {MOST_DEPTH} folders deep")
            dirs[:] = []
        yield folder, dirs, files
