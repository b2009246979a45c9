"""The server ends with its client: on ``exit``, when its stdin closes, and when the
client's process (``processId`` of ``initialize``) or its parent process is gone.

Leaving is immediate (``os._exit``): work still running in threads (indexing, a model
call, a sandbox run) must not keep an orphan busy after the editor restarted the server.
Sandboxed programs are stopped first, then every process the server started (the analysis
workers, their forkserver, multiprocessing's resource tracker): they would outlive it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import BinaryIO, NoReturn

log = logging.getLogger("docfact")
POLL_S = 1.0  # how often the client's process is looked at
_SWEEPS = 10  # rounds of looking for processes started while the others were being stopped


_group: list[int] = []  # the process group the server leads, when it could make one


def lead_process_group() -> None:
    """Make the server the leader of a process group of its own, which every process it
    starts joins and stays in when its parent dies: ``leave`` ends them all at once, even
    one forked a moment before (a stdin that is a terminal keeps the terminal's group)."""
    if os.name != "posix" or os.isatty(0):
        return
    with contextlib.suppress(OSError):  # a session leader cannot; the sweep still runs
        os.setpgid(0, 0)
    if os.getpgid(0) == os.getpid():
        _group.append(os.getpid())
        # SIGTERM (an editor stopping the server) leaves as ``leave`` does; the group's
        # SIGTERM sent by ``leave`` itself is ignored (the server ends by its exit code).
        signal.signal(signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum: int, frame: object) -> None:
    if not _leaving.is_set():
        leave(128 + signum)


_leaving = threading.Event()


def leave(code: int) -> NoReturn:
    _leaving.set()
    sandbox = sys.modules.get("docfact.sonar.sandbox")
    if sandbox is not None:
        sandbox.stop_all()
    end_descendants()
    if _group:
        with contextlib.suppress(OSError):
            os.killpg(_group[0], signal.SIGTERM)
    logging.shutdown()
    os._exit(code)


def end_descendants() -> None:
    """Kill every process below this one. They are stopped first, until no new one
    appears: a forkserver stopped cannot fork a worker that, its parent killed, would be
    reparented out of reach."""
    stopped: set[int] = set()
    for _ in range(_SWEEPS):
        found = set(descendants(os.getpid())) - stopped
        if not found:
            break
        for pid in found:
            with contextlib.suppress(OSError):  # ended meanwhile
                os.kill(pid, signal.SIGSTOP)
        stopped |= found
    for pid in stopped:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux's /proc; elsewhere none are known)."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    # "pid (name) state ppid ...": the name may hold spaces and parentheses
                    fields = (entry / "stat").read_text().rpartition(")")[2].split()
                    children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, queue = [], list(children.get(pid, []))
    while queue:
        child = queue.pop()
        found.append(child)
        queue += children.get(child, [])
    return found


class EndsAtEof:
    """The server's stdin: when the client closes it, the server leaves (pygls would wait
    for every worker thread first, and an indexing thread can run for minutes)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def readline(self) -> bytes:
        return self._at_end(self._stream.readline())

    def read(self, size: int = -1) -> bytes:
        return self._at_end(self._stream.read(size))

    def _at_end(self, data: bytes) -> bytes:
        if not data:
            log.info("the client closed the connection; leaving")
            leave(1)
        return data


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process, but it exists
        return True
    return True


def watch_client(pid: int | None) -> threading.Thread:
    """Leave when the client's process (when it was alive at start: a pid from another
    namespace means nothing here) or the process that started the server has ended."""
    parent = os.getppid()
    client = pid if pid is not None and pid != os.getpid() and alive(pid) else None

    def watch() -> None:
        stop = threading.Event()
        while not stop.wait(POLL_S):
            if client is not None and not alive(client):
                log.info("the client's process %d has ended; leaving", client)
                leave(1)
            if os.getppid() != parent:
                log.info("the process that started the server has ended; leaving")
                leave(1)

    thread = threading.Thread(target=watch, name="docfact-watch-client", daemon=True)
    thread.start()
    return thread
