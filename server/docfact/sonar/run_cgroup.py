"""A control group of a sandbox run's own, where the machine lets docfact make one: the
memory and the number of tasks of the whole run, every process of it together (tmpfs
pages, page tables and pipe buffers included, which no address-space limit counts).

Where one can be made: cgroup v2 (one hierarchy, the ``memory`` and ``pids``
controllers enabled for the children of docfact's own group or of its parent: the root
group, or a group delegated to the user, as systemd does for user sessions; docfact never
enables a controller itself), or cgroup
v1 (a ``memory`` and a ``pids`` hierarchy where docfact may make folders: as root). Where
none can (an ordinary user without delegation, a read-only /sys), ``make_group`` gives
None and the sandbox falls back to per-process limits sized to a small process count.

The run joins its group before bubblewrap starts (``join_command``: a shell writes "0",
itself, to each group's ``cgroup.procs`` and execs bwrap), so no process of the run is
ever outside it.

A group is removed after its run; one left behind (docfact killed mid-run, or a run whose
killed tasks took longer than ``EMPTY_WAIT_S`` to leave) is removed by the next run that
makes a group (``sweep``): its name holds the pid of the docfact that made it, and a group
that is empty, over ``LEFT_AFTER_S`` old and not in use by a live docfact is a leftover.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

PREFIX = "docfact-run-"
# bwrap's two processes (the one outside and the namespace's init), the first stage's watcher
EXTRA_TASKS = 3
EMPTY_WAIT_S = 2.0  # how long a killed run's tasks may take to leave the group
# An empty group older than this, whose docfact is gone (or is this one, not using it), is
# left over: a live run's group is empty only for the moment before its shell joins it.
LEFT_AFTER_S = 60.0
_in_use: set[str] = set()  # this process's groups whose runs have not ended
_in_use_lock = threading.Lock()


@dataclass(frozen=True)
class RunGroup:
    folders: tuple[str, ...]  # one for v2; the memory and the pids group for v1
    oom_files: tuple[str, ...]  # where the kernel counts the OOM kills of the run

    def join_command(self, command: list[str]) -> list[str]:
        """``command``, started by a shell that first moves itself into the group."""
        script = (
            'for procs in "$@"; do [ "$procs" = -- ] && break; echo 0 > "$procs" || exit 125; '
            'done; while [ "$1" != -- ]; do shift; done; shift; exec "$@"'
        )
        procs = [os.path.join(folder, "cgroup.procs") for folder in self.folders]
        return ["/bin/sh", "-c", script, "sh", *procs, "--", *command]

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the run for the group's memory."""
        for path in self.oom_files:
            with contextlib.suppress(OSError, ValueError), open(path, encoding="ascii") as lines:
                for line in lines:
                    name, _, count = line.partition(" ")
                    if name == "oom_kill" and int(count) > 0:
                        return True
        return False


@contextlib.contextmanager
def make_group(memory_bytes: int, tasks: int) -> Iterator[RunGroup | None]:
    """A group capping the run at ``memory_bytes`` and ``tasks`` (plus bwrap's and the
    watcher's), removed afterwards; None where none can be made."""
    made: list[str] = []
    try:
        hierarchies = own_hierarchies()
        sweep(hierarchies)
        group = make_in(hierarchies, memory_bytes, tasks + EXTRA_TASKS, made)
    except (OSError, ValueError):  # not allowed here, or a /proc file of another shape
        group = None
    with _in_use_lock:
        _in_use.update(made)
    try:
        yield group
    finally:
        for folder in made:
            _remove(folder)
        with _in_use_lock:
            _in_use.difference_update(made)


def sweep(hierarchies: dict[str, str]) -> None:
    """Remove the groups docfact left in ``hierarchies`` (``own_hierarchies``'s answer)
    when its run was killed: those empty, over LEFT_AFTER_S old, and not in use by a live
    docfact. rmdir removes only an empty group: no process is ever touched."""
    parents = set(hierarchies.values())
    if "" in hierarchies:
        parents.add(os.path.dirname(hierarchies[""]))  # (v2 makes groups there too)
    now = time.time()
    for parent in parents:
        try:
            names = [name for name in os.listdir(parent) if name.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            folder = os.path.join(parent, name)
            with contextlib.suppress(OSError):  # gone, or in use: tasks in it (EBUSY)
                if now - os.stat(folder).st_mtime > LEFT_AFTER_S and not _owned(folder, name):
                    os.rmdir(folder)


def _owned(folder: str, name: str) -> bool:
    """Whether the group is a live docfact's: this process's while its run lasts, or one
    made by a process that still runs (a name without a pid: made before names held one)."""
    pid = name[len(PREFIX) :].partition("-")[0]
    if not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        with _in_use_lock:
            return folder in _in_use
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: it runs)
        return True
    return True


