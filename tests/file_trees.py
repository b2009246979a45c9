"""Small projects written for a test: each file's text (dedented) at its path under a root."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write each of ``files`` (a path relative to ``root`` -> its text, dedented), making
    the folders it needs; returns ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root
