"""SONAR Correctness run in the function's own module: the real sandbox imports the
module of a project on disk, the regenerated function replaces the original in a copy of
its namespace, and both run on the same inputs (call sites and doctests included)."""

import os
import threading

import pytest

from docfact.cache import Cache
from docfact.config import Settings, SonarSettings
from docfact.engine import analyze
from docfact.sonar.home import home_of, project_interpreter
from docfact.sonar_ssc import score_findings, score_units

SHELF = '''\
"""Shelves of a shop."""

from __future__ import annotations

from dataclasses import dataclass

LIMIT = 3


@dataclass
class Item:
    sku: str
    quantity: int = 0


def _visible(item: Item) -> bool:
    return item.quantity > 0


def find(items: list[Item], sku: str) -> list[Item]:
    """Return True if an item with this SKU is in stock."""
    return [item for item in items if item.sku == sku and _visible(item)]


def in_stock(items: list[Item], sku: str) -> list[Item]:
    """The items with this SKU that are in stock."""
    return [item for item in items if item.sku == sku and _visible(item)]


class Shelf:
    """A shelf of SKUs.

    >>> Shelf(capacity=2).put("tea")
    True
    """

    def __init__(self, capacity: int = LIMIT):
        self.capacity = capacity
        self.skus = []

    def put(self, sku):
        """Put a SKU on the shelf unless it is full; say whether it fit."""
        if len(self.skus) >= self.capacity:
            return False
        self.skus.append(sku)
        return True
'''
TESTS = """\
from shop.shelf import Shelf


def test_put():
    shelf = Shelf(capacity=1)
    assert shelf.put("tea")
    assert not shelf.put("coffee")
"""


pytestmark = pytest.mark.usefixtures("quick_fluency")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "shelf.py").write_text(SHELF)
    (root / "tests" / "test_shelf.py").write_text(TESTS)
    return root


@pytest.fixture
def private_project(project):
    """The project in a folder only its owner may enter (as ``tempfile.mkdtemp`` makes
    them, or a umask of 077): as root, the jail's unprivileged user reads it all the same."""
    for folder, folders, files in os.walk(project):
        for name in folders:
            os.chmod(os.path.join(folder, name), 0o700)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o600)
    project.chmod(0o700)
    return project


# Regenerations that repeat the code as written (the docstring left out): faithful ones.
IN_STOCK = """\
def in_stock(items: list[Item], sku: str) -> list[Item]:
    return [item for item in items if item.sku == sku and _visible(item)]
"""
PUT = """\
def put(self, sku):
    if len(self.skus) >= self.capacity:
        return False
    self.skus.append(sku)
    return True
"""


async def scores(project, client, writer, programs):
    path = project / "shop" / "shelf.py"
    analysis = analyze(SHELF, str(path), "shop.shelf", Settings())
    for docstring, program in programs.items():
        writer.programs[docstring] = [program]
    items = [
        (analysis, r)
        for r in analysis.units
        if r.unit.qualname in ("find", "in_stock", "Shelf.put")
    ]
    settings = Settings(sonar=SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=40))
    found = await score_units(
        items, settings, Cache(project.parent / "cache"), client, sonar=True, ssc=False
    )
    return {r.unit.qualname: (found[r.symbol], r) for _, r in items}


def test_the_home_is_found_from_the_file(project):
    home = home_of(str(project / "shop" / "shelf.py"), "shop.shelf", SHELF, "Shelf.put")
    assert home.import_root == str(project) and home.project_root == str(project)
    assert home.python.executable is None  # no .venv: docfact's interpreter
    assert '("tea")' in home.calls and '("coffee")' in home.calls
    assert home.instances[:2] == ("Shelf(capacity=2)", "Shelf(capacity=1)")


