"""A cache that came with a repository (or was damaged) never changes code through --fix and
never raises: the real CLI, a real SQLite cache folder inside the repository, crafted rows."""

import json
import os
import sqlite3
import stat
import subprocess
import sys

import pytest

from docfact.cache import Cache, default_cache_dir, machine_key

SOURCE = '''\
def restock(item, amount):
    """Add stock to an item.

    Args:
        item: The item.
    """
    item.quantity += amount
    return item
'''
PAYLOAD = "__import__('os').system('touch PWNED')\n"


def docfact(folder, machine, *arguments):
    """`docfact check . --trust-project` in ``folder`` on the machine whose user cache folder
    (and so cache key) is ``machine``."""
    done = subprocess.run(
        [sys.executable, "-m", "docfact", "check", ".", "--trust-project", *arguments],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, "DOCFACT_CACHE_DIR": str(machine)},
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def repository(tmp_path):
    folder = tmp_path / "cloned"
    folder.mkdir()
    (folder / "shop.py").write_text(SOURCE)
    (folder / "pyproject.toml").write_text('[tool.docfact]\ncache-dir = ".dfcache"\n')
    return folder


def rewrite_rows(folder, value: str, only_project_results: bool = False) -> int:
    """Replace the stored values of the repository's cache; how many rows changed."""
    with sqlite3.connect(folder / ".dfcache" / "results.sqlite3") as db:
        rows = db.execute("SELECT key, value FROM results").fetchall()
        chosen = [k for k, v in rows if not only_project_results or '"diagnostics"' in v]
        db.executemany("UPDATE results SET value=? WHERE key=?", [(value, k) for k in chosen])
    return len(chosen)


def poisoned_result(fix_start: dict, fix_end: dict, replacement: str) -> str:
    finding = {
        "path": "shop.py",
        "symbol": "shop.restock",
        "code": "DF101",
        "criterion": "name",
        "severity": "warning",
        "message": "POISON",
        "start": {"line": 1, "column": 1},
        "end": {"line": 1, "column": 2},
        "sentence": "x",
        "evidence": [],
        "fix": {
            "title": "Replace",
            "replacement": replacement,
            "start": fix_start,
            "end": fix_end,
            "safety": "safe",
        },
    }
    return json.dumps({"skipped": [], "diagnostics": [finding], "files": 1, "units": 1})


def test_a_cache_made_on_another_machine_is_a_miss(repository, tmp_path):
    attacker, victim = tmp_path / "attacker-home", tmp_path / "victim-home"
    docfact(repository, attacker)  # the attacker's run fills the repository's .dfcache
    at_import = {"line": 1, "column": 1}
    assert rewrite_rows(repository, poisoned_result(at_import, at_import, PAYLOAD), True) == 1
    shipped = docfact(repository, attacker, "--format", "json")
    assert "POISON" in shipped.stdout  # on the machine that wrote it the entry is read

    done = docfact(repository, victim, "--format", "json", "--fix")
    assert "POISON" not in done.stdout  # on another machine it is a miss: recomputed
    assert (repository / "shop.py").read_text() == SOURCE


@pytest.mark.parametrize(
    "start, end, replacement, reason",
    [
        # code inserted before the function
        ((1, 1), (1, 1), PAYLOAD, "an edit at 1:1 is not inside a docstring"),
        # the docstring closed early, code after it
        (
            (2, 29),
            (2, 29),
            '"""\n    ' + PAYLOAD.strip() + '\n    """',
            "the fixed text would change code outside the docstrings",
        ),
        # an edit that reaches from the docstring into the code
        ((5, 9), (7, 9), "", "an edit at 5:9 is not inside a docstring"),
    ],
)
def test_a_read_fix_that_changes_code_is_refused(
    repository, tmp_path, start, end, replacement, reason
):
    home = tmp_path / "home"
    docfact(repository, home)
    position = [{"line": line, "column": column} for line, column in (start, end)]
    rewrite_rows(repository, poisoned_result(*position, replacement), only_project_results=True)
    done = docfact(repository, home, "--fix")
    assert f"shop.py: fixes not applied: {reason}" in done.stderr, done.stderr
    assert (repository / "shop.py").read_text() == SOURCE
    assert not (repository / "PWNED").exists()


def test_a_fix_inside_the_docstring_is_still_written(repository, tmp_path):
    home = tmp_path / "home"
    docfact(repository, home)
    inside = [{"line": 2, "column": 12}, {"line": 2, "column": 17}]  # "stock", in the docstring
    rewrite_rows(repository, poisoned_result(*inside, "items"), only_project_results=True)
    done = docfact(repository, home, "--fix")
    assert "docfact: applied 1 fixes to 1 files" in done.stderr, done.stderr
    assert (repository / "shop.py").read_text() == SOURCE.replace("Add stock", "Add items")


@pytest.mark.parametrize(
    "value",
    [
        "{not json",
        "[" * 100_000 + "]" * 100_000,
        json.dumps({"skipped": [], "diagnostics": [{"path": 1}], "files": 1, "units": 1}),
        json.dumps({"skipped": "x", "diagnostics": None, "facts": 3, "findings": {}}),
        json.dumps({"skipped": [[1, 2, 3]], "diagnostics": [], "files": 1, "units": 1}),
    ],
    ids=["bad-json", "deep-nesting", "wrong-finding", "wrong-types", "wrong-skipped"],
)
def test_a_damaged_entry_is_a_miss_never_a_traceback(repository, tmp_path, value):
    home = tmp_path / "home"
    clean = docfact(repository, home, "--format", "json")
    assert rewrite_rows(repository, value) >= 2  # the file's outcome and the project's result
    done = docfact(repository, home, "--format", "json")
    assert done.returncode == clean.returncode
    assert json.loads(done.stdout)["diagnostics"] == json.loads(clean.stdout)["diagnostics"]


def test_the_machine_key_is_private_and_kept(tmp_path):
    key = machine_key()
    path = default_cache_dir() / "machine.key"
    assert path.read_bytes() == key and len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_values_are_stored_under_keys_bound_to_the_machine(tmp_path):
    cache = Cache(tmp_path / "c")
    cache.put("a key", {"x": 1})
    assert cache.get("a key") == {"x": 1}
    with sqlite3.connect(cache.path) as db:
        [(stored,)] = db.execute("SELECT key FROM results").fetchall()
    assert stored != "a key" and len(stored) == 64
