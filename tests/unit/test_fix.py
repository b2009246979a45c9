"""`check --fix` on the files: a round trip on a copy of examples/, unsafe fixes only when
asked, and never a file that changed after it was checked."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docfact import cli, runner

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def check(*args, cwd):
    return subprocess.run(
        # DF102, a preview rule selected by its code, has fixes of both safeties.
        [sys.executable, "-m", "docfact", "check", ".", "--no-cache", "--select", "DF102", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def fixes_by_safety(folder: Path) -> dict[str, list[dict]]:
    report = json.loads(check("--format", "json", cwd=folder).stdout)
    found: dict[str, list[dict]] = {}
    for d in report["diagnostics"]:
        found.setdefault(d["fix"]["safety"] if d["fix"] else "none", []).append(d)
    return found


@pytest.fixture
def examples(tmp_path):
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy)
    return copy


def test_round_trip_on_the_examples(examples):
    before = fixes_by_safety(examples)
    assert before.get("safe"), "the examples should have safe fixes"
    original = snapshot(examples)

    done = check("--fix", "--format", "json", cwd=examples)
    assert f"docfact: applied {len(before['safe'])} fixes to" in done.stderr, done.stderr
    for d in before["safe"]:
        assert (
            f"docfact: fixed {d['path']}:{d['start']['line']}:{d['start']['column']}: {d['code']}"
            in done.stderr
        )
    # The report is of what remains, where it now is: the findings without a safe fix.
    remaining = json.loads(done.stdout)["diagnostics"]
    assert sorted(d["code"] for d in remaining) == sorted(
        d["code"] for safety, found in before.items() if safety != "safe" for d in found
    )
    assert remaining == json.loads(check("--format", "json", cwd=examples).stdout)["diagnostics"]

    after = fixes_by_safety(examples)
    assert "safe" not in after, after.get("safe")
    changed = snapshot(examples)
    assert changed != original
    assert set(changed) == set(original)  # no file made or left behind

    again = check("--fix", cwd=examples)
    assert "docfact: applied 0 fixes to 0 files" in again.stderr
    assert snapshot(examples) == changed


NEAR_NAME = '''def count_units(items):
    """Count the units; `count_unit` does it for one item.

    Args:
        itms: The items.
    """
    return sum(items)
'''


def test_unsafe_fixes_only_when_asked(tmp_path):
    (tmp_path / "shop.py").write_text(NEAR_NAME)
    before = fixes_by_safety(tmp_path)
    # A documented name one typo from the parameter: safe. A name merely spelled like one
    # the file defines: unsafe (it may be another thing).
    assert [d["code"] for d in before["safe"]] == ["DF101"]
    assert [d["code"] for d in before["unsafe"]] == ["DF102"]
    done = check("--fix", cwd=tmp_path)
    assert (
        "applied 1 fixes to 1 files; 1 unsafe fixes not applied (--unsafe-fixes applies them)"
        in done.stderr
    )
    assert "`count_unit`" in (tmp_path / "shop.py").read_text()
    done = check("--fix", "--unsafe-fixes", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "shop.py").read_text() == NEAR_NAME.replace("itms", "items").replace(
        "`count_unit`", "`count_units`"
    )


def test_unsafe_fixes_need_fix(examples):
    done = check("--unsafe-fixes", cwd=examples)
    assert done.returncode == 2 and "--unsafe-fixes goes with --fix" in done.stderr


def test_a_file_changed_after_the_check_is_not_touched(examples, monkeypatch, capsys):
    target = examples / "inventory" / "stock.py"
    checked_paths = runner.check_paths

    def edited_meanwhile(*args, **kwargs):
        result = checked_paths(*args, **kwargs)
        target.write_text(target.read_text() + "\n# edited in an editor meanwhile\n")
        return result

    monkeypatch.setattr(runner, "check_paths", edited_meanwhile)
    monkeypatch.chdir(examples)
    status = cli.main(["check", ".", "--no-cache", "--select", "DF102", "--fix"])
    edited_before = target.read_text()
    err = capsys.readouterr().err
    assert status == 1
    assert "stock.py changed since it was checked: not fixed" in err
    assert edited_before.endswith("# edited in an editor meanwhile\n")
    assert "ammount: How many units arrived." in edited_before  # its fix was not applied
    assert "docfact: fixed inventory/pricing.py" in err  # the other files were fixed
    assert not list(examples.rglob("*.docfact"))  # no temporary file left behind
