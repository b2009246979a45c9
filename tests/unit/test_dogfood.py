"""docfact's own docstrings are true of its code: `docfact check server/` reports nothing.

The rule docs' examples of wrong text are examples, not docstrings; every finding here
would be either a real mistake to fix or a false alarm to learn from."""

import json
import subprocess
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"


def test_docfact_finds_nothing_in_its_own_code():
    done = subprocess.run(
        [sys.executable, "-m", "docfact", "check", str(SERVER), "--format", "json", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout)
    assert report["units_checked"] > 500
    assert [(d["path"], d["start"]["line"], d["message"]) for d in report["diagnostics"]] == []
    assert done.returncode == 0, done.stderr
