"""`docfact check` as a user runs it: formats, exit codes, configuration, bad input."""

import json
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

BAD = '''\
def restock(item, amount):
    """Add stock.

    Args:
        item: The item.
        ammount: How many.
    """
'''
GOOD = '''\
def restock(item, amount):
    """Add stock.

    Args:
        item: The item.
        amount: How many.
    """
'''


def run(*args, cwd=None, env=None):
    environment = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "docfact", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "bad.py").write_text(BAD)
    (tmp_path / "pkg" / "good.py").write_text(GOOD)
    return tmp_path


def test_json_contract(project):
    done = run("check", project / "pkg", "--format", "json", cwd=project)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["tool"] == "docfact" and report["files_checked"] == 3
    assert report["units_checked"] == 2
    [diagnostic] = report["diagnostics"]
    assert diagnostic["path"] == str(project / "pkg" / "bad.py")
    assert diagnostic["symbol"] == "pkg.bad.restock"
    assert diagnostic["code"] == "DF101" and diagnostic["criterion"] == "name"
    assert diagnostic["severity"] == "warning"
    assert diagnostic["start"] == {"line": 6, "column": 9}
    assert diagnostic["end"] == {"line": 6, "column": 16}
    assert diagnostic["sentence"] == "ammount: How many."
    assert diagnostic["evidence"][0]["line"] == 1
    assert diagnostic["fix"]["replacement"] == "amount"
    assert diagnostic["fix"]["start"] == diagnostic["start"]
    assert diagnostic["fix"]["safety"] == "safe"  # one typo from an undocumented parameter
    assert report["scores"] == []


def test_path_is_joined_as_given(project):
    done = run("check", "pkg", "--format", "json", cwd=project)
    paths = {d["path"] for d in json.loads(done.stdout)["diagnostics"]}
    assert paths == {os.path.join("pkg", "bad.py")}


def test_text_format_and_summary(project):
    done = run("check", project / "pkg", cwd=project)
    lines = done.stdout.strip().splitlines()
    assert lines[0] == f"{project / 'pkg' / 'bad.py'}:6:9: DF101 " + lines[0].split(" DF101 ")[1]
    assert lines[-1] == "Checked 2 docstrings in 3 files: 1 warning."


def test_sarif_format(project):
    done = run("check", project / "pkg", "--format", "sarif", cwd=project)
    sarif = json.loads(done.stdout)
    assert sarif["version"] == "2.1.0"
    [result] = sarif["runs"][0]["results"]
    assert result["ruleId"] == "DF101" and result["level"] == "warning"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (6, 9)
    assert (
        result["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"]
        == "amount"
    )
    assert result["fixes"][0]["properties"] == {"safety": "safe"}
    assert sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"] == "DF101"


