"""What the jail shows of the machine: a project's private folder (readable by the run's
unprivileged user when docfact runs as root), but never a private folder a repository points at: a
``pyvenv.cfg`` ``home`` that is no Python installation, a ``.venv`` or a module that is a
symbolic link leading out of the project."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from deep_folders import nested_folders

from docfact.sonar import readable, sandbox
from docfact.sonar.home import home_of, installation_libraries, project_interpreter

needs_jail = pytest.mark.skipif(
    bool(sandbox.unavailable()) and not os.environ.get("CI"), reason="no working bubblewrap here"
)
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root's jail reads as another user")
SECRET = "PRIVATE-KEY-31c9"
REAL_PYTHON = os.path.realpath(sys.executable)


@pytest.fixture
def user_home(tmp_path, monkeypatch):
    """A home folder with a secret key, as HOME (a private folder of the sandbox's)."""
    home = tmp_path / "home"
    (home / ".ssh" / "bin").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".ssh" / "leak.py").write_text(f"KEY = {SECRET!r}\n")
    monkeypatch.setenv("HOME", str(home))
    return home


def _venv(project: Path, home: str, script: str) -> None:
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "pyvenv.cfg").write_text(f"home = {home}\n")
    python = project / ".venv" / "bin" / "python"
    python.write_text("#!/bin/sh\n" + script)
    python.chmod(0o755)


def test_a_pyvenv_home_that_is_no_installation_is_not_mounted(tmp_path, user_home):
    project = tmp_path / "project"
    _venv(project, str(user_home / ".ssh" / "bin"), "true\n")
    roots = project_interpreter(project).roots
    assert roots == (str(project / ".venv"),)


def test_a_real_installation_shows_only_its_library_folders():
    bin_dir = Path(REAL_PYTHON).parent
    shown = installation_libraries(bin_dir)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert shown[:2] == (str(bin_dir.parent / "lib" / f"python{version}"), REAL_PYTHON)
    assert all("libpython" in Path(extra).name for extra in shown[2:])
    assert installation_libraries(bin_dir.parent) == ()  # not a bin folder


@needs_jail
def test_a_pyvenv_home_in_a_private_folder_shows_nothing_of_it(tmp_path, user_home):
    project = tmp_path / "project"
    project.mkdir()
    key = user_home / ".ssh" / "id_rsa"
    _venv(project, str(user_home / ".ssh" / "bin"), f"cat {key} || echo held\n")
    found = project_interpreter(project)
    outcome = sandbox.run_python(
        "", read_paths=(str(project), *found.roots), python=found.executable
    )
    assert SECRET not in outcome.stdout + outcome.stderr
    assert outcome.stdout.strip() == "held"


def test_a_venv_linking_out_of_the_project_is_not_its_interpreter(tmp_path, user_home):
    elsewhere = user_home / ".ssh"
    (elsewhere / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (elsewhere / "bin" / "python").symlink_to(REAL_PYTHON)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".venv").symlink_to(elsewhere)
    assert project_interpreter(project).executable is None


def test_a_module_linking_out_of_the_project_has_no_home(tmp_path, user_home):
    project = tmp_path / "project"
    (project / "shop").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (project / "shop" / "__init__.py").write_text("")
    (project / "shop" / "leak.py").symlink_to(user_home / ".ssh" / "leak.py")
    text = (project / "shop" / "leak.py").read_text()
    assert home_of(str(project / "shop" / "leak.py"), "shop.leak", text, "KEY") is None


def _private_project(umask_like: bool) -> Path:
    """A project in a fresh mkdtemp folder (0700); with ``umask_like`` every folder is
    0700 and every file 0600, as a umask of 077 makes them."""
    project = Path(tempfile.mkdtemp(prefix="docfact-private-"))
    (project / "shop").mkdir()
    (project / "shop" / "__init__.py").write_text("")
    (project / "shop" / "shelf.py").write_text("LIMIT = 3\n")
    (project / "shop" / "data").mkdir()
    (project / "shop" / "data" / "prices.txt").write_text("tea 3\n")
    (project / "big.bin").write_bytes(b"x" * (readable.COPY_OPEN_BYTES + 1))  # bound if open
    if umask_like:
        for folder, folders, files in os.walk(project):
            for name in folders:
                os.chmod(os.path.join(folder, name), 0o700)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o600)
    return project


IMPORT = """
import sys
sys.path.insert(0, {root!r})
import shop.shelf
print(shop.shelf.LIMIT, open({root!r} + "/shop/data/prices.txt").read().strip())
print(len(open({root!r} + "/big.bin", "rb").read()))
"""


@needs_jail
@as_root
@pytest.mark.parametrize("umask_like", [False, True], ids=["mkdtemp", "umask-077"])
def test_a_private_project_is_read_in_the_jail(umask_like):
    project = _private_project(umask_like)
    try:
        outcome = sandbox.run_python(IMPORT.format(root=str(project)), read_paths=(str(project),))
        size = readable.COPY_OPEN_BYTES + 1
        assert (outcome.state, outcome.stdout) == ("ok", f"3 tea 3\n{size}\n"), outcome
        assert oct(project.stat().st_mode & 0o777) == "0o700"  # left as it was
    finally:
        _remove(project)


