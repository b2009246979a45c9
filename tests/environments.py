"""A Python environment committed in a repository, as docfact finds one: a `.venv` with a
`pyvenv.cfg`, a `bin/python` and a site-packages folder (its files are read, never run,
by a plain check)."""

from __future__ import annotations

import sys
from pathlib import Path


def committed_package(project: Path, package: str) -> Path:
    """The folder of ``package`` (made, with an empty ``__init__.py``) in the site-packages
    of a `.venv` made in ``project``."""
    venv = project / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    library = venv / "lib" / "python3.11" / "site-packages" / package
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("")
    return library