URI_CHARACTERS = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-F]{2})*")  # RFC 3986 path


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_sarif_uris_are_percent_encoded_and_name_their_files(tmp_path, where):
    """A file named with a space, `#`, `%`, `?`, a colon or a non-ASCII letter was written
    into the URI as it is: an invalid URI, or one naming another file (`#1.py` read as a
    fragment of `odd`, `100%41.py` as `100A.py`)."""
    names = ["a b.py", "odd#1.py", "100%41.py", "what?.py", "a:b.py", "café.py", "日本.py"]
    (tmp_path / "pkg").mkdir()
    for name in names:
        (tmp_path / "pkg" / name).write_text(BAD)
    target = "pkg" if where == "relative" else tmp_path / "pkg"
    done = run("check", target, "--format", "sarif", "--no-cache", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    named = set()
    for result in json.loads(done.stdout)["runs"][0]["results"]:
        [change] = result["fixes"][0]["artifactChanges"]
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert change["artifactLocation"]["uri"] == uri
        parts = urllib.parse.urlsplit(uri)
        assert URI_CHARACTERS.fullmatch(parts.path), uri
        assert (parts.query, parts.fragment) == ("", ""), uri
        if where == "relative":  # as today: relative to where docfact ran, no base given
            assert parts.scheme == parts.netloc == "", uri
            path = tmp_path / urllib.parse.unquote(uri)
        else:
            assert (parts.scheme, parts.netloc) == ("file", ""), uri
            path = Path(urllib.request.url2pathname(parts.path))
        assert path.parent == tmp_path / "pkg" and path.is_file(), uri
        named.add(path.name)
    assert named == set(names)


def test_exit_codes(project):
    assert run("check", project / "pkg" / "good.py").returncode == 0
    assert run("check", project / "pkg" / "bad.py").returncode == 1
    assert run("check", project / "pkg" / "bad.py", "--fail-on", "error").returncode == 0
    assert run("check", project / "pkg" / "bad.py", "--ignore", "DF101").returncode == 0


@pytest.mark.parametrize(
    "args, expected",
    [
        (["check"], "the following arguments are required"),
        (["check", "x.py", "--format", "xml"], "invalid choice"),
        (["check", "x.py", "--select", "E501"], "not a docfact rule code"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args, expected):
    done = run(*args)
    assert done.returncode == 2
    assert expected in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_missing_path_exits_2(tmp_path):
    done = run("check", tmp_path / "nope.py")
    assert done.returncode == 2
    assert "no such file or directory" in done.stderr


@pytest.mark.parametrize(
    "table, message",
    [
        ("[tool.docfact]\nselct = ['DF5']\n", "unknown setting(s): selct"),
        ("[tool.docfact]\nfail-on = 'sometimes'\n", "'sometimes' is not one of"),
        ("[tool.docfact\n", "not valid TOML"),
    ],
)
def test_bad_configuration_exits_2(project, table, message):
    (project / "pyproject.toml").write_text(table)
    done = run("check", project / "pkg")
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_pyproject_settings_and_per_file_ignores(project):
    (project / "pyproject.toml").write_text(
        textwrap.dedent("""
        [tool.docfact]
        select = ["DF5"]
        per-file-ignores = {"pkg/bad.py" = ["DF101"]}
    """)
    )
    report = json.loads(run("check", project / "pkg", "--format", "json").stdout)
    # DF101 is ignored in bad.py; DF501 (selected) reports its undocumented `amount`.
    assert [(Path(d["path"]).name, d["code"]) for d in report["diagnostics"]] == [
        ("bad.py", "DF501")
    ]


def test_gitignore_and_exclude_are_respected(project):
    (project / ".gitignore").write_text("pkg/bad.py\n")
    assert run("check", project).returncode == 0
    (project / ".gitignore").unlink()
    (project / "pyproject.toml").write_text("[tool.docfact]\nexclude = ['bad.py']\n")
    assert run("check", project).returncode == 0


def test_bad_files_are_skipped_with_a_reason(project):
    (project / "pkg" / "binary.py").write_bytes(b"\x00\x01\x02def f(): pass")
    (project / "pkg" / "latin.py").write_bytes(b"def f():\n    '''Caf\xe9.'''\n")
    (project / "pkg" / "declared.py").write_bytes(
        b"# -*- coding: latin-1 -*-\ndef f(count):\n    '''Caf\xe9 `coutn`.'''\n"
    )
    (project / "pkg" / "huge.py").write_text("x = 1\n" * 400_000)
    (project / "pkg" / "broken.py").write_text("def f(:\n    '''Broken.'''\n\n" + BAD)
    done = run("check", project / "pkg", "--format", "json", "--select", "DF102")
    assert "binary file" in done.stderr
    assert "latin.py: not valid utf-8" in done.stderr
    assert "huge.py: over the" in done.stderr
    report = json.loads(done.stdout)
    found = {(Path(d["path"]).name, d["code"]) for d in report["diagnostics"]}
    assert ("declared.py", "DF102") in found  # PEP 263 encodings are honoured
    assert ("broken.py", "DF101") in found  # what parses is still checked
    assert "Traceback" not in done.stderr


def test_cache_makes_the_second_run_identical(project, tmp_path):
    cache = tmp_path / "cache"
    first = run("check", project / "pkg", "--format", "json", "--cache-dir", cache)
    second = run("check", project / "pkg", "--format", "json", "--cache-dir", cache)
    assert first.stdout == second.stdout
    assert (cache / "results.sqlite3").is_file()


def test_corrupt_cache_is_moved_aside(project, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "results.sqlite3").write_bytes(b"this is not a database" * 100)
    done = run("check", project / "pkg", "--format", "json", "--cache-dir", cache)
    assert done.returncode == 1
    assert "moved to" in done.stderr and "rebuilt" in done.stderr
    assert list(cache.glob("results.sqlite3.corrupt-*"))


def test_a_cache_of_another_schema_is_rebuilt_once(project, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    db = sqlite3.connect(cache / "results.sqlite3")
    db.execute("CREATE TABLE results (key TEXT PRIMARY KEY, blob BLOB)")
    db.commit()
    db.close()
    first = run("check", project / "pkg", "--format", "json", "--cache-dir", cache)
    assert first.returncode == 1 and "rebuilt" in first.stderr
    second = run("check", project / "pkg", "--format", "json", "--cache-dir", cache)
    assert second.stderr == "" and second.stdout == first.stdout


def test_cached_values_of_another_shape_are_misses(project, tmp_path):
    """Every entry overwritten with JSON of the wrong shape: recomputed, no KeyError."""
    cache = tmp_path / "cache"
    first = run("check", project / "pkg", "--format", "json", "--cache-dir", cache)
    db = sqlite3.connect(cache / "results.sqlite3")
    for shape in ('{"units": "many"}', "[1, 2]", '{"skipped": null}'):
        db.execute("UPDATE results SET value = ?", (shape,))
        db.commit()
        again = run("check", project / "pkg", "--format", "json", "--cache-dir", cache)
        assert again.stdout == first.stdout and "Traceback" not in again.stderr
    db.close()


def test_examples_have_a_mistake_of_each_kind():
    report = json.loads(run("check", EXAMPLES, "--format", "json", "--no-cache").stdout)
    found = {d["code"] for d in report["diagnostics"]}
    assert {
        "DF101",
        "DF103",
        "DF201",
        "DF202",
        "DF203",
        "DF204",
        "DF302",
        "DF207",
        "DF303",
    } <= found  # the last two from the Java file
    assert not {"DF102", "DF205"} & found  # preview rules: shown with --preview only
    previewed = json.loads(
        run("check", EXAMPLES, "--format", "json", "--no-cache", "--preview").stdout
    )
    assert {"DF102", "DF205"} <= {d["code"] for d in previewed["diagnostics"]}
    # A preview rule selected by its own code runs alone, without the rest of preview.
    selected = json.loads(
        run("check", EXAMPLES, "--format", "json", "--no-cache", "--select", "DF102").stdout
    )
    assert {d["code"] for d in selected["diagnostics"]} - found == {"DF102"}


def test_many_files_use_worker_processes(tmp_path):
    for index in range(40):
        (tmp_path / f"m{index}.py").write_text(BAD)
    done = run("check", tmp_path, "--format", "json", "--jobs", "2", "--no-cache")
    assert len(json.loads(done.stdout)["diagnostics"]) == 40


def test_serve_rejects_a_bad_address():
    done = run("serve", "--tcp", "nonsense")
    assert done.returncode == 2 and "is not HOST:PORT" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("form", ["json", "sarif", "text"])
def test_a_lone_surrogate_in_a_docstring_is_printed_escaped(tmp_path, form):
    (tmp_path / "odd.py").write_bytes(b'def f(count):\n    """Uses `coutn` and \\ud800 here."""\n')
    done = run("check", tmp_path / "odd.py", "--format", form, "--no-cache", "--select", "DF102")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    if form == "json":
        assert json.loads(done.stdout)["diagnostics"][0]["sentence"].endswith("\ud800 here.")


def test_pathological_but_valid_files(tmp_path):
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "bom.py").write_bytes(b'\xef\xbb\xbf"""Doc."""\n')
    (tmp_path / "deep.py").write_text(
        'def f(x):\n    """Doc of `x`."""\n    return ' + "(" * 3000 + "x" + ")" * 3000 + "\n"
    )
    (tmp_path / "long.py").write_text('def f(x):\n    """' + "word " * 100_000 + '"""\n')
    (tmp_path / "half.py").write_text('def f(x):\n    """Args:\n\tx (int\n    :param\n    ```\n')
    done = run("check", tmp_path, "--format", "json", "--no-cache")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files_checked"] == 5


def test_serve_with_a_log_file_that_cannot_be_written(tmp_path):
    done = run("serve", "--log-file", tmp_path / "no-such-folder" / "docfact.log")
    assert done.returncode == 2
    assert (
        "docfact: error: --log-file" in done.stderr and "No such file or directory" in done.stderr
    )


def test_the_summary_counts_findings_in_plural():
    # "3 warning" was printed for three warnings.
    from docfact.output import to_text
    from docfact.runner import RunResult

    def finding(severity):
        return {
            "path": "a.py",
            "start": {"line": 1, "column": 1},
            "code": "DF107",
            "message": "m",
            "severity": severity,
        }

    result = RunResult(files_checked=1, units_checked=1)
    result.diagnostics = [finding("warning")] * 3 + [finding("error"), finding("information")]
    assert to_text(result).splitlines()[-1] == (
        "Checked 1 docstring in 1 file: 1 error, 3 warnings, 1 information."
    )