@needs_jail
@as_root
def test_a_private_project_deeper_than_python_recurses_is_read_as_far_as_the_bound(caplog):
    """1,800 nested private folders (a clone made under a umask of 077): the mirror was
    made one call per level, a RecursionError that lost the run; now the folders over
    200 below the project are left out, said in one line, and the project runs."""
    project = _private_project(umask_like=True)
    try:
        with nested_folders(project, 1800) as deep:  # removed by itself (rmtree recurses)
            (deep / "deep.py").write_text("")
            for level in [deep, *deep.parents][:1800]:
                level.chmod(0o700)
            outcome = sandbox.run_python(
                IMPORT.format(root=str(project)), read_paths=(str(project),)
            )
        size = readable.COPY_OPEN_BYTES + 1
        assert (outcome.state, outcome.stdout) == ("ok", f"3 tea 3\n{size}\n"), outcome
        [said] = [r.getMessage() for r in caplog.records if "folders deep" in r.getMessage()]
        assert said.endswith("/a: not shown in the jail below: over 200 folders deep"), said
    finally:
        _remove(project)


@needs_jail
@as_root
def test_a_private_project_too_big_to_copy_says_why(monkeypatch):
    monkeypatch.setattr(readable, "MAX_COPIES", 2)
    project = _private_project(umask_like=True)
    try:
        outcome = sandbox.run_python(IMPORT.format(root=str(project)), read_paths=(str(project),))
        assert outcome.state == "crashed"
        assert outcome.detail.startswith("nothing ran: ") and "chmod -R o+rX" in outcome.detail
    finally:
        _remove(project)


@needs_jail
@pytest.mark.parametrize("private", [False, True], ids=["open", "private"])
def test_links_out_of_the_project_lead_nowhere(user_home, private):
    project = _private_project(umask_like=private)
    try:
        if not private:
            project.chmod(0o755)
        (project / "key").symlink_to(user_home / ".ssh" / "id_rsa")
        (project / "ssh").symlink_to(user_home / ".ssh")
        program = (
            "import os\n"
            f"for name in ('key', 'ssh/id_rsa'):\n"
            "    try:\n"
            f"        print(open(os.path.join({str(project)!r}, name)).read())\n"
            "    except OSError as error:\n"
            "        print(type(error).__name__)\n"
        )
        outcome = sandbox.run_python(program, read_paths=(str(project),))
        assert SECRET not in outcome.stdout + outcome.stderr + outcome.detail
        assert outcome.state in ("ok", "blocked"), outcome
    finally:
        _remove(project)


def _remove(folder: Path) -> None:
    sandbox._remove_tree(str(folder))  # (it copes with folders of any mode)


def test_a_private_file_is_shown_as_a_readable_copy(tmp_path):
    """An installation's program or library can be a root of its own (a 0700 pyenv)."""
    program = tmp_path / "python3.11"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o700)
    staging = tmp_path / "staging"
    staging.mkdir()
    bind, copy, shown_at = readable.readable_view(str(program), str(staging))
    assert (bind, shown_at) == ("--ro-bind", str(program))
    assert Path(copy).read_text() == "#!/bin/sh\n" and Path(copy).stat().st_mode & 0o777 == 0o755


PYTHON = ".venv/bin/python"  # as sonar.python: the environment is used whatever its cfg


def _venv_with_config(project: Path) -> Path:
    """A project's .venv whose pyvenv.cfg the caller makes; its path."""
    (project / ".venv" / "bin").mkdir(parents=True)
    python = project / ".venv" / "bin" / "python"
    python.write_text("#!/bin/sh\n")  # no link to an installation: only the cfg names one
    python.chmod(0o755)
    return project / ".venv" / "pyvenv.cfg"


def _roots_within(project: Path, seconds: float) -> tuple[str, ...] | None:
    """``project_interpreter(project).roots`` from a thread; None when it did not return in
    ``seconds`` (a read that waits forever, here a FIFO with no writer)."""
    found: list[tuple[str, ...]] = []
    worker = threading.Thread(
        target=lambda: found.append(project_interpreter(project, PYTHON).roots), daemon=True
    )
    worker.start()
    worker.join(seconds)
    return found[0] if found else None


def test_a_pyvenv_cfg_that_is_a_fifo_is_not_read(tmp_path):
    project = tmp_path / "project"
    os.mkfifo(_venv_with_config(project))
    roots = _roots_within(project, 20)
    assert roots is not None and str(project / ".venv") in roots


@pytest.mark.parametrize("target", ["/proc/kmsg", "outside"])
def test_a_pyvenv_cfg_linking_out_of_its_environment_is_not_read(tmp_path, target):
    """A link to a kernel file (/proc/kmsg blocks as root) or to a file outside the
    environment naming a real installation: neither is the environment's own file."""
    project = tmp_path / "project"
    outside = tmp_path / "outside.cfg"
    outside.write_text(f"home = {Path(REAL_PYTHON).parent}\n")
    config = _venv_with_config(project)
    config.symlink_to(outside if target == "outside" else target)
    roots = _roots_within(project, 20)
    assert roots is not None
    assert not any(root.startswith(str(Path(REAL_PYTHON).parent.parent / "lib")) for root in roots)


def test_an_oversized_pyvenv_cfg_is_not_read(tmp_path):
    project = tmp_path / "project"
    config = _venv_with_config(project)
    padding = "# " + "x" * (1 << 20) + "\n"  # a comment line of 1 MiB, then a home line
    config.write_text(padding + f"home = {Path(REAL_PYTHON).parent}\n")
    roots = project_interpreter(project, PYTHON).roots
    assert not any(root.startswith(str(Path(REAL_PYTHON).parent.parent / "lib")) for root in roots)
