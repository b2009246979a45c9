"""`docfact check --sonar --ssc` end to end: the real CLI, litellm, the sandbox, the packaged
MiniLM encoder, and a scripted model server on 127.0.0.1 that writes code and summaries."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from deep_folders import nested_folders
from llm_helpers import arithmetic_responder, docfact_with_model
from scripted_server import ScriptedServer

SUMS = [f"plus_{n}" for n in range(19)]  # 20 functions: tau below the odd one out
SOURCE = (
    "".join(
        f'''
def {name}(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b
'''
        for name in SUMS
    )
    + '''
def larger(a: int, b: int) -> int:
    """Return the larger of a and b."""
    return min(a, b)
'''
)


@pytest.fixture
def server():
    with ScriptedServer(responder=arithmetic_responder) as scripted:
        yield scripted


def run(tmp_path, server, *flags):
    (tmp_path / "arith.py").write_text(SOURCE)
    done = docfact_with_model(
        tmp_path, server, "check", str(tmp_path / "arith.py"), "--format", "json", *flags
    )
    return json.loads(done.stdout)


def test_sonar_and_ssc_scores_and_their_findings(tmp_path, server):
    report = run(tmp_path, server, "--sonar", "--ssc")
    scores = {s["symbol"]: s for s in report["scores"]}
    assert set(scores) == {f"arith.{name}" for name in [*SUMS, "larger"]}
    good, bad = scores["arith.plus_0"], scores["arith.larger"]
    assert (
        good["sonar"]["correctness"] == 1.0
        and "FuncSim over" in good["sonar"]["how"]["correctness"]
    )
    assert bad["sonar"]["correctness"] < 0.5
    assert bad["sonar"]["counterexample"]["input"]
    for dimension in ("abstraction", "conciseness", "fluency"):
        assert good["sonar"][dimension] is None or 0 <= good["sonar"][dimension] <= 1
    assert good["ssc"]["label"] == "high" and good["ssc"]["value"] > 0.95
    assert bad["ssc"]["label"] == "low" and bad["ssc"]["value"] < good["ssc"]["value"]
    assert good["ssc"]["k"] == 8 and bad["ssc"]["value"] < good["ssc"]["threshold"] <= 1
    [df304] = [d for d in report["diagnostics"] if d["code"] == "DF304"]
    assert (
        df304["symbol"] == "arith.larger" and df304["sentence"] == "Return the larger of a and b."
    )
    assert "for the input" in df304["message"]


def test_flags_without_a_model_are_a_usage_error(tmp_path):
    (tmp_path / "arith.py").write_text(SOURCE)
    done = subprocess.run(
        [sys.executable, "-m", "docfact", "check", str(tmp_path), "--sonar"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DOCFACT_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 2
    assert "--sonar need a model" in done.stderr and "Traceback" not in done.stderr


def test_score_prints_one_functions_card(tmp_path, server):
    run(tmp_path, server, "--ssc")  # the project's calibration set, in the cache `score` reads
    done = docfact_with_model(tmp_path, server, "score", f"{tmp_path / 'arith.py'}::larger")
    assert done.returncode == 0, done.stderr
    card = done.stdout
    assert card.startswith("arith.larger  (") and "ReFEree SCORE" in card
    assert re.search(r"Correctness\s+[█░]{10}  0\.\d\d  FuncSim over \d+ cases", card)
    assert "where they disagree: for (" in card
    assert (
        "Model understandability: Low" in card
        and "calibrated over 20 functions of the project" in card
    )
    assert "DF304" in card
    as_json = docfact_with_model(
        tmp_path, server, "score", "--format", "json", f"{tmp_path / 'arith.py'}::plus_3"
    )
    entry = json.loads(as_json.stdout)
    assert entry["symbol"] == "arith.plus_3" and entry["sonar"]["correctness"] == 1.0
    assert entry["ssc"]["label"] == "high" and entry["findings"] == []
    missing = docfact_with_model(tmp_path, server, "score", f"{tmp_path / 'arith.py'}::nowhere")
    assert missing.returncode == 2 and "has no documented function nowhere" in missing.stderr
    assert "plus_0" in missing.stderr


def test_without_a_sandbox_nothing_runs_and_the_cli_says_what_to_install(tmp_path, server):
    """No bwrap on PATH: no generated code runs anywhere, Correctness is not measured, and
    stderr names what to install (no silent fallback to a weaker jail)."""
    (tmp_path / "arith.py").write_text(SOURCE)
    bin_dir = tmp_path / "bin"  # PATH with a python but no bwrap
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    done = docfact_with_model(
        tmp_path,
        server,
        "score",
        "--format",
        "json",
        f"{tmp_path / 'arith.py'}::larger",
        PATH=str(bin_dir),
    )
    assert done.returncode == 0, done.stderr
    [warning] = [line for line in done.stderr.splitlines() if "no sandbox" in line]
    assert "install bubblewrap" in warning
    sonar = json.loads(done.stdout)["sonar"]
    assert sonar["correctness"] is None and "no sandbox" in sonar["how"]["correctness"]
    assert not any("FuncSim" in how for how in sonar["how"].values())  # nothing was run


def test_a_cached_score_loads_no_model(tmp_path, server):
    """Everything cached: neither litellm nor torch (the encoder, a causal LM) is imported,
    which is what keeps a cached `docfact score` within seconds."""
    (tmp_path / "arith.py").write_text(SOURCE)
    larger = f"{tmp_path / 'arith.py'}::larger"
    first = docfact_with_model(tmp_path, server, "score", larger)
    asked = len(server.requests)
    again = docfact_with_model(tmp_path, server, "score", larger, python_flags=("-X", "importtime"))
    assert first.returncode == again.returncode == 0 and again.stdout == first.stdout
    assert len(server.requests) == asked
    imported = {
        line.split("|")[-1].strip() for line in again.stderr.splitlines() if "import time:" in line
    }
    assert (
        "litellm" not in imported
        and "torch" not in imported
        and "docfact.sonar.prose_lm" in imported
    )


def test_a_project_deeper_than_python_recurses_is_scored(tmp_path, server):
    """SONAR reads the project's files for call sites: 1,800 nested folders (a path git
    checks out) were a RecursionError traceback in that walk, which lost the whole run; the
    walk stops at the main walk's bound and says so in one line."""
    (tmp_path / "arith.py").write_text(SOURCE)
    with nested_folders(tmp_path, 1800) as deep:  # removed by itself (pytest's clean-up recurses)
        (deep / "calls.py").write_text("from arith import larger\n\nlarger(7, 2)\n")
        done = docfact_with_model(
            tmp_path, server, "score", "--format", "json", f"{tmp_path / 'arith.py'}::larger"
        )
    assert done.returncode == 0, done.stderr[-800:]
    sonar = json.loads(done.stdout)["sonar"]
    assert sonar["correctness"] < 0.5 and "FuncSim over" in sonar["how"]["correctness"]
    [said] = [line for line in done.stderr.splitlines() if "folders deep" in line]
    assert "call sites" in said and "not read below: over 200 folders deep" in said


