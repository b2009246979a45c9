"""The code that runs inside a sandbox, in two stages (``sandbox.py`` starts the first).

Stage 1, ``python -I -S -B jail_child.py --first ARGUMENTS``, always under docfact's own
interpreter (trusted, and the only code that ever holds a privilege in the jail): it covers
the writable tmpfs mounts with ones of an inode cap and lowers its capabilities, makes
the ro-mounted stdin file the standard input, forks a trusted watcher (which reports the
exit status and CPU time, see ``watch``), and in the child drops to the unprivileged user
(checking that no capability is left), sets every resource limit, and only then execs the
interpreter that runs the program: the project's own (a ``.venv/bin/python``, possibly
a shell script or an interpreter whose ``.pth`` files run first) or docfact's.

Stage 2, ``PYTHON -s -B jail_child.py CONFIG_JSON``, unprivileged and limited:
installs the audit guard and runs the untrusted program as ``__main__``. Whatever the
interpreter runs before this stage is as jailed as the program itself.

It imports nothing of docfact (it runs on any Python 3 a project has); ``sandbox.py``
takes from it only the guard's exit status.

CONFIG_JSON: {"work": dir, "report_fd": int, "status_fd": int, "program": file,
              "stdin": file, "python": interpreter, "readable": [dirs], "hidden": [dirs],
              "rlimits": {"RLIMIT_CPU": [soft, hard], ...}, "processes": int,
              "drop_to": uid and gid to become (as root), or null}

The guard is written so that the program cannot loosen it even if it reaches the guard
object (through frames or the garbage collector): its whole state lives in the default
values of ``__call__`` (an immutable tuple of strings, ints and built-in functions, whose
replacement is itself refused), it reads no global or built-in name at call time, it never
calls a method the program could override, it has no ``__dict__`` (so no ``__cantrace__``
can be set to trace it), and it refuses attribute changes on its own class.
"""

import os
import resource
import stat
import sys
import types

BLOCKED_EXIT = 97  # the status of a run the guard stopped; sandbox.py knows it too
NOT_AUDITED = (  # start processes, signal others or make files, with no audit event
    ("_posixsubprocess", "fork_exec"),
    ("subprocess", "_fork_exec"),
    ("os", "pidfd_open"),
    ("posix", "pidfd_open"),
    ("signal", "pidfd_send_signal"),
    ("os", "mkfifo"),
    ("posix", "mkfifo"),
    ("os", "mknod"),
    ("posix", "mknod"),
)
REFUSED_ALWAYS = frozenset(
    {
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "subprocess.Popen",
        "os.symlink",
        "os.link",
        "os.killpg",
        "sys.addaudithook",
        "resource.setrlimit",
        "resource.prlimit",
        "gc.get_referrers",
        "gc.get_referents",
        "gc.get_objects",
        "docfact.refused",
        "sqlite3.enable_load_extension",
        "sqlite3.load_extension",
    }
)
REFUSED_IMPORTS = frozenset({"ctypes", "_ctypes", "cffi", "_cffi_backend"})  # native memory
# Events that change the paths they name -> where their dir_fd arguments are (-1: none).
WRITES = {
    "os.remove": (1,),
    "os.rmdir": (1,),
    "os.mkdir": (2,),
    "os.chmod": (2,),
    "os.chown": (3,),
    "os.utime": (3,),
    "os.rename": (2, 3),
    "os.truncate": (-1,),
    "os.setxattr": (-1,),
    "os.removexattr": (-1,),
    "os.chflags": (-1,),
    "sqlite3.connect": (-1,),
}
READS = frozenset({"os.listdir", "os.scandir", "os.getxattr", "os.listxattr", "os.chdir"})
CHEAP = frozenset(
    {
        "compile",
        "exec",
        "marshal.loads",
        "sys._getframe",
        "builtins.id",
        "object.__getattr__",
        "code.__new__",
        "function.__new__",
        "sys.excepthook",
        "os.putenv",
        "os.unsetenv",
        "signal.pthread_kill",
        "time.sleep",
    }
)
CODE_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
PROC_SAFE = frozenset(
    {
        "stat",
        "status",
        "statm",
        "cmdline",
        "comm",
        "limits",
        "maps",
        "environ",
        "meminfo",
        "cpuinfo",
        "loadavg",
        "uptime",
        "version",
    }
)


