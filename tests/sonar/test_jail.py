"""The jail against a repository's own programs: a committed ``.venv/bin/python`` (a shell
script, or a real interpreter whose ``.pth`` file runs before anything of docfact's) runs
only unprivileged (as root: a uid of the run's own), with no capability and every limit
already set, and whatever it does
from there (no audit hook watches it) stays inside: writes to the kernel's core pattern,
to standard input through /proc/self/fd/0, to a tmpfs with no size, to the kernel
keyrings, a new user namespace, memory held by many processes at once.

The test process runs as root here (as docfact does in containers); as an ordinary user
the same walls come from bwrap's user namespace."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from docfact.sonar import run_cgroup, sandbox
from docfact.sonar.home import project_interpreter

needs_jail = pytest.mark.skipif(
    bool(sandbox.unavailable()) and not os.environ.get("CI"), reason="no working bubblewrap here"
)
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the privileged path is root's")
# docfact's own interpreter (the real file, not a venv's link), run without the hook
REAL_PYTHON = os.path.realpath(sys.executable)
LIMITS = sandbox.Limits(cpu_s=5, wall_s=20, memory_bytes=256 << 20, processes=4)
# a run here gets a control group of its own (as root; see test_sandbox_cgroup.py)
WHOLE_RUN_CAPPED = run_cgroup.can_make()


def _interpreter(project: Path, script: str) -> str:
    """A committed ``.venv`` whose python is ``script`` (a shell script)."""
    bin_dir = project / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = bin_dir / "python"
    python.write_text("#!/bin/sh\n" + script)
    python.chmod(0o755)
    return str(python)


def _run_as_project(project: Path, script: str, limits: sandbox.Limits = LIMITS):
    python = _interpreter(project, script)
    found = project_interpreter(project)
    assert found.executable == python
    return sandbox.run_python(
        "print('the program')",
        limits=limits,
        read_paths=(str(project), *found.roots),
        python=found.executable,
    )


def _status(text: str) -> dict[str, str]:
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def _limits(text: str) -> dict[str, str]:
    """/proc/self/limits: the soft limit by name."""
    found = {}
    for line in text.splitlines()[1:]:
        name, soft = line[:26].strip(), line[26:47].strip()
        found[name] = soft
    return found


@needs_jail
def test_a_committed_interpreter_script_runs_unprivileged_and_limited(tmp_path):
    outcome = _run_as_project(
        tmp_path,
        "id -u; id -g; id -G\n"
        "grep -E '^(CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status\n"
        "cat /proc/self/limits\n",
    )
    assert outcome.state == "ok", outcome
    uid, gid, groups = outcome.stdout.splitlines()[:3]
    assert _a_run_uid(int(uid)) and uid == gid == groups
    status = _status(outcome.stdout)
    for capabilities in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert int(status[capabilities], 16) == 0, capabilities
    assert status["NoNewPrivs"].strip() == "1" and status["Seccomp"].strip() == "2"
    limits = _limits(outcome.stdout[outcome.stdout.index("Limit ") :])
    assert limits["Max address space"] == str(LIMITS.memory_per_process(WHOLE_RUN_CAPPED))
    assert limits["Max core file size"] == "0"
    assert limits["Max cpu time"] == "5"
    assert limits["Max file size"] == str(LIMITS.file_bytes)
    # as an ordinary user, bwrap's init and the watcher share the run's user namespace
    assert int(limits["Max processes"]) == LIMITS.processes + (0 if os.geteuid() == 0 else 2)


def _a_run_uid(uid: int) -> bool:
    """As root each run has a uid of its own (never root's, nor one shared by runs whose
    tasks would eat each other's process limit); as an ordinary user, nobody inside."""
    if os.geteuid() != 0:
        return uid == 65534
    first, count = sandbox.RUN_UIDS
    return first <= uid < first + count


@needs_jail
@as_root
def test_runs_as_root_have_uids_of_their_own(tmp_path):
    uids = {sandbox.run_python("import os\nprint(os.getuid())").stdout for _ in range(3)}
    assert len(uids) == 3 and all(_a_run_uid(int(uid)) for uid in uids)


PTH = (
    "import os, resource, sys; sys.stdout.write('pth %d %d %s\\n' % (os.getuid(), "
    "resource.getrlimit(resource.RLIMIT_AS)[0], "
    "[l for l in open('/proc/self/status') if l.startswith('CapEff')][0].split()[1]))\n"
)


@needs_jail
def test_a_pth_file_of_a_committed_venv_runs_unprivileged_and_limited(tmp_path):
    subprocess.run(
        [REAL_PYTHON, "-m", "venv", "--without-pip", str(tmp_path / ".venv")], check=True
    )
    [site] = (tmp_path / ".venv" / "lib").glob("python3.*/site-packages")
    (site / "zz_first.pth").write_text(PTH)
    found = project_interpreter(tmp_path)
    outcome = sandbox.run_python(
        "print('the program')",
        limits=LIMITS,
        read_paths=(str(tmp_path), *found.roots),
        python=found.executable,
    )
    assert outcome.state == "ok", outcome
    *pth_lines, last = outcome.stdout.splitlines()
    assert pth_lines and last == "the program"
    for line in pth_lines:  # (CPython reads a venv's .pth files twice)
        _, uid, address_space, capabilities = line.split()
        assert _a_run_uid(int(uid))
        assert (address_space, capabilities) == (
            str(LIMITS.memory_per_process(WHOLE_RUN_CAPPED)),
            "0000000000000000",
        )


@needs_jail
def test_a_missing_project_interpreter_is_a_clear_one_line_reason(tmp_path):
    outcome = sandbox.run_python("print(1)", python=str(tmp_path / "no-python"))
    assert outcome.state == "crashed"
    assert "cannot start the interpreter" in outcome.detail and "no-python" in outcome.detail


@needs_jail
@as_root
def test_the_kernel_core_pattern_stays_unwritable(tmp_path):
    before = Path("/proc/sys/kernel/core_pattern").read_text()
    outcome = _run_as_project(
        tmp_path,
        "if echo '|/bin/sh -c id' > /proc/sys/kernel/core_pattern; then echo BROKE; "
        "else echo held; fi\n",
    )
    assert outcome.stdout.strip() == "held", outcome
    assert Path("/proc/sys/kernel/core_pattern").read_text() == before


@needs_jail
def test_standard_input_cannot_be_reopened_for_writing(tmp_path):
    """Standard input was a file on the host's disk: reopening /proc/self/fd/0 for
    writing put 16 MiB there. Now it is a file on a read-only mount."""
    outcome = _run_as_project(
        tmp_path,
        "for target in /proc/self/fd/0 /dev/stdin; do\n"
        "  if head -c 1048576 /dev/zero >> $target; then echo BROKE $target; "
        "else echo held; fi\n"
        "done\n",
    )
    assert outcome.stdout.split() == ["held", "held"], outcome


FLOOD = (
    "cat /proc/self/mountinfo\n"
    "for folder in / /dev /dev/shm; do\n"
    "  if head -c 640M /dev/zero > $folder/flood; then echo BROKE $folder; fi\n"
    "done\n"
    # Empty files: no size counts them (a million of them held ~1 GB of kernel memory).
    "for folder in . /dev/shm; do\n"
    "  rm -f $folder/flood; i=0\n"
    "  while [ $i -lt 6000 ] && true 2>/dev/null > $folder/empty$i; do i=$((i+1)); done\n"
    '  if [ $i -ge 6000 ]; then echo BROKE inodes $folder; else echo "$i files in $folder"; fi\n'
    "done\n"
)
FLOOD_LIMITS = sandbox.Limits(cpu_s=10, wall_s=30, memory_bytes=256 << 20, file_bytes=1 << 40)


def _assert_no_tmpfs_without_a_size(stdout: str) -> None:
    assert "BROKE" not in stdout, stdout[-2000:]
    mounts, visible = {}, {}
    for line in stdout.splitlines():
        if " - " not in line:
            continue
        fields = line.split()
        mounts[fields[4]] = fields[5].split(",")
        visible[fields[4]] = line  # a later mount on the same point covers the earlier
    for line in visible.values():
        kind, _, options = line.split(" - ", 1)[1].partition(" ")
        if kind == "tmpfs" and "rw" in line.split()[5].split(","):
            assert "size=" in options and "nr_inodes=" in options, line
    assert "ro" in mounts["/"] and "ro" in mounts["/dev"]


@needs_jail
def test_every_writable_tmpfs_has_a_size(tmp_path):
    """/, /dev and /dev/shm were tmpfs mounts of no size (640 MiB written to each), and
    the writable ones had no cap on their files (empty files cost only kernel memory)."""
    outcome = _run_as_project(tmp_path, FLOOD, FLOOD_LIMITS)
    _assert_no_tmpfs_without_a_size(outcome.stdout)
    assert "files in /dev/shm" in outcome.stdout and "files in ." in outcome.stdout, outcome


AS_USER = """
import dataclasses, json, sys
sys.path.insert(0, sys.argv[1])
from docfact.sonar import run_cgroup, sandbox
limits = sandbox.Limits(**json.loads(sys.argv[3]))
outcome = sandbox.run_python("", limits=limits, python=sys.argv[2] + "/python",
                             read_paths=(sys.argv[2],))
print(json.dumps(dataclasses.asdict(outcome)))
"""
SYSTEM_PYTHON = "/usr/bin/python3"


needs_an_ordinary_user = pytest.mark.skipif(
    os.geteuid() != 0 or not (shutil.which("setpriv") and os.path.exists(SYSTEM_PYTHON)),
    reason="needs root, setpriv and a system python3 that nobody can run",
)


def run_as_an_ordinary_user(script: str, limits: dict) -> dict:
    """docfact's sandbox run by ``nobody`` under the system's python3 (stdlib only), with a
    project interpreter that is the shell ``script``: the Outcome as a dict."""
    folder = tempfile.mkdtemp(prefix="docfact-as-user-")
    try:
        (Path(folder) / "python").write_text("#!/bin/sh\n" + script)
        for path in (folder, f"{folder}/python"):
            os.chown(path, 65534, 65534)
            os.chmod(path, 0o755)
        # nobody may not reach this checkout (a clone in a 0700 temporary folder): a copy can
        server = f"{folder}/server"
        shutil.copytree(
            Path(sandbox.__file__).parents[1],
            f"{server}/docfact",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        os.chmod(server, 0o755)
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            + ["env", "-i", "HOME=/nonexistent", "PATH=/usr/bin:/bin"]
            + [SYSTEM_PYTHON, "-s", "-c", AS_USER, server, folder, json.dumps(limits)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd="/",
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)
    finally:
        sandbox._remove_tree(folder)


@needs_jail
@needs_an_ordinary_user
def test_as_an_ordinary_user_too_no_tmpfs_without_a_size_is_writable():
    """The flood as the issue found it: docfact run by an ordinary user, where bwrap's
    user namespace makes the jail's root and /dev the jail user's own."""
    limits = {"cpu_s": 10, "wall_s": 30, "memory_bytes": 256 << 20, "file_bytes": 1 << 40}
    outcome = run_as_an_ordinary_user(FLOOD, limits)
    assert outcome["state"] == "ok", outcome
    _assert_no_tmpfs_without_a_size(outcome["stdout"])
    assert "files in /dev/shm" in outcome["stdout"], outcome


KEYRING = """
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
found = {}
# add_key("user", "left-behind", "secret", 6, KEY_SPEC_USER_KEYRING)
found["add_key"] = libc.syscall(248, b"user", b"left-behind", b"secret", 6, -4)
found["add_key_errno"] = ctypes.get_errno()
# keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0)
found["keyctl"] = libc.syscall(250, 0, -4, 0)
found["keyctl_errno"] = ctypes.get_errno()
print(json.dumps(found))
"""


@needs_jail
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86-64 system-call numbers")
def test_the_kernel_keyrings_are_out_of_reach(tmp_path):
    """As root every run was nobody, and shared nobody's keyring; a run's own uid could
    still meet a later run's, so the keyring calls are refused altogether."""
    outcome = _run_as_project(tmp_path, f"exec {REAL_PYTHON} -c '{KEYRING}'\n")
    found = json.loads(outcome.stdout)
    assert found == {"add_key": -1, "add_key_errno": 1, "keyctl": -1, "keyctl_errno": 1}


KERNEL_DOORS = """
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
found = {}
for name, number, args in [
    ("io_uring_setup", 425, (8, params)),
    ("userfaultfd", 323, (1,)),  # UFFD_USER_MODE_ONLY: allowed to anyone by the kernel
    ("perf_event_open", 298, (None, 0, -1, -1, 0)),
    ("bpf", 321, (0, None, 0)),
]:
    result = libc.syscall(number, *args)
    found[name] = "refused" if result == -1 and ctypes.get_errno() == 1 else result
print(json.dumps(found))
"""


@needs_jail
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86-64 system-call numbers")
def test_the_riskiest_kernel_interfaces_are_refused(tmp_path):
    """io_uring answered with a ring (its operations pass no system-call filter); the
    others answered too, or failed only for want of arguments: each is refused now."""
    outcome = _run_as_project(tmp_path, f"exec {REAL_PYTHON} -c '{KERNEL_DOORS}'\n")
    found = json.loads(outcome.stdout)
    assert set(found.values()) == {"refused"}, found


@needs_jail
def test_no_new_user_namespace_to_be_root_in(tmp_path):
    outcome = _run_as_project(
        tmp_path,
        "if unshare --user --map-root-user true 2>/dev/null; then echo BROKE; else echo held; fi\n",
    )
    assert outcome.stdout.strip() == "held", outcome


FORKS = """
import json, os
def hold():
    blocks = []
    try:
        while True:
            blocks.append(bytearray(8 << 20))  # touched: really held
    except MemoryError:
        pass
    return len(blocks) * (8 << 20)
report_read, report_write = os.pipe()
release_read, release_write = os.pipe()
forked = 0
for _ in range(6):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(release_write)
        os.write(report_write, b"%d\\n" % hold())
        os.read(release_read, 1)  # hold it until every child has reported
        os._exit(0)
    forked += 1
os.close(report_write)
held = []
while len(held) < forked:
    chunk = os.read(report_read, 1 << 16)
    if not chunk:
        break
    held += [int(line) for line in chunk.split()]
os.close(release_write)
print(json.dumps({"forked": forked, "held": sum(held) + hold()}))
"""


@needs_jail
def test_many_processes_together_hold_no_more_than_the_memory_limit(tmp_path):
    """The address-space limit was per process: 6 forks held 5.2 GB under a 1 GiB limit."""
    limits = dataclasses.replace(LIMITS, wall_s=8)
    outcome = _run_as_project(tmp_path, f"exec {REAL_PYTHON} -c '{FORKS}'\n", limits)
    if WHOLE_RUN_CAPPED:
        # the run's group is full: the kernel kills a process of it (its parent then waits
        # for ever for the report of the killed child)
        assert outcome.state in ("out_of_memory", "timeout") and not outcome.stdout, outcome
        return
    found = json.loads(outcome.stdout)
    assert found["forked"] < LIMITS.processes
    assert 0 < found["held"] <= LIMITS.memory_bytes, found
