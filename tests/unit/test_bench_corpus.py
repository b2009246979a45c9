"""The precision corpus: its split into a dev and a test half, and its export from mirrors
(bench/precision.py, bench/corpus.py), run as scripts on real git repositories."""

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))

import precision  # noqa: E402


def test_every_project_is_in_the_half_the_rule_gives() -> None:
    with precision.PROJECTS.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) >= 40
    assert {row["half"] for row in rows} == set(precision.HALVES)
    assert [p.half for p in precision.read_projects()] == [row["half"] for row in rows]
    split = [row for row in rows if row["half"] not in precision.CHOSEN_HALVES]
    assert all(row["half"] == precision.half_of(row["name"]) for row in split)


def test_the_fresh_half_is_chosen_by_hand_and_never_shares_a_project() -> None:
    projects = precision.read_projects()
    fresh = [p for p in projects if p.half == "fresh"]
    assert len(fresh) >= 10
    for half in precision.CHOSEN_HALVES:
        assert len([p for p in projects if p.half == half]) >= 10
    assert any(precision.half_of(p.name) == "dev" for p in fresh)  # the rule does not apply
    repos = [p.repo for p in projects]
    assert len(repos) == len(set(repos))
    assert all(p.half == "fresh" for p in precision.chosen(projects, "fresh", None))


def test_the_rule_is_the_parity_of_the_names_sha256() -> None:
    # sha256("werkzeug") ends in an odd hex digit, sha256("httpx") in an even one
    assert precision.half_of("werkzeug") == "test"
    assert precision.half_of("httpx") == "dev"


def test_a_row_moved_to_the_other_half_is_refused(tmp_path: Path) -> None:
    moved = tmp_path / "projects.csv"
    text = precision.PROJECTS.read_text()
    moved.write_text(text.replace("src/werkzeug,test,", "src/werkzeug,dev,", 1))
    try:
        precision.read_projects(moved)
    except SystemExit as refusal:
        assert "werkzeug is in half 'dev'" in str(refusal)
    else:
        raise AssertionError("a project in the wrong half was accepted")


def test_project_of_the_test_half_needs_the_test_half_named() -> None:
    projects = precision.read_projects()
    try:
        precision.chosen(projects, "dev", ["werkzeug"])
    except SystemExit as refusal:
        assert "not in the dev half" in str(refusal)
    else:
        raise AssertionError("the blind half was run without asking for it")
    assert [p.name for p in precision.chosen(projects, "test", ["werkzeug"])] == ["werkzeug"]
    assert all(p.half == "dev" for p in precision.chosen(projects, "dev", None))


def test_todo_rows_carry_message_and_sentence_after_the_label_columns() -> None:
    project = precision.Project("demo", "o/demo", "abc", "demo", "dev")
    finding = precision.Finding("demo/a.py", 3, "DF102", "fo", "no `fo`", "Takes fo.")
    outcome = precision.Outcome(project, 1, [finding], unlabelled=[finding])
    (row,) = precision.todo_rows([outcome])
    assert row[: len(precision.LABEL_COLUMNS)] == [
        "demo",
        "abc",
        "demo/a.py",
        3,
        "DF102",
        "fo",
        "",
        "",
    ]
    assert row[len(precision.LABEL_COLUMNS) :] == ["no `fo`", "Takes fo."]


def _git(repo: Path, *arguments: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *arguments], capture_output=True, text=True, check=True
    ).stdout.strip()


def _mirror_lacking_a_blob(tmp_path: Path) -> tuple[Path, str, str]:
    """A bare mirror (as ``fetch`` leaves it) of two commits, without the blob of big.bin
    (as a snapshot without its largest files); returns it, the first and the last commit."""
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "mod.py").write_text('"""A module."""\n')
    _git(work.parent, "init", "-q", str(work))
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm"]
    _git(work, "add", ".")
    _git(work, *commit, "one")
    first = _git(work, "rev-parse", "HEAD")
    (work / "big.bin").write_text("too large for the snapshot\n")
    _git(work, "add", ".")
    _git(work, *commit, "two")
    mirrors = tmp_path / "mirrors"
    bare = mirrors / "owner+demo" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    lacking = _git(work, "rev-parse", "HEAD:big.bin")
    (bare / "objects" / lacking[:2] / lacking[2:]).unlink()
    return bare, first, _git(work, "rev-parse", "HEAD")


