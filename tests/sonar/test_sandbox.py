"""The sandbox: an attack corpus in the jail, the ordinary path, and no run without a jail.

Every program in ``attacks/`` names its expected state on its first line
(``# expect: blocked``) and reads a JSON context on stdin (the paths and pids it goes
after). Whatever it does, nothing outside the sandbox may change: the canary file and its
folder, the socket listener, the test process (no signal), the secrets (never in the
output), the temporary folder (no leftovers) and the process table (no survivors)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from docfact.sonar import sandbox

ATTACKS = sorted((Path(__file__).parent / "attacks").glob("*.py"))
# Every test that runs code needs the jail; CI installs it, so there a missing jail fails.
needs_jail = pytest.mark.skipif(
    bool(sandbox.unavailable()) and not os.environ.get("CI"), reason="no working bubblewrap here"
)
CORPUS_LIMITS = sandbox.Limits(cpu_s=2, wall_s=4, memory_bytes=512 << 20, output_bytes=64 << 10)
SSH_SECRET = "SSH-SECRET-5f1c2e"
ENV_SECRET = "ENV-SECRET-9a7b3d"


@dataclass
class World:
    """What lies outside the sandbox, and how it looked before the run."""

    root: Path
    outside: Path
    canary: Path
    unlisted: Path
    temp: Path
    listener: socket.socket
    signals: list = field(default_factory=list)

    def context(self) -> str:
        return json.dumps(
            {
                "outside": str(self.outside),
                "canary": str(self.canary),
                "unlisted": str(self.unlisted),
                "ssh_key": str(self.root / "home/.ssh/id_rsa"),
                "port": self.listener.getsockname()[1],
                "test_pid": os.getpid(),
            }
        )

    def snapshot(self) -> tuple:
        info = self.canary.stat()
        return (
            sorted(os.listdir(self.outside)),
            self.canary.read_text(),
            stat.S_IMODE(info.st_mode),
            info.st_mtime_ns,
        )

    def assert_untouched(self, before: tuple, outcome: sandbox.Outcome) -> None:
        assert self.snapshot() == before
        with pytest.raises(BlockingIOError):
            self.listener.accept()
        everything = outcome.stdout + outcome.stderr + outcome.detail
        assert SSH_SECRET not in everything and ENV_SECRET not in everything
        assert self.signals == []
        assert os.listdir(self.temp) == [], "the sandbox left files behind"
        assert _survivors(str(self.root)) == [], "processes outlived the run"


def _survivors(marker: str, patience_s: float = 2.0) -> list[int]:
    """Processes whose command line mentions marker (the sandbox's work folder does)."""
    deadline = time.monotonic() + patience_s
    while True:
        found = []
        for entry in os.scandir("/proc"):
            try:
                if (
                    entry.name.isdigit()
                    and marker.encode() in Path(entry.path, "cmdline").read_bytes()
                ):
                    found.append(int(entry.name))
            except OSError:
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


@pytest.fixture
def world(tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    canary = outside / "canary.txt"
    canary.write_text("untouched")
    unlisted = tmp_path / "unlisted.txt"
    unlisted.write_text("not for the sandbox")
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "id_rsa").write_text(SSH_SECRET)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DOCFACT_TEST_API_KEY", ENV_SECRET)
    monkeypatch.delenv("DOCFACT_SANDBOX_JAIL", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    here = World(tmp_path, outside, canary, unlisted, temp, listener)
    previous = signal.signal(signal.SIGUSR1, lambda number, frame: here.signals.append(number))
    yield here
    signal.signal(signal.SIGUSR1, previous)
    listener.close()


def _expected(program: Path) -> str:
    first = program.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{program.name} names no expected state"
    return first.removeprefix("# expect: ").strip()


def test_corpus_is_big_enough():
    assert len(ATTACKS) >= 20
    assert {_expected(p) for p in ATTACKS} == {
        "ok",
        "blocked",
        "timeout",
        "out_of_memory",
        "crashed",
    }


@needs_jail
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda path: path.stem)
def test_attack_has_no_effect_outside(attack, world):
    before = world.snapshot()
    outcome = sandbox.run_python(
        attack.read_text(), world.context(), limits=CORPUS_LIMITS, read_paths=(str(world.outside),)
    )
    assert outcome.state == _expected(attack), outcome
    assert len(outcome.stdout.encode()) <= CORPUS_LIMITS.output_bytes
    world.assert_untouched(before, outcome)


@needs_jail
def test_blocked_says_what_was_attempted(world):
    outcome = sandbox.run_python(f"open({str(world.canary)!r}, 'w')")
    assert outcome.state == "blocked"
    assert str(world.canary) in outcome.detail and "outside the sandbox" in outcome.detail


# --- the ordinary path ---------------------------------------------------------------


@needs_jail
def test_stdin_and_stdout_round_trip(world):
    program = "import sys, json\nprint(json.dumps(json.load(sys.stdin)[::-1]))"
    outcome = sandbox.run_python(program, json.dumps(["α", "β", 3]))
    assert (outcome.state, outcome.detail) == ("ok", "")
    assert json.loads(outcome.stdout) == [3, "β", "α"]


@needs_jail
def test_hypothesis_runs_inside(world):
    program = (
        "from hypothesis import given, settings, strategies as st\n"
        "@settings(max_examples=50, database=None)\n"
        "@given(st.lists(st.integers()))\n"
        "def sorted_twice(xs):\n"
        "    assert sorted(sorted(xs)) == sorted(xs)\n"
        "sorted_twice()\n"
        "print('passed')\n"
    )
    outcome = sandbox.run_python(program)
    assert (outcome.state, outcome.stdout) == ("ok", "passed\n"), outcome


@needs_jail
def test_an_ordinary_function_is_quick(world):
    program = "def add(a, b):\n    return a + b\nprint(sum(add(i, i) for i in range(200)))"
    outcome = sandbox.run_python(program)
    assert (outcome.state, outcome.stdout) == ("ok", "39800\n")
    assert outcome.seconds < 3.0


@needs_jail
def test_a_flood_is_cut_and_the_run_still_ok(world):
    program = "import sys\nfor _ in range(160):\n    sys.stdout.write('y' * 65536)"
    limits = sandbox.Limits(output_bytes=100_000)
    outcome = sandbox.run_python(program, limits=limits)
    assert outcome.state == "ok" and outcome.truncated
    assert outcome.stdout == "y" * 100_000


@needs_jail
def test_writing_inside_is_allowed(world):
    program = (
        "import os, pathlib, tempfile, shutil\n"
        "os.makedirs('a/b')\n"
        "pathlib.Path('a/b/f.txt').write_text('x')\n"
        "os.rename('a/b/f.txt', 'a/g.txt')\n"
        "fd, name = tempfile.mkstemp()\n"
        "os.close(fd)\n"
        "os.remove(name)\n"
        "with tempfile.TemporaryDirectory() as folder:\n"
        "    pathlib.Path(folder, 'sub').mkdir()\n"
        "    pathlib.Path(folder, 'sub', 'f').touch()\n"
        "pathlib.Path('t').touch()\n"
        "os.makedirs('c/d/e')\n"
        "shutil.rmtree('c')\n"
        "import sqlite3\n"
        "sqlite3.connect('db.sqlite').execute('create table t(x)')\n"
        "print(open('a/g.txt').read())\n"
        "os.chmod('a', 0o000)\n"
    )  # the clean-up must cope with this too
    outcome = sandbox.run_python(program)
    assert (outcome.state, outcome.stdout) == ("ok", "x\n"), outcome
    assert os.listdir(world.temp) == []


@needs_jail
def test_the_environment_is_rebuilt_from_nothing(world):
    outcome = sandbox.run_python("import os, json\nprint(json.dumps(dict(os.environ)))")
    environment = json.loads(outcome.stdout)
    assert set(environment) - {"PWD"} == {
        "PATH",
        "LANG",
        "HOME",
        "TMPDIR",
        "PYTHONHASHSEED",
        "PYTHONDONTWRITEBYTECODE",
    }
    assert environment["HOME"] == environment["TMPDIR"]
    assert environment["HOME"].startswith(str(world.temp))


@needs_jail
def test_a_crash_names_its_last_traceback_line(world):
    outcome = sandbox.run_python("raise KeyError('missing')")
    assert outcome.state == "crashed"
    assert outcome.detail == "exit status 1: KeyError: 'missing'"


@needs_jail
def test_cancel_ends_the_run_promptly(world):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    outcome = sandbox.run_python("import time\ntime.sleep(60)", cancel=cancel)
    assert (outcome.state, outcome.detail) == ("timeout", "cancelled by the caller")
    assert outcome.seconds < 3.0
    assert _survivors(str(world.root)) == []
    assert os.listdir(world.temp) == []


def test_the_jail_works_here():
    """CI installs bubblewrap: there, a jail that does not work is a failure, not a skip."""
    if not os.environ.get("CI") and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed here")
    assert sandbox.unavailable() == ""


def test_with_ci_set_a_missing_jail_fails_the_tests_instead_of_skipping_them(tmp_path):
    """This file's tests that need the jail, run where bwrap is missing: skipped on a
    developer's machine, failed where ``CI`` is set (so a failed install cannot pass CI)."""
    bin_dir = tmp_path / "bin"  # PATH with a python but no bwrap
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    needing_the_jail = "test_the_jail_works_here or test_stdin_and_stdout_round_trip"
    environment = {name: value for name, value in os.environ.items() if name != "CI"}
    environment["PATH"] = str(bin_dir)

    def summary(**extra: str) -> str:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                __file__,
                "-k",
                needing_the_jail,
                "-p",
                "no:cacheprovider",
                "-o",
                "addopts=",
            ],
            env=environment | extra,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=Path(__file__).parents[2],
        )
        return done.stdout.strip().splitlines()[-1]

    assert "2 skipped" in summary()
    in_ci = summary(CI="true")
    assert "2 failed" in in_ci and "skipped" not in in_ci, in_ci