def can_make() -> bool:
    """Whether a run here gets a group of its own (one is made and removed to know)."""
    with make_group(1 << 30, 1) as group:
        return group is not None


def make_in(
    hierarchies: dict[str, str], memory_bytes: int, tasks: int, made: list[str]
) -> RunGroup | None:
    """A new group in ``hierarchies`` (``own_hierarchies``'s answer); each folder made is
    added to ``made``."""
    name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(8)}"
    v2 = hierarchies.get("")
    if v2 is not None:
        for parent in (v2, os.path.dirname(v2)):
            if _controllers_for_children(parent):
                folder = _mkdir(os.path.join(parent, name), made)
                _write(folder, "memory.max", memory_bytes)
                _write(folder, "memory.swap.max", 0, optional=True)
                _write(folder, "pids.max", tasks)
                return RunGroup((folder,), (os.path.join(folder, "memory.events"),))
    if "memory" in hierarchies and "pids" in hierarchies:
        memory = _mkdir(os.path.join(hierarchies["memory"], name), made)
        pids = _mkdir(os.path.join(hierarchies["pids"], name), made)
        _write(memory, "memory.limit_in_bytes", memory_bytes)
        _write(memory, "memory.memsw.limit_in_bytes", memory_bytes, optional=True)
        _write(pids, "pids.max", tasks)
        return RunGroup((memory, pids), (os.path.join(memory, "memory.oom_control"),))
    return None


def own_hierarchies() -> dict[str, str]:
    """The folder of this process's own group in each hierarchy that matters: "" for v2,
    "memory" and "pids" for v1."""
    with (
        open("/proc/self/cgroup", encoding="utf-8") as groups,
        open("/proc/self/mountinfo", encoding="utf-8") as mounts,
    ):
        return hierarchies_of(groups.read(), mounts.read())


def hierarchies_of(cgroup: str, mountinfo: str) -> dict[str, str]:
    """``own_hierarchies`` from the text of /proc/self/cgroup and /proc/self/mountinfo."""
    own: dict[str, str] = {}  # controller -> path of this process's group in its hierarchy
    for line in cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    folders: dict[str, str] = {}
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" in fields:
            separator = fields.index("-")
            kind, options = fields[separator + 1], fields[separator + 3].split(",")
            root, mount_point = fields[3], fields[4]
            keys = [""] if kind == "cgroup2" else []
            if kind == "cgroup":
                keys = [c for c in ("memory", "pids") if c in options]
            for key in keys:
                group = own.get(key)
                if group is not None and _inside(group, root):
                    relative = group[len(root.rstrip("/")) :].lstrip("/")
                    folders[key] = os.path.join(mount_point, relative).rstrip("/")
    return folders


def _inside(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root.rstrip("/") + "/")


def _controllers_for_children(folder: str) -> bool:
    """Whether a child of ``folder`` gets the memory and pids controllers (docfact never
    enables a controller itself: that would change the machine's groups for all)."""
    try:
        with open(os.path.join(folder, "cgroup.subtree_control"), encoding="ascii") as file:
            return {"memory", "pids"} <= set(file.read().split())
    except OSError:
        return False


def _mkdir(folder: str, made: list[str]) -> str:
    os.mkdir(folder, 0o755)
    made.append(folder)
    return folder


def _write(folder: str, name: str, value: int, optional: bool = False) -> None:
    try:
        with open(os.path.join(folder, name), "w", encoding="ascii") as file:
            file.write(str(value))
    except FileNotFoundError:
        if not optional:  # (swap accounting may be off: then there is no swap to cap)
            raise


def _remove(folder: str) -> None:
    """Remove the group once its (killed) tasks have left it."""
    deadline = time.monotonic() + EMPTY_WAIT_S
    while True:
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:  # EBUSY: a task is still on its way out
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)
