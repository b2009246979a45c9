"""Folder trees deeper than Python recurses, made and removed one level at a time:
os.makedirs, Path.mkdir(parents=True) and shutil.rmtree (pytest's own clean-up of
tmp_path) recurse once per level, and a RecursionError in the clean-up failed CI after
every test had passed."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def nested_folders(root: Path, levels: int, name: str = "a") -> Iterator[Path]:
    """``levels`` folders ``name`` nested in ``root``; yields the deepest, and removes the
    whole chain afterwards (with whatever the test put in it), whatever happened."""
    chain = [str(root)]
    try:
        for _ in range(levels):
            chain.append(os.path.join(chain[-1], name))
            os.mkdir(chain[-1])
        yield Path(chain[-1])
    finally:
        while len(chain) > 1:
            folder = chain.pop()
            with os.scandir(folder) as listing:
                for entry in listing:
                    if entry.is_dir(follow_symlinks=False):  # not the chain's: already gone
                        shutil.rmtree(entry.path)
                    else:
                        os.unlink(entry.path)
            os.rmdir(folder)