def test_a_project_venv_is_its_interpreter(project):
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / ".venv" / "bin" / "python").symlink_to("/usr/bin/python3")
    found = project_interpreter(project)
    assert found.executable == str(project / ".venv" / "bin" / "python")
    assert str(project / ".venv") in found.roots and found.origin == "the project's .venv"


async def test_functions_using_their_module_run_there(project, client, writer):
    found = await scores(
        project,
        client,
        writer,
        {
            "Return True if an item with this SKU is in stock.": (
                "def find(items, sku):\n"
                "    return any(item.sku == sku and item.quantity for item in items)\n"
            ),
            "The items with this SKU that are in stock.": IN_STOCK,
            "Put a SKU on the shelf unless it is full; say whether it fit.": PUT,
        },
    )
    wrong, wrong_report = found["find"]
    assert not wrong.sonar.correctness.approximate
    assert wrong.sonar.correctness.value < 0.5
    assert (
        wrong.sonar.correctness.how.startswith("FuncSim over")
        and "in its module" in wrong.sonar.correctness.how
    )
    assert [f.code for f in score_findings(wrong_report, wrong)] == ["DF304"]
    faithful = found["in_stock"][0].sonar.correctness
    assert faithful.value == 1.0 and not faithful.approximate
    method = found["Shelf.put"][0].sonar.correctness
    assert method.value == 1.0 and "in its module" in method.how


async def test_a_wrong_method_is_caught_on_instances_built_as_the_project_builds_them(
    project, client, writer
):
    found = await scores(
        project,
        client,
        writer,
        {
            "Put a SKU on the shelf unless it is full; say whether it fit.": (
                "def put(self, sku):\n    self.skus.append(sku)\n    return True\n"
            ),
        },
    )
    correctness = found["Shelf.put"][0].sonar.correctness
    assert correctness.value < 1.0 and not correctness.approximate
    assert found["Shelf.put"][0].sonar.counterexample.original == "returned False"


async def test_a_private_project_is_executed_in_its_module(private_project, client, writer):
    found = await scores(
        private_project, client, writer, {"The items with this SKU that are in stock.": IN_STOCK}
    )
    faithful = found["in_stock"][0].sonar.correctness
    assert faithful.value == 1.0 and "in its module" in faithful.how, faithful


def test_call_sites_are_read_from_the_project_s_regular_files_only(project):
    """SONAR reads the project's files for the calls it makes: a file whose link leads
    out of the project (to the user's files) was read, a FIFO held the run for good, and
    a link to /dev/zero read without end. (Read in a thread of its own: a hang fails this
    test, not the session; the FIFO comes first, so /dev/zero is never reached then.)"""
    outside = project.parent / "elsewhere.py"
    outside.write_text("from shop.shelf import Shelf\nShelf(capacity=5).put('secret')\n")
    (project / "shop" / "linked.py").symlink_to(outside)
    os.mkfifo(project / "shop" / "a_fifo.py")
    (project / "shop" / "zero.py").symlink_to("/dev/zero")
    found: list = []
    path = str(project / "shop" / "shelf.py")
    reader = threading.Thread(
        target=lambda: found.append(home_of(path, "shop.shelf", SHELF, "Shelf.put")),
        daemon=True,
    )
    reader.start()
    reader.join(timeout=60)
    assert found, "reading the project's files did not end"
    [home] = found
    assert '("tea")' in home.calls and '("coffee")' in home.calls
    assert not any("secret" in call for call in home.calls), home.calls
    assert "Shelf(capacity=5)" not in home.instances


def test_call_sites_are_read_as_the_parser_counts_lines():
    import ast

    from docfact.sonar.home import _segment

    text = 'x = 1\x0c\nf(a,\n  b="é")\ng("é", 2)\r\nh(3)\rk(4, 5)'
    nodes = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)]
    parts = [p for n in nodes for p in (n, *n.args, *(k.value for k in n.keywords))]
    assert [_segment(text, p) for p in parts] == [ast.get_source_segment(text, p) for p in parts]
