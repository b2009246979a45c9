"""Prompt texts shipped as package data (versioned file names), and a digest of a set of
them for cache keys: a changed prompt must never serve answers given to the old one."""

from __future__ import annotations

import functools
import hashlib
from importlib import resources


@functools.cache
def prompt_text(package: str, name: str) -> str:
    """The text of ``name`` (a path under ``package``, e.g. ``prompts/summary_v1.txt``)."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


@functools.cache
def prompt_digest(package: str, names: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for name in names:
        digest.update(prompt_text(package, name).encode())
    return digest.hexdigest()[:16]
