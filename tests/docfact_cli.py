"""The real `docfact check` in a child process, as a user (or the editor) starts it:
`python -m docfact`, in a working folder of the test's choosing, which is where a
repository's own modules would shadow docfact's."""

from __future__ import annotations

import os
import subprocess
import sys


def docfact_check(
    *arguments: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    timeout: int = 300,
) -> subprocess.CompletedProcess[str]:
    """`python -m docfact check ARGUMENTS --no-cache` run in ``cwd``, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "docfact", "check", *map(str, arguments), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
