"""Whole-run limits: where the machine lets docfact make a control group (here: cgroup v1
as root), a run's processes share its memory and task count, so one process may use most
of the memory and all of them together never more; where it cannot (an ordinary user
here), each process gets its share of the memory. Each run's group is removed after it.

cgroup v2 with the memory and pids controllers is not offered on this machine (they are
bound to its v1 hierarchies), so the choice of a v2 folder is tested on the files a v2
machine has, in a folder standing for its hierarchy."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_jail import (
    _limits,
    _run_as_project,
    needs_an_ordinary_user,
    needs_jail,
    run_as_an_ordinary_user,
)

from docfact.sonar import run_cgroup, sandbox

needs_a_group = pytest.mark.skipif(
    not run_cgroup.can_make(), reason="this machine gives docfact no control group"
)
LIMITS = sandbox.Limits(cpu_s=10, wall_s=30, memory_bytes=512 << 20, processes=4)
# holds 300 MiB (every page touched, so it is resident), then says so
HOLD = (
    "import subprocess, sys; b = bytearray(300 << 20); b[::4096] = b'x' * len(b[::4096]); "
    "print('held', flush=True)"
)


def _groups_left() -> list[str]:
    return [
        name
        for folder in run_cgroup.own_hierarchies().values()
        for name in os.listdir(folder)
        if name.startswith(run_cgroup.PREFIX)
    ]


@needs_jail
@needs_a_group
def test_one_process_may_use_most_of_the_runs_memory(tmp_path):
    """Without a group each of the 4 processes got 128 MiB of address space."""
    outcome = _run_as_project(
        tmp_path,
        f'grep "Max address" /proc/self/limits; exec /usr/bin/python3 -c "{HOLD}"\n',
        LIMITS,
    )
    assert outcome.state == "ok", outcome
    assert _limits("\n" + outcome.stdout)["Max address space"] == str(LIMITS.memory_bytes)
    assert outcome.stdout.splitlines()[-1] == "held"
    assert _groups_left() == []


@needs_jail
@needs_a_group
def test_the_runs_processes_together_stay_within_its_memory(tmp_path):
    """Two processes of 300 MiB in a run of 512 MiB (and 72 MiB of tmpfs): the kernel
    ends the run."""
    child = (
        f"c = subprocess.run([sys.executable, '-c', '''{HOLD}''']); print('child', c.returncode)"
    )
    outcome = _run_as_project(tmp_path, f'exec /usr/bin/python3 -c "{HOLD}; {child}"\n', LIMITS)
    assert outcome.state == "out_of_memory", outcome
    assert outcome.detail == (
        "killed by the kernel: the run's processes together used over "
        f"{LIMITS.whole_run_bytes()} bytes"
    )
    assert "child 0" not in outcome.stdout
    assert _groups_left() == []


@needs_jail
@needs_an_ordinary_user
def test_without_a_group_each_process_gets_its_share():
    """An ordinary user cannot make a v1 group here: the fallback."""
    limits = {"cpu_s": 10, "wall_s": 30, "memory_bytes": 512 << 20, "processes": 4}
    outcome = run_as_an_ordinary_user(
        f'grep "Max address" /proc/self/limits; exec /usr/bin/python3 -c "{HOLD}"\n', limits
    )
    assert outcome["state"] == "out_of_memory", outcome
    assert _limits("\n" + outcome["stdout"])["Max address space"] == str(128 << 20)


V1_GROUPS = "4:memory:/jobs/a\n8:pids:/jobs/a\n0::/\n"
V2_GROUPS = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/editor.scope\n"
MOUNTS = (
    "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
    "39 31 0:36 /jobs /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
)


def test_each_hierarchy_holds_this_process_group_under_its_mount():
    """A mount's root may be a group itself (a container's): the path is taken from it."""
    assert run_cgroup.hierarchies_of(V1_GROUPS, MOUNTS) == {
        "memory": "/sys/fs/cgroup/memory/jobs/a",
        "pids": "/sys/fs/cgroup/pids/a",
        "": "/sys/fs/cgroup/unified",
    }


def test_v2_a_run_group_goes_where_the_controllers_are_enabled_for_children(tmp_path):
    """docfact's own group holds processes, so (but for the root) it cannot hand out
    controllers; its parent does (a delegated user session's app.slice)."""
    mounts = f"30 1 0:27 / {tmp_path} rw - cgroup2 cgroup2 rw\n"
    hierarchies = run_cgroup.hierarchies_of(V2_GROUPS, mounts)
    own = Path(hierarchies[""])
    own.mkdir(parents=True)
    (own / "cgroup.subtree_control").write_text("")
    (own.parent / "cgroup.subtree_control").write_text("cpu memory pids\n")
    made: list[str] = []
    group = run_cgroup.make_in(hierarchies, 512 << 20, 7, made)
    assert group is not None and made == list(group.folders)
    [folder] = map(Path, group.folders)
    assert folder.parent == own.parent and folder.name.startswith(run_cgroup.PREFIX)
    assert (folder / "memory.max").read_text() == str(512 << 20)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == "7"
    assert group.oom_files == (str(folder / "memory.events"),)
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert group.oom_killed()


def test_v2_without_controllers_for_children_no_group_is_made(tmp_path):
    mounts = f"30 1 0:27 / {tmp_path} rw - cgroup2 cgroup2 rw\n"
    hierarchies = run_cgroup.hierarchies_of(V2_GROUPS, mounts)
    Path(hierarchies[""]).mkdir(parents=True)
    made: list[str] = []
    assert run_cgroup.make_in(hierarchies, 512 << 20, 7, made) is None and made == []


HOLD_A_GROUP = (
    "import time\nfrom docfact.sonar import run_cgroup\n"
    "with run_cgroup.make_group(64 << 20, 4) as group:\n"
    "    print(*group.folders, flush=True)\n    time.sleep(600)\n"
)


def _age(folders, seconds: float = 2 * run_cgroup.LEFT_AFTER_S) -> None:
    then = time.time() - seconds
    for folder in folders:
        os.utime(folder, (then, then))


def _docfact_holding_a_group() -> tuple[subprocess.Popen, list[str]]:
    """A docfact process inside a run: its group made, and waiting."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_GROUP], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, process.stdout.readline().split()


@needs_a_group
def test_a_group_left_by_a_killed_docfact_is_removed_by_the_next_run():
    """docfact killed mid-run (SIGKILL: no clean-up runs) left its group for good, one more
    per killed run. The next run removes it; a live docfact's group stays."""
    killed, left = _docfact_holding_a_group()
    alive, kept = _docfact_holding_a_group()
    try:
        killed.kill()
        killed.wait()
        assert left and all(map(os.path.isdir, left))  # nothing removed it
        _age(left + kept)  # (a run's group is empty only in its first moments)
        with run_cgroup.make_group(64 << 20, 4) as group:
            assert group is not None
        assert not any(map(os.path.exists, left)), left
        assert kept and all(map(os.path.isdir, kept)), "a live docfact's group was removed"
    finally:
        for process in (killed, alive):
            process.kill()
            process.wait()
        for folder in left + kept:
            with contextlib.suppress(OSError):
                os.rmdir(folder)


@needs_a_group
def test_a_group_whose_killed_tasks_were_slow_to_leave_is_removed_by_the_next_run():
    """A run's tasks that outlast EMPTY_WAIT_S (here one left running) keep its group from
    being removed after the run; once they are gone the next run removes it, and never a
    group of a run still going."""
    straggler = subprocess.Popen(["sleep", "600"])
    left: list[str] = []
    try:
        with run_cgroup.make_group(64 << 20, 4) as group:
            assert group is not None
            for folder in group.folders:
                Path(folder, "cgroup.procs").write_text(str(straggler.pid))
        left += group.folders
        assert all(map(os.path.isdir, left))
        straggler.kill()
        straggler.wait()
        _age(left)
        with run_cgroup.make_group(64 << 20, 4) as running:
            assert running is not None
            _age(running.folders)
            run_cgroup.sweep(run_cgroup.own_hierarchies())
            assert all(map(os.path.isdir, running.folders)), "a running group was removed"
        assert not any(map(os.path.exists, left + list(running.folders)))
    finally:
        straggler.kill()
        straggler.wait()
        for folder in left:
            with contextlib.suppress(OSError):
                os.rmdir(folder)


def test_v2_leftover_groups_are_told_from_live_ones(tmp_path):
    """On the files of a v2 hierarchy (empty folders: rmdir removes a group only when it
    holds no task): a group is a leftover when it is empty, over a minute old, and the
    docfact named in it is gone; in docfact's own group or its parent, where groups are
    made. A group of this process is removed only once its run has ended."""
    mounts = f"30 1 0:27 / {tmp_path} rw - cgroup2 cgroup2 rw\n"
    hierarchies = run_cgroup.hierarchies_of(V2_GROUPS, mounts)
    own = Path(hierarchies[""])
    own.mkdir(parents=True)
    gone = subprocess.Popen(["true"])
    gone.wait()
    prefix = run_cgroup.PREFIX
    names = {
        "gone": own.parent / f"{prefix}{gone.pid}-aa",
        "gone, young": own / f"{prefix}{gone.pid}-bb",
        "made before names held a pid": own / f"{prefix}0123456789abcdef",
        "a live process's": own / f"{prefix}1-cc",
        "mine, ended": own / f"{prefix}{os.getpid()}-dd",
        "not docfact's": own / "session-1.scope",
    }
    for folder in names.values():
        folder.mkdir()
    _age([folder for name, folder in names.items() if name != "gone, young"])
    run_cgroup.sweep(hierarchies)
    assert sorted(name for name, folder in names.items() if folder.exists()) == [
        "a live process's",
        "gone, young",
        "not docfact's",
    ]