def guard_class(work: str, readable: tuple, hidden: tuple, report_fd: int) -> type:
    """A callable class whose instance is the audit hook for this sandbox.

    Directory descriptors: os.open's event does not say which dir_fd a relative path is
    relative to. So the guard never lets a directory outside the work folder be opened as a
    descriptor, and refuses ``..`` in any path that may be relative to a descriptor: then
    every such path lands inside the work folder, whichever descriptor it was."""

    class AuditGuard:
        __slots__ = ()

        def __call__(
            self,
            event,
            args,
            _work=work,
            _readable=readable,
            _hidden=hidden,
            _fd=report_fd,
            _always=REFUSED_ALWAYS,
            _imports=REFUSED_IMPORTS,
            _reads=READS,
            _cheap=CHEAP,
            _writes=tuple(WRITES.items()),  # noqa: B008  (bound once, on purpose)
            _code_attrs=CODE_ATTRS,
            _wflags=WRITE_FLAGS,
            _proc=PROC_SAFE,
            _type=type,
            _issub=issubclass,
            _str=str,
            _bytes=bytes,
            _int=int,
            _tuple=tuple,
            _join=str.join,
            _decode=bytes.decode,
            _getcwd=os.getcwd,
            _getpid=os.getpid,
            _stat=os.stat,
            _isdir=stat.S_ISDIR,
            _oserror=OSError,
            _lstat=os.lstat,
            _readlink=os.readlink,
            _islink=stat.S_ISLNK,
            _write=os.write,
            _exit=os._exit,
            _repr=repr,
            _len=len,
            _range=range,
            _status=BLOCKED_EXIT,
        ):
            if event in _cheap or (event == "import" and args[0] not in _imports):
                return  # raised all the time; nothing to check
            why = ""
            writing = False
            opening = False  # os.open: its dir_fd is unknown, and it may open a directory
            paths: tuple[object, ...] = ()  # (a local's annotation is never evaluated)
            dir_fds = (-1, -1)
            if (
                event in _always
                or event == "import"
                or event[:7] == "ctypes."
                or event[:7] == "socket."
            ):
                why = "refused"
            elif event == "open":
                paths = (args[0],)
                if args[1] is None:
                    writing = (args[2] & _wflags) != 0
                    opening = True
                else:
                    writing = "w" in args[1] or "a" in args[1] or "x" in args[1] or "+" in args[1]
            elif event in _reads:
                paths = (args[0],)
            elif event == "os.kill":
                if args[0] != _getpid():
                    why = "a signal to another process"
            elif event == "object.__setattr__" or event == "object.__delattr__":
                if (
                    args[0] is self
                    or args[0] is _type(self)
                    or (args[0] is _type(self).__call__ and args[1] in _code_attrs)
                ):
                    why = "a change to the audit guard"
            else:
                for name, at in _writes:
                    if name == event:
                        writing = True
                        paths = (args[0], args[1]) if event == "os.rename" else (args[0],)
                        dir_fds = (
                            -1 if at[0] < 0 else args[at[0]],
                            -1 if at[-1] < 0 else args[at[-1]],
                        )
                        if (
                            event == "sqlite3.connect"
                            and _type(args[0]) is _str
                            and args[0][:5] == "file:"
                        ):
                            why = "an sqlite URI (it can name any file)"
            for index in _range(_len(paths)):
                path = paths[index]
                if why:
                    break
                kind = _type(path)
                if path is None:
                    continue  # the working directory
                if _issub(kind, _int):
                    if writing and event != "open":
                        why = "a change through a file descriptor"
                    continue
                if _issub(kind, _bytes):
                    path = _decode(path, "utf-8", "surrogateescape")
                elif _issub(kind, _str):
                    path = _join("", (path,))
                else:
                    why = "a path of an unexpected type"
                    break
                relative_to_fd = opening or dir_fds[index] not in (-1, None)
                if path[:1] != "/":
                    if relative_to_fd and ".." in path.split("/"):
                        why = "'..' in a path that may be relative to a directory descriptor"
                        break
                    if relative_to_fd and not opening:
                        continue  # inside whichever folder it is: only those can be opened
                    path = _getcwd() + "/" + path
                # Resolved as the kernel resolves it: a symbolic link is followed before a
                # ".." after it applies (so /dev/fd/.. is /proc/<pid>, not /dev).
                pending = path.split("/")
                parts: list[str] = []
                at = 0
                hops = 0
                while at < _len(pending):
                    part = pending[at]
                    at += 1
                    if part == "..":
                        if parts:
                            del parts[-1]
                        continue
                    if not part or part == ".":
                        continue
                    parts.append(part)
                    here = "/" + _join("/", parts)
                    try:
                        if not _islink(_lstat(here).st_mode):
                            continue
                        target = _readlink(here)
                    except _oserror:
                        continue  # nothing there (yet): the rest is only text
                    hops += 1
                    if hops > 40:
                        why = "a path with too many symbolic links"
                        break
                    if target[:1] == "/":
                        parts = []
                    else:
                        del parts[-1]
                    pending = target.split("/") + pending[at:]
                    at = 0
                if why:
                    break
                path = "/" + _join("/", parts)
                if path == _work or path[: _len(_work) + 1] == _work + "/":
                    continue
                if writing:
                    why = "outside the sandbox"
                    break
                if opening:
                    try:
                        if _isdir(_stat(path).st_mode):
                            why = "a directory outside the sandbox, opened as a descriptor"
                            break
                    except _oserror:
                        pass  # nothing there to open
                if (
                    parts[:1] == ["proc"]
                    and _len(parts) > 1
                    and parts[1] not in _proc
                    and not (
                        parts[1] in ("self", _str(_getpid()))
                        and _len(parts) == 3
                        and parts[2] in _proc
                    )
                ):
                    why = "outside the sandbox (/proc, beyond its own status)"
                    break
                for root in _hidden:
                    if path == root or path[: _len(root) + 1] == root + "/":
                        why = "outside the sandbox (a private directory)"
                        for shown in _readable:
                            if path == shown or path[: _len(shown) + 1] == shown + "/":
                                why = ""
                        break
            if why:
                try:  # whatever happens while reporting, the run ends here
                    # (% on a str: no method the program could have replaced is looked up)
                    _write(
                        _fd,
                        ("%s%s: %s\n" % (event, _repr(_tuple(args))[:300], why))  # noqa: UP031
                        .encode("utf-8", "replace"),
                    )
                finally:
                    _exit(_status)

    return AuditGuard


