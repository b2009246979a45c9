"""git run in a repository being checked, whose own configuration is untrusted.

A repository's ``.git/config`` (and the ``.gitattributes`` beside its files) may name
programs for git to run: an fsmonitor hook, a pager, a diff textconv or external diff
driver, a clean or smudge filter, hooks, a signature verifier (``gpg.program`` with
``log.showSignature``), and the transports of a partial clone's lazy fetch. A shipped or
tampered ``.git`` folder must not run any of them, so every git that ``history.py`` and
``gitdiff.py`` start is this one: settings given in the environment
(``GIT_CONFIG_COUNT``, which outranks every configuration file, and keeps keys and values
apart whatever characters a filter's name holds) turn each such program off.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# Diff and log options: no textconv driver, no external diff (diff.external or a diff
# driver's command).
DIFF_OPTIONS = ("--no-textconv", "--no-ext-diff")
# A file over this size is a binary one to git's diff (no lines of it in `log -p`): the
# largest file docfact reads at all (config's bound on max_file_bytes).
BIG_FILE_BYTES = 20_000_000
_SETTINGS = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.hooksPath", "/dev/null"),
    ("diff.external", ""),
    ("protocol.allow", "never"),  # a partial clone's lazy fetch: no server, no ssh command
    ("core.bigFileThreshold", str(BIG_FILE_BYTES)),
    # `git log` verifies a signed commit with the configured program when asked to show
    # signatures: a tampered .git ran its own "gpg" as the user on `docfact check`
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    # a mailmap read from /dev/zero or a FIFO held every `git log` until its timeout
    ("log.mailmap", "false"),
    ("mailmap.file", ""),
    ("mailmap.blob", ""),
)
_FILTER_PROGRAMS = ("clean", "smudge", "process")
_MOST_FILTERS = 200


class GitFailed(Exception):
    """git could not be run (missing, refused, too slow); the message says which."""


def command(folder: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    """The command line of ``git -C folder args`` and the environment that turns off
    every program the repository's configuration names; GitFailed when that cannot be."""
    settings = [*_SETTINGS, *_filters_off(folder)]
    environment = dict(os.environ, GIT_CONFIG_COUNT=str(len(settings)))
    for number, (key, value) in enumerate(settings):
        environment[f"GIT_CONFIG_KEY_{number}"] = key
        environment[f"GIT_CONFIG_VALUE_{number}"] = value
    return ["git", "-C", str(folder), *args], environment


def run(folder: Path, *args: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """``git args`` in ``folder``, its output captured; GitFailed when it cannot run."""
    line, environment = command(folder, *args)
    try:
        return subprocess.run(
            line, env=environment, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        raise GitFailed("there is no git on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitFailed(f"git {args[0]} did not answer in {timeout:g} s") from None
    except OSError as error:
        raise GitFailed(f"git {args[0]} could not be started ({error.strerror})") from None


def _filters_off(folder: Path) -> list[tuple[str, str]]:
    """Settings that empty every filter driver the configuration defines: a filter's
    name is the repository's choice, so its programs are found by reading the
    configuration (which runs nothing) and set to nothing, and not required."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(folder), "config", "--name-only", "-z", "--get-regexp", r"^filter\."],
            capture_output=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitFailed("there is no git on PATH") from None
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitFailed(f"git config could not be read ({error})") from None
    names = {
        key[len("filter.") : key.rindex(".")]
        for key in listed.stdout.decode("utf-8", "surrogateescape").split("\0")
        if key.count(".") >= 2
    }
    if len(names) > _MOST_FILTERS:
        raise GitFailed(f"the repository's git configuration names {len(names)} filters")
    return [
        (f"filter.{name}.{setting}", "false" if setting == "required" else "")
        for name in sorted(names)
        for setting in (*_FILTER_PROGRAMS, "required")
    ]
