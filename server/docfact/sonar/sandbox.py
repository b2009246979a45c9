"""The one place in docfact that executes code: the user's functions and model-written ones.

``run_python(program, stdin)`` runs ``program`` as ``__main__`` under docfact's own
interpreter (so the venv's packages, hypothesis among them, import inside), or under
``python``, another interpreter (a project's own, whose folders the caller passes in
``read_paths``), and returns an ``Outcome`` in exactly one of six states:

- ``ok``: exit status 0;
- ``timeout``: the wall clock (``Limits.wall_s``) or the CPU limit ran out, or the caller
  set ``cancel`` (then ``detail`` says "cancelled by the caller");
- ``out_of_memory``: the program died of ``MemoryError`` under the address-space limit;
- ``blocked``: the audit guard refused something (``detail`` says what); this holds even if
  the program caught the exception, because a refusal ends the run at once;
- ``crashed``: any other non-zero exit or signal (``detail`` has the status or signal and the
  last line of stderr);
- ``unavailable``: there is no working jail here, and nothing ran (``detail`` says what to
  install). Model-written code is untrusted input: without a jail it never runs.

Layers, outermost first:

1. A child process per run, in a new session (so one ``killpg`` ends everything it
   started), in a fresh ``tempfile.mkdtemp`` folder that is its working directory, HOME and
   TMPDIR, and that is removed afterwards whatever happened. The environment is rebuilt from
   nothing: PATH, LANG, PYTHONHASHSEED=0, PYTHONDONTWRITEBYTECODE=1, HOME, TMPDIR.
   (Python is started with ``-s -B`` rather than ``-I``: ``-I`` would also ignore
   PYTHONHASHSEED; since docfact writes the whole environment, ``-E`` has nothing to guard.)
2. bubblewrap: new pid, net, ipc and uts namespaces (no network at all; the parent and the
   editor are not even visible; when the namespace's first process dies the kernel kills
   every process in it, so nothing outlives a run) and a minimal read-only filesystem
   built from nothing: the system's programs and libraries (/usr and its links), the
   loader's cache, the interpreter, its environment and what the caller adds, all
   read-only; never /etc wholesale, never a home folder or /tmp, never a path whose links
   lead into one. The work folder is a tmpfs of ``Limits.disk_bytes`` (the program and its
   standard input bound in read-only, so reopening /proc/self/fd/0 for writing fails),
   /dev/shm one of ``shm_bytes``, each holding at most ``Limits.inodes`` files (put there by
   the first stage: ``jail_child.cap_inodes``); the root and /dev are remounted read-only,
   so no tmpfs without a size is writable. A system-call filter (``seccomp.py``) refuses the kernel
   keyrings (not namespaced: a key one run leaves would be read by a later run of the same
   uid), new user namespaces and ptrace.
   The program runs unprivileged outside as well as inside: as an ordinary user bwrap maps
   the sandbox into a user namespace of the caller's uid (``nobody`` inside); as root, a
   user namespace would map the sandbox's uid to root outside (root's files readable,
   process limits ignored), so bwrap makes none and the child drops itself, with the only
   two capabilities bwrap leaves it for that, to a uid and gid of the run's own (picked at
   random from 2**24 above 2**30: no user's, so "others" permissions apply, and
   RLIMIT_NPROC, which counts a uid's tasks machine-wide, counts this run's alone; with
   one shared ``nobody``, concurrent runs ate each other's allowance). That user reads
   the project only where it is open to all: a private folder is shown through a mirror
   of copies (``readable.py``).
3. Inside, ``jail_child.py``'s first stage, always under docfact's own interpreter
   (``-I -S``: trusted code only), forks once: the parent half is a watcher that writes the
   child's exit code and CPU time to a pipe only it holds (so a CPU-limit SIGKILL is told
   from any other). The child half drops to the run's uid (checking that no capability is left
   and that no set-user-ID program can give one back), sets the resource limits: CPU
   seconds, address space, file size, open files, processes (RLIMIT_NPROC, counted per
   user: this run's, as root, since its uid is its own), no core files; and only
   then execs the interpreter that runs the program: the project's own (a committed
   ``.venv/bin/python`` may be a shell script, or run a ``.pth`` file first: it is as
   jailed as the program) or docfact's. Where the machine lets docfact make a control
   group (``run_cgroup.py``: v2, or v1 as root), the run starts inside one of its own that
   caps its memory (``Limits.whole_run_bytes``) and its tasks together, and each process
   may use all of ``memory_bytes``; where it cannot, the memory of the whole run is capped
   by giving each of its ``Limits.processes`` processes ``memory_bytes / processes`` of
   address space.
4. Then, in that interpreter, an audit hook (``jail_child.guard_class``), installed before
   the program is even compiled: a second wall, in case a program gets past the
   filesystem. It refuses writes
   outside the work folder, reads of the private folders and of /proc beyond the process's
   own status (paths resolved as the kernel resolves them, symbolic links and ``..``
   included), sockets, subprocesses, exec, fork, spawn, signals to other processes, ctypes
   and cffi, hard and symbolic links, directory descriptors outside the work folder,
   raising limits, the garbage collector's object walks, and any change to the hook. The
   few functions that start processes, signal or make files without an audit event
   (``_posixsubprocess.fork_exec``, ``pidfd_send_signal``, ``mkfifo``, ...) are replaced
   beforehand. Audit hooks alone are a tripwire, not a wall (a fresh copy of a C module,
   loaded with ``_imp``, has no hook; a project's interpreter need not be Python at
   all), which is why no run happens without bubblewrap and every wall above holds
   without the hook.

How a refusal reaches the parent: before the program runs, the parent opens a pipe and
passes its write end to the child; the hook writes one line there ("event(args): why") and
calls ``os._exit(97)`` in the same breath, so the program never regains control to hide it.
The program could write to that descriptor itself, but only to accuse itself. Nothing from
the child is ever unpickled: the parent reads text from stdout, stderr and that pipe.
Output is drained as it comes (a selector loop), keeping at most ``output_bytes`` of each
stream and throwing the rest away, so flooding can neither hang the run nor fill memory.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import run_cgroup, seccomp
from .jail_child import BLOCKED_EXIT
from .readable import TooPrivate, readable_view

CHILD = Path(__file__).with_name("jail_child.py")
NOBODY = 65534  # the uid and gid inside an ordinary user's jail
RUN_UIDS = (1 << 30, 1 << 24)  # as root, each run's uid: the first, and how many to pick from
# What every program needs of the system, read-only: programs, libraries, the loader's cache.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: "
    "dnf install bubblewrap) to run generated code"
)
REPORT_BYTES = 64 << 10
AFTER_EXIT_S = 1.0  # how long the pipes may stay open once the child has exited
POLL_S = 0.05  # how often the wall clock and the cancel flag are looked at


@dataclass(frozen=True)
class Limits:
    cpu_s: float = 10.0  # CPU seconds (RLIMIT_CPU)
    wall_s: float = 20.0  # wall clock; the whole process group is killed after it
    memory_bytes: int = 1 << 30  # address space of all its processes together
    file_bytes: int = 16 << 20  # largest file it may write (RLIMIT_FSIZE)
    disk_bytes: int = 64 << 20  # all it may write: the work folder is a tmpfs of this size
    shm_bytes: int = 8 << 20  # /dev/shm, the one other place it may write
    output_bytes: int = 1 << 20  # of stdout (and of stderr) kept; the rest is dropped
    open_files: int = 64  # RLIMIT_NOFILE
    processes: int = 4  # its processes and threads at once (RLIMIT_NPROC)
    # files and folders in each writable tmpfs (an empty file costs kernel memory that
    # no size counts)
    inodes: int = 4096

    def whole_run_bytes(self) -> int:
        """The cap of a run's control group: its memory and what its tmpfs mounts hold (a
        lone process runs out of address space, a MemoryError its program may catch, before
        the kernel kills it for the group)."""
        return self.memory_bytes + self.disk_bytes + self.shm_bytes

    def memory_per_process(self, whole_run_capped: bool = False) -> int:
        """RLIMIT_AS of each process: with a control group capping the whole run, all of
        ``memory_bytes``; without one, a share that keeps all of them within it."""
        return self.memory_bytes if whole_run_capped else self.memory_bytes // self.processes


@dataclass(frozen=True)
class Outcome:
    state: str  # "ok" | "timeout" | "out_of_memory" | "blocked" | "crashed" | "unavailable"
    stdout: str  # cut at output_bytes
    stderr: str  # cut at output_bytes
    detail: str  # what was blocked, why it crashed or timed out; "" for ok
    seconds: float  # wall time of the whole run, start-up and clean-up included
    truncated: bool = False  # stdout or stderr was longer than output_bytes


@functools.lru_cache(maxsize=1)
def unavailable() -> str:
    """Why no code can run here ("" when the jail works): checked once per process by
    running one real program through bwrap."""
    if shutil.which("bwrap") is None:
        return f"no sandbox: bubblewrap (bwrap) is not installed; {INSTALL_HINT}"
    outcome = _run("print('ready')", "", Limits(wall_s=10.0), None, ())
    if outcome.state == "ok" and outcome.stdout.strip() == "ready":
        return ""
    why = outcome.detail or _last_line(outcome.stderr) or outcome.state
    return f"no sandbox: bubblewrap cannot start one here ({why}); {INSTALL_HINT}"


# Runs under way (their process and work folder), so that a process about to exit can end
# them all: a sandboxed program must not outlive the editor, nor leave its folder behind.
_RUNNING: dict[subprocess.Popen, str] = {}
_RUNNING_LOCK = threading.Lock()


def stop_all() -> None:
    """Kill every run under way and remove its folder (the caller is about to exit)."""
    with _RUNNING_LOCK:
        running = list(_RUNNING.items())
    for process, work in running:
        _kill_group(process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=2)
        _remove_tree(work)


def run_python(
    program: str,
    stdin: str = "",
    *,
    limits: Limits = Limits(),
    cancel: threading.Event | None = None,
    read_paths: tuple[str, ...] = (),
    python: str | None = None,
) -> Outcome:
    """Run ``program`` as ``__main__`` in a sandbox and say how it ended.

    ``read_paths`` are extra folders the program may read (even in a private folder such
    as HOME). ``python``: the interpreter to run it with (docfact's by default); its
    environment must be in the system folders or in ``read_paths``."""
    why_not = unavailable()
    if why_not:
        return Outcome("unavailable", "", "", why_not, 0.0)
    return _run(program, stdin, limits, cancel, read_paths, python)


def _run(
    program: str,
    stdin: str,
    limits: Limits,
    cancel: threading.Event | None,
    read_paths: tuple[str, ...],
    python: str | None = None,
) -> Outcome:
    started = time.monotonic()
    work = os.path.realpath(tempfile.mkdtemp(prefix="docfact-sandbox-"))
    try:
        program_path = os.path.join(work, "__main__.py")
        Path(program_path).write_text(program, encoding="utf-8")
        Path(work, "stdin.txt").write_text(stdin, encoding="utf-8")
        run_uid = RUN_UIDS[0] + secrets.randbelow(RUN_UIDS[1]) if _as_root() else None
        if run_uid is not None:  # the program's; root, with no capability left, may enter
            for path in (work, program_path, os.path.join(work, "stdin.txt")):
                os.chown(path, run_uid, run_uid)
            os.chmod(work, 0o711)
        with run_cgroup.make_group(limits.whole_run_bytes(), limits.processes) as group:
            return _run_in(
                work, program_path, run_uid, group, limits, cancel, read_paths, python, started
            )
    finally:
        _remove_tree(work)


def _run_in(
    work: str,
    program_path: str,
    run_uid: int | None,
    group: run_cgroup.RunGroup | None,
    limits: Limits,
    cancel: threading.Event | None,
    read_paths: tuple[str, ...],
    python: str | None,
    started: float,
) -> Outcome:
    report_read, report_write = os.pipe()
    status_read, status_write = os.pipe()
    try:
        config = _child_config(
            work, program_path, limits, read_paths, python, run_uid, group is not None
        )
        config.update(report_fd=report_write, status_fd=status_write)
        process = _start(config, work, limits, (report_write, status_write), group)
    except TooPrivate as error:
        os.close(report_read)
        os.close(status_read)
        seconds = round(time.monotonic() - started, 4)
        return Outcome("crashed", "", "", f"nothing ran: {error}", seconds)
    finally:
        os.close(report_write)
        os.close(status_write)
    with _RUNNING_LOCK:
        _RUNNING[process] = work
    try:
        streams, truncated, ended = _collect(
            process, {report_read: "report", status_read: "status"}, limits, cancel, started
        )
    finally:
        os.close(report_read)
        os.close(status_read)
        with _RUNNING_LOCK:
            _RUNNING.pop(process, None)
    _reap(process)
    return _outcome(limits, streams, truncated, ended, time.monotonic() - started, group)


# --- starting the child --------------------------------------------------------------


def _as_root() -> bool:
    return os.geteuid() == 0


def _child_config(
    work: str,
    program_path: str,
    limits: Limits,
    read_paths: tuple[str, ...],
    python: str | None,
    run_uid: int | None,
    whole_run_capped: bool,
) -> dict:
    cpu = max(1, int(limits.cpu_s + 0.999))
    return {
        "work": work,
        "program": program_path,
        "stdin": os.path.join(work, "stdin.txt"),
        "python": python or sys.executable,
        "drop_to": run_uid,
        "readable": sorted(_readable_roots(read_paths)),
        "hidden": sorted(_hidden_roots()),
        "processes": limits.processes,
        # writable tmpfs mounts the first stage gives an inode cap: (path, size)
        "tmpfs": [(work, limits.disk_bytes), ("/dev/shm", limits.shm_bytes)],
        "inodes": limits.inodes,
        "rlimits": {
            "RLIMIT_CORE": [0, 0],
            "RLIMIT_CPU": [cpu, cpu + 1],
            "RLIMIT_AS": [limits.memory_per_process(whole_run_capped)] * 2,
            "RLIMIT_FSIZE": [limits.file_bytes] * 2,
            "RLIMIT_NOFILE": [limits.open_files] * 2,
        },
    }


def _start(
    config: dict,
    work: str,
    limits: Limits,
    fds: tuple[int, ...],
    group: run_cgroup.RunGroup | None,
) -> subprocess.Popen:
    """bwrap running jail_child's first stage, always under docfact's own interpreter
    (``-I -S``: not even docfact's site runs privileged); the project's interpreter is
    started by that stage only once it is unprivileged and limited. With a ``group``,
    bwrap starts inside it."""
    with _filter_fd() as filter_fd:
        command = _bwrap_prefix(work, config["readable"], limits, filter_fd) + [
            sys.executable,
            "-I",
            "-S",
            "-B",
            str(CHILD),
            "--first",
            *_first_stage_arguments(config),
        ]
        if group is not None:
            command = group.join_command(command)
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=work,
            env=_environment(work),
            start_new_session=True,
            pass_fds=(*fds, filter_fd) if filter_fd >= 0 else fds,
        )


def _first_stage_arguments(config: dict) -> list[str]:
    """What ``jail_child.first_stage`` takes: one argument per value (no parser in the
    privileged stage), the second stage's CONFIG_JSON among them, the limits last."""
    rlimits = [f"{name}:{soft}:{hard}" for name, (soft, hard) in config["rlimits"].items()]
    drop_to = "" if config["drop_to"] is None else str(config["drop_to"])
    values = (config["status_fd"], config["report_fd"], drop_to, config["processes"])
    (work, disk), (shm, shm_size) = config["tmpfs"]
    capped = (work, disk, shm, shm_size, config["inodes"])
    return [
        config["stdin"],
        *map(str, values),
        *map(str, capped),
        config["python"],
        json.dumps(config),
        *rlimits,
    ]


@contextlib.contextmanager
def _filter_fd() -> Iterator[int]:
    """A pipe holding the system-call filter for bwrap to read (-1 where there is none)."""
    filter_program = seccomp.program()
    if filter_program is None:
        yield -1
        return
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, filter_program)  # a few hundred bytes: the pipe holds them
        os.close(write_end)
        yield read_end
    finally:
        os.close(read_end)


def _environment(work: str) -> dict[str, str]:
    """Built from nothing, so no key or token of the editor's environment gets in."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": work,
        "TMPDIR": work,
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _bwrap_prefix(work: str, readable: list[str], limits: Limits, filter_fd: int) -> list[str]:
    args = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    # CAP_SYS_ADMIN: the first stage mounts the writable tmpfs mounts again with an inode
    # cap (bwrap 0.8 sets a size only), then lowers it before anything else
    args += ["--cap-add", "CAP_SYS_ADMIN"]
    if _as_root():  # jail_child drops to the run's uid with these two, and then has none
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    if filter_fd >= 0:
        args += ["--seccomp", str(filter_fd)]
    return args + _filesystem(work, readable, limits) + ["--chdir", work, "--"]


def _filesystem(work: str, readable: list[str], limits: Limits) -> list[str]:
    """bwrap's mounts: a filesystem holding only the system, ``readable`` and ``work``.

    Inside, ``work`` is a tmpfs of ``disk_bytes`` (what the program writes never reaches
    the disk, and all of it together is capped), with the program and its standard input
    bound in read-only; /dev/shm is a tmpfs of ``shm_bytes``; the root (bwrap's own tmpfs)
    and /dev are read-only once built, so no tmpfs without a size is writable."""
    args, shown = [], []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
            shown.append(folder)
    for name in SYSTEM_FILES:
        args += ["--ro-bind-try", name, name]
    args += ["--dev", "/dev", "--proc", "/proc"]
    args += ["--perms", "01777", "--size", str(limits.shm_bytes), "--tmpfs", "/dev/shm"]
    args += ["--remount-ro", "/dev"]
    made: set[str] = set()
    for root in sorted(readable):
        if not any(_inside(root, done) for done in shown):  # else there through a folder above it
            # as root the program is nobody: a private folder is shown through a mirror
            shown_as = readable_view(root, _staging(work)) if _as_root() else None
            args += _parents(root, made) + (shown_as or ["--ro-bind", root, root])
            shown.append(root)
    if not any(_inside(work, done) for done in shown):
        args += _parents(work, made)
    args += ["--perms", "01777", "--size", str(limits.disk_bytes), "--tmpfs", work]
    for name in ("__main__.py", "stdin.txt"):
        args += ["--ro-bind", os.path.join(work, name), os.path.join(work, name)]
    return args + ["--remount-ro", "/"]


def _staging(work: str) -> str:
    """Where the copies of private files go: the run's own folder, removed with it."""
    staging = os.path.join(work, ".view")
    os.makedirs(staging, mode=0o700, exist_ok=True)
    return staging


def _parents(path: str, made: set[str]) -> list[str]:
    """Folders leading to ``path``, made world-traversable (bwrap would make them 0700,
    which nobody cannot cross)."""
    args = []
    parts = path.strip("/").split("/")
    for depth in range(1, len(parts)):
        parent = "/" + "/".join(parts[:depth])
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", parent]
    return args


def _hidden_roots() -> set[str]:
    """Folders the program must not read: homes and the shared temporary folder."""
    candidates = {
        os.environ.get("HOME", ""),
        os.path.expanduser("~"),
        "/root",
        "/home",
        "/tmp",
        tempfile.gettempdir(),
    }
    return {os.path.realpath(c) for c in candidates if c and os.path.isdir(c)} - {"/"}


def _readable_roots(extra: tuple[str, ...]) -> set[str]:
    """The interpreter, the venv, everything on sys.path, and what the caller adds;
    never a folder that contains a private one (that would show it whole), nor a path
    whose links lead into one (bwrap would mount what they point to)."""
    hidden = _hidden_roots()
    candidates = [
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(sys.executable),
        *sys.path,
        *extra,
    ]
    roots = set()
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if real != os.path.abspath(candidate) and any(_inside(real, h) for h in hidden):
            continue
        for path in {os.path.abspath(candidate), real}:
            if (
                candidate
                and os.path.exists(path)
                and not any(_inside(private, path) for private in hidden)
            ):
                roots.add(path)
    return roots


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


# --- watching it -------------------------------------------------------------------


def _collect(
    process: subprocess.Popen,
    pipes: dict[int, str],
    limits: Limits,
    cancel: threading.Event | None,
    started: float,
) -> tuple[dict, bool, str]:
    """Drain stdout, stderr and the child's ``pipes`` until they close or time is up.

    Returns the kept bytes by stream name, whether stdout or stderr was cut, and why it
    stopped early ("cancelled", "wall", or "" when it did not)."""
    assert process.stdout is not None and process.stderr is not None  # started with PIPE
    names = {process.stdout.fileno(): "stdout", process.stderr.fileno(): "stderr", **pipes}
    caps = {
        "stdout": limits.output_bytes,
        "stderr": limits.output_bytes,
        "report": REPORT_BYTES,
        "status": REPORT_BYTES,
    }
    kept = {name: bytearray() for name in caps}
    seen = dict.fromkeys(caps, 0)
    deadline = started + limits.wall_s
    exited_at = None
    ended = ""
    with selectors.DefaultSelector() as selector:
        for fd in names:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            now = time.monotonic()
            if cancel is not None and cancel.is_set():
                ended = "cancelled"
                break
            if now >= deadline:
                ended = "wall"
                break
            if exited_at is not None and now - exited_at > AFTER_EXIT_S:
                break  # something it left behind holds the pipes; the group kill ends it
            for key, _ in selector.select(min(POLL_S, deadline - now)):
                chunk = os.read(key.fd, 1 << 16)
                name = names[key.fd]
                if not chunk:
                    selector.unregister(key.fd)
                    if name == "status":  # the watcher has exited: the program has ended
                        exited_at = time.monotonic()
                    continue
                seen[name] += len(chunk)
                room = caps[name] - len(kept[name])
                if room > 0:
                    kept[name] += chunk[:room]
    _kill_group(process)
    truncated = seen["stdout"] > caps["stdout"] or seen["stderr"] > caps["stderr"]
    return kept, truncated, ended


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the child's whole process group, before it is reaped (so its id is not reused)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is already gone
        os.killpg(process.pid, signal.SIGKILL)


def _reap(process: subprocess.Popen) -> None:
    """Wait for the killed group's leader (the watcher or bwrap; it reports nothing)."""
    assert process.stdout is not None and process.stderr is not None  # started with PIPE
    process.stdout.close()
    process.stderr.close()
    process.wait()


def _remove_tree(path: str) -> None:
    """Remove the work folder even where the program took permissions away."""
    for folder, subfolders, _ in os.walk(path):
        for name in subfolders:
            # (never through a link: rmtree removes the link itself)
            if not os.path.islink(os.path.join(folder, name)):
                with contextlib.suppress(OSError):  # already gone
                    os.chmod(os.path.join(folder, name), 0o700)
    shutil.rmtree(path, ignore_errors=True)


# --- the verdict ---------------------------------------------------------------------


def _outcome(
    limits: Limits,
    streams: dict,
    truncated: bool,
    ended: str,
    seconds: float,
    group: run_cgroup.RunGroup | None,
) -> Outcome:
    text = {name: bytes(data).decode("utf-8", "replace") for name, data in streams.items()}
    state, detail = _judge(
        limits, ended, text["status"].split(), text["report"].strip(), text["stderr"], group
    )
    return Outcome(state, text["stdout"], text["stderr"], detail, round(seconds, 4), truncated)


def _judge(
    limits: Limits,
    ended: str,
    status: list[str],
    report: str,
    stderr: str,
    group: run_cgroup.RunGroup | None,
) -> tuple[str, str]:
    """One state from how the run ended; ``status`` is the watcher's [exit code, CPU s]."""
    if ended == "cancelled":
        return "timeout", "cancelled by the caller"
    if ended == "wall":
        return "timeout", f"wall clock over {limits.wall_s:g} s"
    if len(status) != 2:
        return "crashed", "the sandbox ended before its program did: " + _last_line(stderr)
    code, cpu = int(status[0]), float(status[1])
    if report or code == BLOCKED_EXIT:
        return "blocked", report.splitlines()[0] if report else "refused by the audit guard"
    if code == -signal.SIGXCPU or (code == -signal.SIGKILL and cpu >= limits.cpu_s - 0.1):
        return "timeout", f"CPU time over {limits.cpu_s:g} s"
    if code == 0:
        return "ok", ""
    if group is not None and group.oom_killed():  # the kernel killed one of the run's
        return "out_of_memory", (
            f"killed by the kernel: the run's processes together used over "
            f"{limits.whole_run_bytes()} bytes"
        )
    last = _last_line(stderr)
    if last.startswith("MemoryError") or "[Errno 12]" in last:  # ENOMEM: mmap, fork
        per_process = limits.memory_per_process(group is not None)
        return "out_of_memory", f"{last} under a {per_process} byte address space per process"
    if code < 0:
        return "crashed", f"killed by {_signal_name(-code)}" + (f": {last}" if last else "")
    return "crashed", f"exit status {code}" + (f": {last}" if last else "")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:500] if lines else ""