def set_limits(rlimits: dict) -> None:
    """Lower the limits before any untrusted code runs (the hook refuses raising them);
    never above a hard limit already lower than asked for."""
    for name, (soft, hard) in rlimits.items():
        which = getattr(resource, name)
        current = resource.getrlimit(which)[1]
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        resource.setrlimit(which, (soft, hard))


def process_limit(processes: int) -> int:
    """RLIMIT_NPROC counts every task of the user: its uid is the run's own (as root) or
    its user namespace is (as an ordinary user), so only the tasks already in the jail
    (this process; as an ordinary user bwrap's init and the watcher too), and
    ``processes`` more than those, this one included."""
    return tasks_of(os.getuid()) + processes - 1


def tasks_of(uid):
    """Tasks (threads included) of ``uid`` this process can see."""
    count = 0
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue  # it ended meanwhile
    return count


def neutralise() -> None:
    """Replace callables the audit machinery never sees with ones it does."""

    def refused(*args, **kwargs):
        sys.audit("docfact.refused", "a call with no audit event")

    import _posixsubprocess  # noqa: F401  (so that subprocess, if imported, gets ours)

    for module_name, attr in NOT_AUDITED:
        module = sys.modules.get(module_name)
        if module is not None and hasattr(module, attr):
            setattr(module, attr, refused)


def watch(status_fd: int, report_fd: int) -> None:
    """Fork; the parent stays out of the program's reach and writes how the child ended
    (exit code, negative for a signal, and CPU seconds) to ``status_fd``, which only it
    holds. This is the one fork in a sandbox; it returns only in the child."""
    pid = os.fork()
    if pid == 0:
        os.close(status_fd)
        return
    for fd in (0, 1, 2, report_fd):
        os.close(fd)  # so that the streams end when the child's do
    _, status, usage = os.wait4(pid, 0)
    line = f"{os.waitstatus_to_exitcode(status)} {usage.ru_utime + usage.ru_stime:.3f}\n"
    os.write(status_fd, line.encode())
    os._exit(0)


CAP_SETGID, CAP_SETUID = 6, 7
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND = 1, 2, 4, 32, 4096
CLONE_NEWNS = 0x00020000
BOUND_IN_WORK = ("__main__.py", "stdin.txt")  # read-only files bwrap binds into work


def cap_inodes(work: str, disk: str, shm: str, shm_size: str, inodes: str) -> None:
    """Put over ``work`` and ``shm`` fresh tmpfs mounts of the same sizes and at most
    ``inodes`` files and folders each (bwrap 0.8 sets a size only; empty files cost kernel
    memory no size counts), in a mount namespace of the first stage's own: as an ordinary
    user bwrap's mounts belong to a user namespace above the jail's, which can neither
    remount nor cover them. The files bwrap bound into ``work`` are bound again, read-only,
    from the folder the new mount covers (reached through a descriptor opened before)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def call(result: int, what: str) -> None:
        if result != 0:
            error = os.strerror(ctypes.get_errno())
            raise SystemExit(f"docfact sandbox: cannot cap the inodes ({what}: {error})")

    call(libc.unshare(CLONE_NEWNS), "unshare")
    covered = os.open(work, os.O_PATH | os.O_DIRECTORY)  # in the new namespace's copy
    for path, size in ((work, disk), (shm, shm_size)):
        options = f"size={int(size)},nr_inodes={int(inodes)},mode=1777".encode()
        flags = MS_NOSUID | MS_NODEV
        call(libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", flags, options), path)
    for name in BOUND_IN_WORK:
        target = os.fsencode(os.path.join(work, name))
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444))
        source = f"/proc/self/fd/{covered}/{name}".encode()
        call(libc.mount(source, target, None, MS_BIND, None), name)
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV
        call(libc.mount(None, target, None, flags, None), name)
    os.close(covered)
    os.chdir(work)  # bwrap's --chdir left the working folder in the covered one


def drop_privileges(uid: int) -> None:
    """Become ``uid`` (and gid) for good: as root, bwrap leaves only the capabilities to
    change ids, and changing from root to another uid clears every capability (permitted,
    effective and ambient)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid,) * 3 or os.getresgid() != (uid,) * 3 or os.getgroups():
        raise SystemExit("docfact sandbox: could not drop privileges")
    lower_capabilities(0)


