"""`check --baseline` and `check --diff`, end to end on real temporary git repositories."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

STALE_NAME = '''
def restock(item, amount):
    """Add stock.

    Args:
        item: The item.
        ammount: How many.
    """
    return item
'''
PARSER = '''
class CountError(Exception):
    """A text that is not a count."""


def parse_count(text):
    """Read a count.

    Args:
        text: The digits.

    Raises:
        CountError: When the text is not a number.
    """
    if not text.isdigit():
        raise CountError(text)
    return int(text)
'''
HELPER = '''
def label(item):
    """The item's label.

    Args:
        item: The item.
    """
    return str(item)
'''


def docfact(*args, cwd):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "docfact",
            "check",
            *map(str, args),
            "--no-cache",
            "--format",
            "json",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def findings(done) -> list[tuple[str, str]]:
    """(code, symbol) of each finding reported."""
    return sorted((d["code"], d["symbol"]) for d in json.loads(done.stdout)["diagnostics"])


def git(*args, cwd):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def repo(tmp_path):
    """A repository whose one commit has a stale parameter name in `restock`."""
    git("init", "-q", "-b", "main", cwd=tmp_path)
    (tmp_path / "shop.py").write_text('"""A shop."""\n' + STALE_NAME + PARSER + HELPER)
    git("add", "-A", cwd=tmp_path)
    git("commit", "-q", "-m", "first", cwd=tmp_path)
    return tmp_path


# --- baseline ------------------------------------------------------------------------


def test_baseline_is_written_then_only_new_findings_are_reported(repo):
    baseline = repo / "docfact-baseline.json"
    first = docfact(".", "--baseline", baseline.name, cwd=repo)
    assert first.returncode == 0, first.stderr
    assert findings(first) == []
    assert "wrote 1 findings to the baseline" in first.stderr
    [entry] = json.loads(baseline.read_text())["findings"]
    assert (entry["symbol"], entry["code"], entry["text"]) == ("shop.restock", "DF101", "ammount")

    # Move restock below the other functions and edit lines around it: still known.
    (repo / "shop.py").write_text(
        '"""A shop, moved around."""\nimport os\n' + HELPER + PARSER + "\n\n" + STALE_NAME
    )
    moved = docfact(".", "--baseline", baseline.name, cwd=repo)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert findings(moved) == []
    assert "1 findings of the baseline" in moved.stderr

    # A new stale name elsewhere is reported, alone.
    (repo / "shop.py").write_text(
        (repo / "shop.py")
        .read_text()
        .replace(
            'item: The item.\n    """\n    return str(item)',
            'itme: The item.\n    """\n    return str(item)',
        )
    )
    new = docfact(".", "--baseline", baseline.name, cwd=repo)
    assert new.returncode == 1
    assert findings(new) == [("DF101", "shop.label")]


def test_baseline_counts_each_occurrence(repo):
    baseline = repo / "baseline.json"
    docfact(".", "--baseline", baseline, cwd=repo)
    # The same wrong name twice in restock: one is known, the second is new.
    (repo / "shop.py").write_text(
        (repo / "shop.py")
        .read_text()
        .replace(
            "        ammount: How many.\n", "        ammount: How many.\n        ammount: Again.\n"
        )
    )
    done = docfact(".", "--baseline", baseline, cwd=repo)
    assert findings(done) == [("DF101", "shop.restock")]


def test_a_file_that_is_not_a_baseline_is_an_error(repo):
    (repo / "baseline.json").write_text("[1, 2]")
    done = docfact(".", "--baseline", "baseline.json", cwd=repo)
    assert done.returncode == 2
    assert "baseline.json is not a docfact baseline" in done.stderr
    assert "Traceback" not in done.stderr


# --- changed code since a revision ---------------------------------------------------------


def test_editing_a_body_flags_its_now_stale_docstring_only(repo):
    assert findings(docfact(".", "--diff", "HEAD", cwd=repo)) == []
    # parse_count no longer raises CountError; its docstring did not change.
    source = (
        (repo / "shop.py")
        .read_text()
        .replace(
            "    if not text.isdigit():\n        raise CountError(text)\n    return int(text)",
            "    return sum(1 for c in text if c.isdigit())",
        )
    )
    (repo / "shop.py").write_text(source)
    everything = docfact(".", cwd=repo)
    assert findings(everything) == [("DF101", "shop.restock"), ("DF302", "shop.parse_count")]
    changed = docfact(".", "--diff", "HEAD", cwd=repo)
    assert changed.returncode == 1
    assert findings(changed) == [("DF302", "shop.parse_count")]


def test_an_edited_docstring_is_reported_and_a_moved_function_is_not(repo):
    git("checkout", "-q", "-b", "feature", cwd=repo)
    source = (repo / "shop.py").read_text().replace(STALE_NAME, "")
    # restock moved to the end, unchanged; label's docstring edited to name a wrong parameter.
    source = source.replace(
        '        item: The item.\n    """\n    return str(item)',
        '        thing: The item.\n    """\n    return str(item)',
    )
    (repo / "shop.py").write_text(source + "\n" + STALE_NAME)
    git("commit", "-q", "-am", "edit", cwd=repo)
    done = docfact(".", "--diff", "main", cwd=repo)
    assert findings(done) == [("DF101", "shop.label")]


def test_new_and_renamed_files(repo):
    git("mv", "shop.py", "store.py", cwd=repo)
    (repo / "extra.py").write_text(STALE_NAME)  # untracked: everything in it is new
    done = docfact(".", "--diff", "HEAD", cwd=repo)
    assert findings(done) == [("DF101", "extra.restock")]


def test_diff_with_a_java_file(repo):
    java = repo / "Cart.java"
    java.write_text(
        textwrap.dedent("""\
        class Cart {
            /**
             * Adds an item.
             * @param item the item
             */
            void add(String item) { }
        }
    """)
    )
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "java", cwd=repo)
    java.write_text(java.read_text().replace("void add(String item)", "void add(String thing)"))
    done = docfact(".", "--diff", "HEAD", cwd=repo)
    assert findings(done) == [("DF101", "Cart.add")]


def test_outside_a_repository_or_with_an_unknown_revision(repo, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("plain")
    (elsewhere / "a.py").write_text(STALE_NAME)
    outside = docfact(".", "--diff", "HEAD", cwd=elsewhere)
    assert outside.returncode == 2
    assert "is not inside a git repository" in outside.stderr
    unknown = docfact(".", "--diff", "no-such-branch", cwd=repo)
    assert unknown.returncode == 2
    assert "--diff no-such-branch: no such commit, branch or tag" in unknown.stderr
    assert not outside.stdout and not unknown.stdout


def test_diff_and_baseline_together(repo):
    docfact(".", "--baseline", "b.json", cwd=repo)
    # restock's docstring edited: --diff keeps it, the baseline still knows it.
    (repo / "shop.py").write_text(
        (repo / "shop.py").read_text().replace("Add stock.", "Add more stock.")
    )
    assert findings(docfact(".", "--diff", "HEAD", cwd=repo)) == [("DF101", "shop.restock")]
    assert findings(docfact(".", "--diff", "HEAD", "--baseline", "b.json", cwd=repo)) == []


@pytest.fixture(autouse=True)
def _no_user_git_config(monkeypatch, tmp_path):
    # The machine's git configuration (hooks, signing) must not change what the tests see.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
