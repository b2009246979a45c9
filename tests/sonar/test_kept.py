"""What SONAR keeps in its cache: never a result of what this environment lacks (a
dependency not installed, hypothesis missing), and nothing it cannot read back as it wrote
it (a damaged or planted entry of the real SQLite file is a miss, measured again)."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from sonar_helpers import package_project

from docfact.cache import Cache
from docfact.config import Settings, SonarSettings
from docfact.engine import analyze
from docfact.sonar import sandbox
from docfact.sonar.funcsim import funcsim_request, run_request
from docfact.sonar.home import home_of
from docfact.sonar_ssc import score_units

needs_jail = pytest.mark.skipif(
    bool(sandbox.unavailable()) and not os.environ.get("CI"), reason="no working bubblewrap here"
)
pytestmark = [pytest.mark.usefixtures("quick_fluency"), needs_jail]
REAL_PYTHON = os.path.realpath(sys.executable)  # (not a venv's link: its base installation)

DEPENDENCY = "docfact_test_dependency"
MODULE = f'''\
"""Arithmetic with a helper package."""

import {DEPENDENCY}


def double(n: int) -> int:
    """Twice ``n``."""
    return {DEPENDENCY}.twice(n)
'''
DOUBLE = f"def double(n: int) -> int:\n    return {DEPENDENCY}.twice(n)\n"


@pytest.fixture
def project(tmp_path):
    return package_project(tmp_path, "calc", {"double.py": MODULE.encode()})


async def _score(project, client, writer):
    writer.programs["Twice ``n``."] = [DOUBLE]
    path = project / "calc" / "double.py"
    analysis = analyze(MODULE, str(path), "calc.double", Settings())
    items = [(analysis, r) for r in analysis.units if r.unit.qualname == "double"]
    settings = Settings(sonar=SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=30))
    cache = Cache(project.parent / "cache")
    try:
        found = await score_units(items, settings, cache, client, sonar=True, ssc=False)
    finally:
        cache.close()
    return found[items[0][1].symbol].sonar


async def test_a_missing_dependency_is_not_kept_as_the_function_s_result(project, client, writer):
    first = await _score(project, client, writer)
    assert first.correctness.value is None or first.correctness.approximate
    assert DEPENDENCY in first.correctness.how
    # The dependency is installed: the next run measures the function, not the cache.
    (project / f"{DEPENDENCY}.py").write_text("def twice(n):\n    return 2 * n\n")
    second = await _score(project, client, writer)
    assert not second.cache_hit
    assert second.correctness.value == 1.0 and not second.correctness.approximate


def test_hypothesis_missing_here_is_no_final_result(tmp_path):
    """A project interpreter without hypothesis, and none of docfact's to lend."""
    subprocess.run(
        [REAL_PYTHON, "-m", "venv", "--without-pip", str(tmp_path / ".venv")], check=True
    )
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'calc'\n")
    (tmp_path / "calc.py").write_text("def double(n: int) -> int:\n    return 2 * n\n")
    home = home_of(str(tmp_path / "calc.py"), "calc", (tmp_path / "calc.py").read_text(), "double")
    assert home is not None and home.python.executable
    request = funcsim_request(
        None, [DOUBLE.replace(f"{DEPENDENCY}.twice(n)", "n + n")], "double", 20, 10.0, home
    )
    assert isinstance(request, dict)
    run = run_request({**request, "support_path": []}, 10.0, None, home)
    assert run.error and "hypothesis cannot be imported" in run.error
    assert not run.complete


# Entries of the shape a SONAR result is not, or almost is.
DAMAGED = [
    [],
    "FuncSim over 200 cases",
    {"correctness": 1.0},
    {
        "correctness": {"value": "1.0", "how": "planted", "approximate": False},
        "abstraction": {"value": 1.0, "how": "planted", "approximate": False},
        "conciseness": {"value": 1.0, "how": "planted", "approximate": False},
        "counterexample": None,
        "compression": None,
    },
    {
        "correctness": {"value": 0.2, "how": "planted", "approximate": False},
        "abstraction": {"value": 1.0, "how": "planted", "approximate": False},
        "conciseness": {"value": 1.0, "how": "planted", "approximate": False},
        "counterexample": {"input": ["(1,)"], "original": 2, "candidate": None},
        "compression": None,
    },
    {
        "correctness": {"value": 7, "how": "planted", "approximate": "no"},
        "abstraction": None,
        "conciseness": {},
        "counterexample": None,
        "compression": 3,
    },
]


@pytest.mark.parametrize("entry", DAMAGED, ids=range(len(DAMAGED)))
async def test_a_damaged_cache_entry_is_a_miss(project, client, writer, entry):
    (project / f"{DEPENDENCY}.py").write_text("def twice(n):\n    return 2 * n\n")
    assert (await _score(project, client, writer)).correctness.value == 1.0
    with sqlite3.connect(project.parent / "cache" / "results.sqlite3") as db:
        db.execute("UPDATE results SET value = ?", (json.dumps(entry),))
    again = await _score(project, client, writer)
    assert not again.cache_hit
    assert again.correctness.value == 1.0 and again.correctness.how.startswith("FuncSim")
