"""Hostile input for the CLI: a text that crashes the parser, a worker that dies.

Each must cost only its own file: one line on stderr naming it, the other files checked."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from deep_folders import nested_folders
from docfact_cli import docfact_check
from environments import committed_package

import docfact
from docfact.config import Settings
from docfact.engine import analyze
from docfact.runner import FileJob, check_job, in_workers
from docfact.source.hazards import indentation_depth

BAD = '''\
def restock(item, amount):
    """Add stock.

    Args:
        ammount: How many.
    """
'''


def parser_crash(levels: int = 511) -> str:
    """What kills tree-sitter-python 0.25: a string opened under ~511 indentation levels."""
    return "".join(" " * i + "if x:\n" for i in range(levels)) + " " * levels + '"doc"\n'


def run_check(folder: Path) -> subprocess.CompletedProcess:
    return docfact_check(folder)


def test_a_text_that_crashes_the_parser_is_skipped_with_a_reason(tmp_path):
    (tmp_path / "deep.py").write_text(parser_crash())
    (tmp_path / "stock.py").write_text(BAD)
    result = run_check(tmp_path)
    assert result.returncode == 1, result.stderr  # the other file's finding, no crash
    assert "stock.py:5:9: DF101" in result.stdout
    [line] = [line for line in result.stderr.splitlines() if "deep.py" in line]
    assert "511 levels of indentation crash the Python parser" in line


def test_the_crash_is_refused_in_worker_processes_too(tmp_path):
    (tmp_path / "deep.py").write_text(parser_crash(600))
    for number in range(20):  # enough files for worker processes
        (tmp_path / f"stock{number}.py").write_text(BAD)
    result = run_check(tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.count("DF101") == 20
    assert "deep.py" in result.stderr and "Traceback" not in result.stderr


def test_deep_text_the_parser_survives_is_analysed():
    """Over CPython's 100 levels only by counting lines inside a docstring: the check in
    a child process finds no crash, and the file is analysed as usual."""
    inside = "".join("    " + " " * i + "step\n" for i in range(150))
    text = BAD.replace("Add stock.\n", "Add stock.\n\n" + inside)
    assert indentation_depth(text.encode()) > 100
    analysis = analyze(text, "deep.py", "deep", Settings())
    assert not analysis.skipped
    assert [f.code for f in analysis.findings] == ["DF101"]


def test_an_edited_document_recovers_after_a_crashing_version():
    """The editor's path: a version that would crash is skipped, the next one parses."""
    from docfact.engine import UnitMemo

    memo = UnitMemo()
    assert [f.code for f in analyze(BAD, "s.py", "s", Settings(), memo=memo).findings] == ["DF101"]
    crashing = analyze(BAD + parser_crash(), "s.py", "s", Settings(), memo=memo)
    assert crashing.skipped and crashing.findings == []
    assert [f.code for f in analyze(BAD, "s.py", "s", Settings(), memo=memo).findings] == ["DF101"]


def abort_on_doomed(job: FileJob, settings: Settings) -> dict:
    """A check that dies like native code crashing, for the file named doomed.py."""
    if job.display == "doomed.py":
        os.abort()
    return check_job(job, settings)


def test_a_worker_that_dies_costs_only_its_file():
    jobs = [
        FileJob(name, name, name[:-3], BAD.encode())
        for name in [f"a{i}.py" for i in range(12)]
        + ["doomed.py"]
        + [f"b{i}.py" for i in range(12)]
    ]
    outcomes = in_workers(abort_on_doomed, jobs, Settings(), workers=2)
    assert len(outcomes) == len(jobs)
    for job, outcome in zip(jobs, outcomes):
        if job.display == "doomed.py":
            assert "crashed" in outcome["skipped"] and outcome["cacheable"] is False
        else:
            assert [d["code"] for d in outcome["findings"]] == ["DF101"], job.display


# --- special files and bad settings: one line on stderr, the other files still checked ---