def lower_capabilities(kept: int) -> None:
    """Keep only the capabilities of the bit mask ``kept`` (below 32), effective and
    permitted; none inheritable (bwrap adds the ones it keeps there too). Lowering needs
    no privilege (capset, version 3: two 32-bit words per set)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    sets = (ctypes.c_uint32 * 6)(kept, kept, 0, 0, 0, 0)  # effective, permitted, inheritable
    if libc.capset(header, sets) != 0:
        raise SystemExit(f"docfact sandbox: capset: {os.strerror(ctypes.get_errno())}")


def assert_unprivileged() -> None:
    """No capability of any kind, and none to be had from a set-user-ID program."""
    status = _status()
    held = [name for name in ("CapInh", "CapPrm", "CapEff", "CapAmb") if status.get(name) != 0]
    if held or status.get("NoNewPrivs") != 1:
        raise SystemExit(f"docfact sandbox: privileges left before the program: {held}")


def _status():  # (no annotation: it may run on any Python 3)
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name.startswith("Cap"):
                found[name] = int(value, 16)
            elif name == "NoNewPrivs":
                found[name] = int(value)
    return found


def first_stage(
    stdin_path,
    status_fd,
    report_fd,
    drop_to,
    processes,
    work,
    disk,
    shm,
    shm_size,
    inodes,
    python,
    config,
    *limits,
):
    """Privileged set-up under docfact's interpreter, then exec of the program's one.

    One command-line argument per value (``sandbox._first_stage_arguments``): a path may
    hold any character but NUL, and importing json would cost more than the rest of the
    stage. ``drop_to`` is "" for no drop; ``limits`` are "RLIMIT_X:soft:hard"."""
    cap_inodes(work, disk, shm, shm_size, inodes)
    # CAP_SYS_ADMIN was for that alone; as root the two that change ids stay until the drop
    lower_capabilities((1 << CAP_SETUID | 1 << CAP_SETGID) if drop_to else 0)
    stdin = os.open(stdin_path, os.O_RDONLY)  # on a read-only mount: not writable
    os.dup2(stdin, 0)  # even through /proc/self/fd/0
    os.close(stdin)
    report = int(report_fd)
    watch(int(status_fd), report)
    if drop_to:
        drop_privileges(int(drop_to))
    assert_unprivileged()
    rlimits = {}
    for limit in limits:
        name, soft, hard = limit.split(":")
        rlimits[name] = (int(soft), int(hard))
    nproc = process_limit(int(processes))
    set_limits({**rlimits, "RLIMIT_NPROC": (nproc, nproc)})
    os.set_inheritable(report, True)
    os.closerange(3, report)
    os.closerange(report + 1, 1 << 16)
    try:
        os.execv(python, [python, "-s", "-B", __file__, config])
    except OSError as error:
        print(f"docfact sandbox: cannot start the interpreter {python}: {error}", file=sys.stderr)
        os._exit(126)


def run_program(config: dict) -> None:
    """Stage 2: the audit guard, then the program as ``__main__``."""
    sys.path[:] = [p for p in sys.path[1:] if p]  # not this folder, not the cwd
    neutralise()
    guard = guard_class(
        config["work"], tuple(config["readable"]), tuple(config["hidden"]), config["report_fd"]
    )
    sys.addaudithook(guard())
    program_path = config["program"]
    del config, guard
    with open(program_path, encoding="utf-8") as handle:
        code = compile(handle.read(), program_path, "exec")
    module = types.ModuleType("__main__")
    module.__file__ = program_path
    sys.modules["__main__"] = module
    sys.argv[:] = [program_path]
    exec(code, module.__dict__)


def main() -> None:
    if sys.argv[1] == "--first":
        first_stage(*sys.argv[2:])
    else:
        import json  # (only here: the first stage does without it)

        run_program(json.loads(sys.argv[1]))


if __name__ == "__main__":
    main()