def test_what_this_environment_lacks_is_never_the_cached_score(tmp_path, server):
    """With one SQLite cache file throughout: no sandbox (bwrap not on PATH), then the
    project's interpreter without hypothesis (an installed package that fails to import),
    then both available. The first two say what is missing and keep nothing as the
    function's Correctness; the third measures it."""
    subprocess.run(
        [os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(tmp_path / ".venv")],
        check=True,
    )
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'arith'\n")
    (tmp_path / "arith.py").write_text(SOURCE)
    [site] = (tmp_path / ".venv").glob("lib/python*/site-packages")
    (site / "hypothesis").mkdir()
    (site / "hypothesis" / "__init__.py").write_text("raise ImportError('not installed here')\n")
    bin_dir = tmp_path / "bin"  # PATH with a python but no bwrap
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    target = f"{tmp_path / 'arith.py'}::plus_0"

    def correctness(**env):
        done = docfact_with_model(tmp_path, server, "score", "--format", "json", target, **env)
        assert done.returncode == 0, done.stderr
        sonar = json.loads(done.stdout)["sonar"]
        return sonar["correctness"], sonar["how"]["correctness"]

    assert correctness(PATH=str(bin_dir)) == (
        None,
        "not measurable: no sandbox: bubblewrap (bwrap) is not installed; install bubblewrap "
        "(Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) to run "
        "generated code",
    )
    value, how = correctness()
    assert value is None
    assert how.startswith(
        "not measurable: no generated inputs: hypothesis cannot be imported here "
        "(ImportError: not installed here); "
    )
    shutil.rmtree(site / "hypothesis")  # installed: docfact lends its own
    assert correctness() == (1.0, "FuncSim over 200 cases where the function returns in its module")