def test_fix_commits_checks_out_with_history_without_the_lacking_blob(tmp_path: Path) -> None:
    import corpus

    mirror, first, last = _mirror_lacking_a_blob(tmp_path)
    tree = tmp_path / "tree"
    corpus.check_out(mirror, last, tree)
    assert (tree / "pkg" / "mod.py").read_text() == '"""A module."""\n'
    assert not (tree / "big.bin").exists()
    assert _git(tree, "rev-parse", "HEAD") == last
    assert _git(tree, "log", "--format=%H").split() == [last, first]  # history is there
    assert not (mirror / "worktrees").exists()  # the mirror is not written to


def test_export_leaves_out_the_blobs_a_mirror_lacks(tmp_path: Path) -> None:
    bare, _first, commit = _mirror_lacking_a_blob(tmp_path)
    mirrors = bare.parent.parent
    projects = tmp_path / "projects.csv"
    projects.write_text(f"name,repo,commit,folder,half\ndemo,owner/demo,{commit},pkg,dev\n")
    corpus = tmp_path / "corpus"
    run = [sys.executable, str(BENCH / "corpus.py"), str(mirrors), str(corpus)]
    run += ["--csv", str(projects)]
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (corpus / "demo" / "pkg" / "mod.py").read_text() == '"""A module."""\n'
    assert not (corpus / "demo" / "big.bin").exists()
    assert "left out: big.bin" in done.stdout
    again = subprocess.run(run, capture_output=True, text=True)
    assert again.returncode == 0 and "exported" not in again.stdout  # only what is missing


def test_rule_table_counts_verdicts_per_code_over_all_docstrings() -> None:
    def finding(code: str) -> precision.Finding:
        return precision.Finding("p/a.py", 1, code, "x", "m", "s")

    one = precision.Outcome(precision.Project("one", "", "", "p", "dev"), 100, [])
    one.judged = [(finding("DF102"), "true"), (finding("DF107"), "false")]
    two = precision.Outcome(precision.Project("two", "", "", "p", "dev"), 300, [])
    two.judged = [(finding("DF107"), "false"), (finding("DF107"), "")]
    rules = precision.per_rule([one, two])
    assert [(r.project.name, dict(r.verdicts), r.docstrings) for r in rules] == [
        ("DF102", {"true": 1}, 400),
        ("DF107", {"false": 2, "": 1}, 400),
    ]
    assert rules[1].false_per_100 == 0.5
    overall = precision.table("rule", rules, rules_of=400)[-1]
    assert overall.split()[:7] == ["overall", "400", "4", "1", "2", "0", "1"]


def test_corpus_checkout_keeps_the_history(tmp_path: Path) -> None:
    bare, first, commit = _mirror_lacking_a_blob(tmp_path)
    projects = tmp_path / "projects.csv"
    projects.write_text(f"name,repo,commit,folder,half\ndemo,owner/demo,{commit},pkg,dev\n")
    corpus = tmp_path / "corpus"
    run = [sys.executable, str(BENCH / "corpus.py"), str(bare.parent.parent), str(corpus)]
    done = subprocess.run(
        [*run, "--csv", str(projects), "--tree", "checkout"], text=True, capture_output=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    tree = corpus / "demo"
    assert (tree / "pkg" / "mod.py").read_text() == '"""A module."""\n'
    assert "left out: big.bin" in done.stdout
    assert _git(tree, "log", "--format=%H").split() == [commit, first]