def test_special_files_are_skipped_not_read(tmp_path):
    """A FIFO would block the read forever, /dev/zero never ends, /dev/urandom fills memory."""
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    (tmp_path / "random.py").symlink_to("/dev/urandom")
    (tmp_path / "stock.py").write_text(BAD)
    result = run_check(tmp_path)
    assert result.returncode == 1 and "stock.py:5:9: DF101" in result.stdout
    assert f"skipped {tmp_path / 'fifo.py'}: not a regular file" in result.stderr
    for name in ("zero.py", "random.py"):
        assert f"skipped {tmp_path / name}: a link that leads out of the checked folder" in (
            result.stderr
        )
    assert not (tmp_path / "zero.py").resolve().is_relative_to(tmp_path)  # not a regular file
    one = run_check(tmp_path / "zero.py")  # named by the user: followed, and still refused
    assert "zero.py: not a regular file" in one.stderr and one.returncode == 0


def test_links_out_of_the_checked_folder_are_not_followed(tmp_path):
    """A repository's ``notes.py -> ~/.ssh/id_rsa`` was read as source (and sent to a
    model with one configured). A link inside the folder is read once, as its target."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "secret.py").write_text(BAD.replace("ammount", "s3cret_token_value"))
    project = tmp_path / "project"
    project.mkdir()
    (project / "stock.py").write_text(BAD)
    (project / "notes.py").symlink_to(private / "secret.py")
    (project / "alias.py").symlink_to(project / "stock.py")
    (project / "linked").symlink_to(private, target_is_directory=True)
    result = run_check(project)
    assert "s3cret_token_value" not in result.stdout + result.stderr
    assert result.stdout.count("DF101") == 1, result.stdout
    assert f"skipped {project / 'notes.py'}: a link that leads out of the checked folder" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr
    named = run_check(project / "notes.py")  # a file the user names is the user's choice
    assert "s3cret_token_value" in named.stdout


def test_a_coding_line_naming_no_text_encoding_skips_only_that_file(tmp_path):
    (tmp_path / "rot.py").write_text("# -*- coding: rot13 -*-\ndef f():\n    '''Doc.'''\n")
    (tmp_path / "stock.py").write_text(BAD)
    result = run_check(tmp_path)
    assert result.returncode == 1 and "DF101" in result.stdout
    assert "rot.py: its coding line names rot13, which is not a text encoding" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_gitignore_line_that_is_no_pattern_is_ignored_as_git_does(tmp_path):
    (tmp_path / ".gitignore").write_text("\\\nskipped.py\n")
    (tmp_path / "skipped.py").write_text(BAD)
    (tmp_path / "stock.py").write_text(BAD)
    result = run_check(tmp_path)
    assert result.returncode == 1 and result.stdout.count("DF101") == 1, result.stderr
    assert "Traceback" not in result.stderr


def pyproject_case(tmp_path, content: bytes) -> subprocess.CompletedProcess:
    (tmp_path / "pyproject.toml").write_bytes(content)
    (tmp_path / "stock.py").write_text(BAD)
    return run_check(tmp_path)


def test_an_exclude_pattern_that_is_no_pattern_is_a_configuration_error(tmp_path):
    result = pyproject_case(tmp_path, b'[tool.docfact]\nexclude = ["\\\\"]\n')
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert "pyproject.toml: exclude" in line and "not a gitignore-style pattern" in line


BACKTRACKING = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"  # held docfact for good on a long name


def test_an_exclude_pattern_too_costly_to_match_is_a_configuration_error(tmp_path):
    (tmp_path / f"{'a' * 200}.py").write_text(BAD)
    result = pyproject_case(tmp_path, f'[tool.docfact]\nexclude = ["{BACKTRACKING}"]\n'.encode())
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.endswith(f"exclude: {BACKTRACKING!r} has over 3 wildcards, too costly to match")


def test_a_gitignore_pattern_too_costly_to_match_is_not_applied(tmp_path):
    """The same pattern in a repository's .gitignore: a check of 5 files with names of 200
    characters ran for minutes (each name matched with exponential backtracking)."""
    for number in range(5):
        (tmp_path / f"{'a' * 200}{number}.py").write_text(BAD)
    (tmp_path / ".gitignore").write_text(f"{BACKTRACKING}\n*.pyc\n")
    started = time.monotonic()
    result = run_check(tmp_path)
    assert time.monotonic() - started < 60
    assert result.returncode == 1 and result.stdout.count("DF101") == 5, result.stderr
    assert "1 pattern(s) of over 3 wildcards not applied" in result.stderr


def test_a_pyproject_that_is_not_utf8_is_a_configuration_error(tmp_path):
    result = pyproject_case(tmp_path, b'[tool.docfact]\nselect = ["\xff"]\n')
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "pyproject.toml: not valid UTF-8" in result.stderr


@pytest.mark.parametrize(
    "nested",
    [b"select = " + b"[" * 100_000 + b"]" * 100_000, b"x = " + b"{a = " * 50_000 + b"}" * 50_000],
    ids=["arrays", "inline-tables"],
)
def test_a_pyproject_nested_too_deeply_is_a_configuration_error(tmp_path, nested):
    """tomllib parses nesting by recursion: 100,000 brackets (200 KB) were a RecursionError
    traceback."""
    result = pyproject_case(tmp_path, b"[tool.docfact]\n" + nested + b"\n")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-500:]
    [line] = result.stderr.strip().splitlines()
    assert line.endswith("pyproject.toml: not read: nested too deeply"), line


def test_an_escape_sequence_in_the_settings_never_reaches_the_terminal(tmp_path):
    """The error names the bad value: shown as an escape, not acted on by the terminal."""
    result = pyproject_case(tmp_path, b'[tool.docfact]\nselect = ["\\u001b[2JDF1"]\n')
    assert result.returncode == 2 and "\x1b" not in result.stderr
    assert "not a docfact rule code or prefix: \\x1b[2JDF1" in result.stderr


def test_a_tool_key_that_is_not_a_table_is_not_docfacts_business(tmp_path):
    result = pyproject_case(tmp_path, b'tool = "x"\n')
    assert result.returncode == 1 and "DF101" in result.stdout, result.stderr


def test_a_tree_too_deep_to_query_is_skipped_quickly():
    """tree-sitter's query cursor counts depth in 16 bits: 100,000 chained calls took it
    120 s (and lost captures). Such a file is refused with its line; a long but shallow
    function is still analysed."""
    chain = BAD + "\n\ndef g():\n    return x" + "()" * 70_000 + "\n"
    analysis = analyze(chain, "chain.py", "chain", Settings())
    assert "nested" in analysis.skipped and "line 9" in analysis.skipped
    long_body = BAD.replace('    """\n', '    """\n' + "    x = 1\n" * 12_000, 1)
    assert [f.code for f in analyze(long_body, "long.py", "long", Settings()).findings] == ["DF101"]


def test_thousands_of_backquoted_names_in_one_docstring_take_linear_time():
    """Each name asked its questions of the whole docstring (history words, sentence
    bounds, dotted names, mentions): 3,000 names took 26 s, 8,000 two minutes; now under
    a second (bench/doubling.py measures the growth; this bound is generous on purpose)."""
    names = " ".join(f"`name{i}`" for i in range(3000))
    text = f'def f(name0):\n    """Use {names} instead of `new`."""\n'
    analyze("def f():\n    pass\n", "warm.py", "warm", Settings())  # the tokenizer loads once
    started = time.perf_counter()
    analysis = analyze(text, "m.py", "m", Settings(select=("DF102",)))
    assert time.perf_counter() - started < 6
    assert not analysis.skipped and len(analysis.findings) >= 2999


# --- no crash on real code: shapes that once cost a whole file ---


def test_a_class_with_two_overloaded_constructors_and_no_init_is_checked():
    """A parsing library's lexer file was skipped: the ``**kwargs`` reader looked for an
    ``__init__`` among two ``typing.overload``s of ``__new__`` and raised StopIteration."""
    source = '''\
from typing import overload


class Token:
    """A token.

    Args:
        kind: What it is.
        flags: Extra flags.
    """

    @overload
    def __new__(cls, kind: str, **options: object) -> "Token": ...
    @overload
    def __new__(cls, kind: int, **options: object) -> "Token": ...
    def __new__(cls, kind, **options):
        return super().__new__(cls)
'''
    analysis = analyze(source + BAD, "lexer.py", "lexer", Settings())
    assert not analysis.skipped
    text = source + BAD
    found = sorted((f.code, text[f.span.start : f.span.end]) for f in analysis.findings)
    assert found == [("DF101", "ammount"), ("DF101", "flags")]


SHADOWS = ("argparse", "tomllib", "pathspec", "platformdirs", "sqlite3", "difflib")


def test_modules_of_the_checked_repository_never_run_as_docfacts_own(tmp_path):
    """`python -m docfact` (as the editor starts it) with the repository as the working
    folder: Python put that folder first on the import path, so the repository's
    argparse.py ran as the user, outside the jail, before anything was checked."""
    marker = tmp_path.parent / f"{tmp_path.name}-ran"
    (tmp_path / "shop.py").write_text(BAD)
    for name in SHADOWS:
        (tmp_path / f"{name}.py").write_text(
            f"import pathlib\npathlib.Path({str(marker)!r}).write_text({name!r})\n"
        )
    done = docfact_check("shop.py", cwd=tmp_path)
    assert not marker.exists(), f"the repository's {marker.read_text()}.py ran"
    assert done.returncode == 1 and "DF101" in done.stdout, done.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists("/proc/kmsg"), reason="/proc/kmsg blocks root alone"
)
@pytest.mark.parametrize("name", [".gitignore", "pyproject.toml"])
def test_a_repository_file_linked_to_a_blocking_kernel_file_is_not_read(tmp_path, name):
    """`.gitignore` or `pyproject.toml` -> /proc/kmsg: a "regular" file whose read blocks
    until the kernel logs something (and takes the message): docfact as root hung for good."""
    (tmp_path / "shop.py").write_text(BAD)
    (tmp_path / name).symlink_to("/proc/kmsg")
    done = docfact_check(tmp_path, timeout=60)
    assert "Traceback" not in done.stderr
    if name == ".gitignore":  # not applied, and the check goes on
        assert done.returncode == 1 and "DF101" in done.stdout, done.stderr
        assert ".gitignore: not applied: a link that leads out" in done.stderr
    else:  # the project's settings cannot be read: said, as for a pyproject.toml not TOML
        assert done.returncode == 2
        assert "pyproject.toml: not read: a file of the kernel's (/proc, /sys)" in done.stderr


def test_a_gitignore_of_many_patterns_is_applied_only_so_far(tmp_path):
    """Every path is matched against every pattern (and each was compiled twice): 100,000
    lines made a 300-file check take 92 s instead of 4. Past 5,000 lines the rest is not
    applied, past 1 MiB none of it, each said in one line."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "shop.py").write_text(BAD)
    (tmp_path / "b" / "shop.py").write_text(BAD)
    patterns = [f"**/x{i}*y/**/z{i}*" for i in range(6000)]
    (tmp_path / "a" / ".gitignore").write_text("\n".join(patterns) + "\n")
    (tmp_path / "b" / ".gitignore").write_text("\n".join(patterns * 20) + "\n")
    done = run_check(tmp_path)
    assert done.returncode == 1 and done.stdout.count("DF101") == 2, done.stderr
    assert "a/.gitignore: only its first 5,000 lines are applied" in done.stderr
    assert "b/.gitignore: not applied: over the 1,048,576-byte limit\n" in done.stderr


