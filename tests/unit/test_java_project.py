"""The multi-file Java fixture project, checked through the CLI like a user would."""

import json
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).parent.parent / "fixtures" / "java_project"

# (file, line, column, code, the text the finding points at)
EXPECTED = [
    ("shop/Cart.java", 22, 8, "DF207", "@return the new cart"),
    ("shop/Cart.java", 32, 15, "DF101", "quantiy"),
    ("shop/Cart.java", 51, 37, "DF105", "remov"),
    ("shop/Cart.java", 53, 8, "DF207", "@return the number of items removed"),
    ("shop/Cart.java", 63, 16, "DF303", "IllegalStateException"),
    ("shop/Cart.java", 84, 42, "DF105", "Invetory"),
    # Not ("shop/Cart.java", 98, 42, "DF102", "writer"): `{@code writer}` of the parameter
    # `out` is one of no near miss (only the class `Writer`), and the fixture has no
    # history: unknown, so shown in preview only.
    ("shop/Cart.java", 110, 16, "DF303", "IOException"),
    ("shop/Item.java", 8, 11, "DF101", "weight"),
    ("shop/Shelf.java", 10, 12, "DF101", "E"),
]


def test_fixture_project_findings():
    done = subprocess.run(
        [sys.executable, "-m", "docfact", "check", str(PROJECT), "--format", "json", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["files_checked"] == 6
    found = []
    for item in report["diagnostics"]:
        path = Path(item["path"])
        relative = path.relative_to(PROJECT / "src" / "com" / "example").as_posix()
        line = path.read_text().splitlines()[item["start"]["line"] - 1]
        end = item["end"]["column"] if item["end"]["line"] == item["start"]["line"] else None
        text = line[item["start"]["column"] - 1 : end - 1 if end else None]
        found.append((relative, item["start"]["line"], item["start"]["column"], item["code"], text))
    assert sorted(found) == sorted(EXPECTED)
    by_code = {item["code"]: item for item in report["diagnostics"]}
    assert by_code["DF101"]["symbol"].startswith("com.example.shop.")
    fixes = {item["fix"]["replacement"] for item in report["diagnostics"] if item["fix"]}
    assert fixes == {"quantity", "remove", "Inventory"}
