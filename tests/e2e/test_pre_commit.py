"""The pre-commit hook of .pre-commit-hooks.yaml, run by the real pre-commit tool on a
temporary repository: a commit with a stale docstring is refused, its fix goes through.

The hook is declared as in .pre-commit-hooks.yaml, but as a local hook of language
`system` that runs this Python's docfact: the published `language: python` hook would
install docfact and its dependencies from the package index, which the test must not need.
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
STALE = '''def restock(item, amount):
    """Add stock.

    Args:
        item: The item.
        ammount: How many.
    """
    return item
'''


def local_hook(args: list[str] | None = None) -> dict:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "docfact" and hook["language"] == "python"
    assert hook["entry"].split()[0] == "docfact"
    entry = " ".join([shlex.quote(sys.executable), "-m", *hook["entry"].split()])
    return {**hook, "entry": entry, "language": "system", **({"args": args} if args else {})}


def run(*args, cwd, check=False):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, check=check)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@example.org")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@example.org")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    monkeypatch.setenv("DOCFACT_CACHE_DIR", str(tmp_path / "cache"))
    work = tmp_path / "repo"
    work.mkdir()
    run("git", "init", "-q", "-b", "main", cwd=work, check=True)
    (work / "README.md").write_text("a shop\n")
    return work


def configure(repo: Path, hook: dict) -> None:
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    run("git", "add", ".pre-commit-config.yaml", "README.md", cwd=repo, check=True)
    run(sys.executable, "-m", "pre_commit", "install", cwd=repo, check=True)


def test_a_commit_with_a_stale_docstring_is_refused(repo):
    configure(repo, local_hook())
    (repo / "shop.py").write_text(STALE)
    run("git", "add", "shop.py", cwd=repo, check=True)
    refused = run("git", "commit", "-m", "stale", cwd=repo)
    assert refused.returncode != 0
    output = refused.stdout + refused.stderr
    assert "docfact" in output and "Failed" in output
    assert "shop.py:6:9: DF101 `ammount` is not a parameter of `restock`" in output

    (repo / "shop.py").write_text(STALE.replace("ammount", "amount"))
    run("git", "add", "shop.py", cwd=repo, check=True)
    accepted = run("git", "commit", "-m", "fixed", cwd=repo)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "docfact..." in accepted.stderr and "Passed" in accepted.stderr


def test_the_hook_skips_commits_without_python_or_java(repo):
    configure(repo, local_hook())
    (repo / "shop.py").write_text(STALE)  # there, but not in the commit
    (repo / "notes.txt").write_text("notes\n")
    run("git", "add", "notes.txt", cwd=repo, check=True)
    done = run("git", "commit", "-m", "notes", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(no files to check)Skipped" in done.stderr


def test_java_files_and_a_baseline_in_args(repo):
    configure(repo, local_hook(["--baseline", "docfact-baseline.json", "."]))
    (repo / "Cart.java").write_text(
        "class Cart {\n    /**\n     * Adds.\n     * @param item the item\n     */\n"
        "    void add(String thing) { }\n}\n"
    )
    run("git", "add", "Cart.java", cwd=repo, check=True)
    # The first run writes the baseline (and passes); the baseline is then committed.
    first = run(sys.executable, "-m", "pre_commit", "run", cwd=repo)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "DF101" in (repo / "docfact-baseline.json").read_text()
    run("git", "add", "docfact-baseline.json", cwd=repo, check=True)
    done = run("git", "commit", "-m", "java", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    # A new finding in the same file is not in the baseline.
    (repo / "Cart.java").write_text(
        (repo / "Cart.java")
        .read_text()
        .replace(
            "    void add",
            "    /**\n     * Removes.\n     * @param what the item\n     */\n"
            "    void remove(String item) { }\n    void add",
        )
    )
    run("git", "add", "Cart.java", cwd=repo, check=True)
    refused = run("git", "commit", "-m", "remove", cwd=repo)
    assert refused.returncode != 0
    assert "DF101 `what` is not a parameter of `remove`" in refused.stdout + refused.stderr
    assert "`add`" not in refused.stdout + refused.stderr