def test_the_worker_pool_never_imports_the_repository_s_modules(tmp_path):
    """The workers' forkserver is `python -c 'from multiprocessing.forkserver import ...'`,
    started in docfact's working folder: a checked repository's multiprocessing.py ran as
    the user as soon as a check of several files used workers."""
    marker = tmp_path.parent / f"{tmp_path.name}-ran"
    (tmp_path / "pkg").mkdir()
    for number in range(40):  # enough for the workers
        (tmp_path / "pkg" / f"shop{number}.py").write_text(BAD)
    (tmp_path / "multiprocessing.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
    )
    done = docfact_check("pkg", "--jobs", "2", cwd=tmp_path)
    assert not marker.exists(), "the repository's multiprocessing.py ran"
    assert done.returncode == 1 and done.stdout.count("DF101") == 40, done.stderr


CHECK_WITH_WORKERS = """
import sys
del sys.path[0]  # this process's own '' (docfact's __main__ does the same)
from concurrent.futures import ProcessPoolExecutor
import multiprocessing, os
from docfact.child_pythons import start_helpers_from_root
if sys.argv[1] == "from-root":
    start_helpers_from_root()
context = multiprocessing.get_context("forkserver")
with ProcessPoolExecutor(2, mp_context=context) as pool:
    print(pool.submit(os.getcwd).result())
"""