def test_without_a_jail_nothing_runs(world, monkeypatch):
    """No silent fallback: the program is not started, and the reason names what to install."""
    monkeypatch.setenv("PATH", str(world.root))  # no bwrap on it
    sandbox.unavailable.cache_clear()
    try:
        outcome = sandbox.run_python(f"open({str(world.root / 'ran')!r}, 'w')")
    finally:
        monkeypatch.undo()
        sandbox.unavailable.cache_clear()
    assert outcome.state == "unavailable" and "install bubblewrap" in outcome.detail
    assert not (world.root / "ran").exists()


FRESH_POSIX = """
import _imp, importlib.machinery, json, sys
outside = json.load(sys.stdin)["outside"]
spec = importlib.machinery.ModuleSpec("posix", importlib.machinery.BuiltinImporter)
fresh = _imp.create_builtin(spec)
fresh.mkfifo(outside + "/fifo")  # this copy of posix was never neutralised
"""


@needs_jail
def test_the_walls_hold_where_the_hook_is_blind(world):
    before = world.snapshot()
    outcome = sandbox.run_python(FRESH_POSIX, world.context(), read_paths=(str(world.outside),))
    assert outcome.state == "crashed"  # a read-only folder: the FIFO cannot be made
    world.assert_untouched(before, outcome)


@needs_jail
def test_stop_all_ends_every_run_and_removes_its_folder():
    """What a process about to exit calls, so no sandboxed program outlives it."""
    outcomes = []
    runner = threading.Thread(
        target=lambda: outcomes.append(
            sandbox.run_python(
                "import time\ntime.sleep(60)", limits=sandbox.Limits(wall_s=60, cpu_s=60)
            )
        )
    )
    runner.start()
    deadline = time.monotonic() + 20
    while not sandbox._RUNNING and time.monotonic() < deadline:
        time.sleep(0.05)
    [(process, work)] = list(sandbox._RUNNING.items())
    started = time.monotonic()
    sandbox.stop_all()
    runner.join(timeout=10)
    assert not runner.is_alive() and time.monotonic() - started < 10
    assert process.poll() is not None and not os.path.exists(work)
    assert outcomes and outcomes[0].state != "ok"
