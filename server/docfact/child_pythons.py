"""The Pythons docfact starts never import a module of the repository it checks.

``python -c`` and ``python -m`` put the working folder first on the import path, and
docfact usually works inside the repository (the editor starts it there): the worker
pool's forkserver and multiprocessing's resource tracker are ``python -c 'from
multiprocessing... import main'``, so a repository's ``multiprocessing.py`` would run as
the user. Python 3.11+ leaves that folder off when ``PYTHONSAFEPATH`` is set, which the
Pythons docfact starts inherit. Python 3.10 ignores it: there both helpers are started at
once, from the root folder, while docfact has no other thread (``os.chdir`` is the
process's). Their "working folder first" is then /, and every worker the forkserver
forks is given docfact's own import path and working folder by multiprocessing.
The other Pythons docfact starts choose their folder themselves (the parser-crash probe
and the fluency trainer run in /; the jail's programs start from a script of docfact's
in a folder of docfact's).
"""

from __future__ import annotations

import os
import sys


def keep_repositories_off_their_paths() -> None:
    """Call first thing, before any thread starts."""
    os.environ["PYTHONSAFEPATH"] = "1"
    if sys.version_info < (3, 11) and os.name == "posix":
        start_helpers_from_root()


def start_helpers_from_root() -> None:
    """Start the forkserver (and with it the resource tracker) with / as the working
    folder, then come back."""
    from multiprocessing import forkserver

    here = os.getcwd()
    os.chdir(os.sep)
    try:
        forkserver.ensure_running()
    finally:
        os.chdir(here)