@pytest.mark.parametrize("how", ["from-root", "in-place"])
def test_on_python_3_10_the_pool_s_helpers_start_from_the_root_folder(tmp_path, how):
    """Python 3.10 ignores PYTHONSAFEPATH: its forkserver and resource tracker, started in
    the repository, import its multiprocessing.py. Emulated here by a Python without
    PYTHONSAFEPATH; started from / (as docfact does on 3.10), they import the real one,
    and the workers still work in the repository. In place, the attack works (so the test
    can tell)."""
    marker = tmp_path.parent / f"{tmp_path.name}-ran"
    (tmp_path / "multiprocessing.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\nraise SystemExit(3)\n"
    )
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    environment["PYTHONPATH"] = str(Path(docfact.__file__).parents[1])
    done = subprocess.run(
        [sys.executable, "-c", CHECK_WITH_WORKERS, how],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if how == "in-place":
        assert marker.exists()
        return
    assert not marker.exists(), "the repository's multiprocessing.py ran"
    assert done.stdout.strip() == str(tmp_path), done.stderr


def test_a_folder_tree_deeper_than_python_recurses_is_read_as_far_as_the_bound(tmp_path):
    """1,800 nested folders (a path of 3,600 characters, which git checks out): os.walk
    recursed once per level, a RecursionError traceback that lost the whole check."""
    (tmp_path / "stock.py").write_text(BAD)
    with nested_folders(tmp_path, 1800) as deep:  # removed by itself (pytest's clean-up recurses)
        (deep / "deep.py").write_text(BAD)
        result = run_check(tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-800:]
    assert result.stdout.count("DF101") == 1
    assert "not read below: over 200 folders deep" in result.stderr


def test_a_committed_environment_s_package_deeper_than_python_recurses_is_read(tmp_path):
    """A library the project imports is read from the project's own .venv (a committed
    one is the repository's): a package of 1,800 nested folders was a RecursionError
    traceback (pathlib's rglob recurses once per level) that lost a plain check."""
    (tmp_path / "shop.py").write_text(
        'import toolkit\n\n\nclass Metadata:\n    """The shop\'s own."""\n\n\n'
        'def connect():\n    """Returns the `MetaData` of the connection."""\n'
        "    return toolkit\n"
    )
    # DF102, a preview rule, selected by its code
    shown = docfact_check(tmp_path / "shop.py", "--select", "DF102").stdout
    assert "did you mean `Metadata`" in shown  # no library
    library = committed_package(tmp_path, "toolkit")
    (library / "schema.py").write_text("class MetaData:\n    pass\n")
    with nested_folders(library, 1800) as deep:  # removed by itself (pytest's clean-up recurses)
        (deep / "deep.py").write_text("class Deep:\n    pass\n")
        result = docfact_check(tmp_path / "shop.py", "--select", "DF102")
    assert "Traceback" not in result.stderr, result.stderr[-800:]
    assert result.returncode == 0 and "no findings" in result.stdout, result.stdout  # read
