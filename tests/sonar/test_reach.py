"""Functions Correctness used to leave unexecuted: methods of a class that needs arguments
no call site gives, properties, name-mangled ``__private`` methods, ``__new__``, functions
defined under a condition, all in a file with CRLF line endings. Each is run in its module
(the real sandbox) and a faithful regeneration scores 1.0, a wrong one less."""

import pytest
from sonar_helpers import package_project

from docfact.cache import Cache
from docfact.config import Settings, SonarSettings
from docfact.engine import analyze
from docfact.sonar_ssc import score_units

METERS = '''\
"""Meters."""

import sys


class Meter:
    """A meter."""

    def __init__(self, unit: str, scale: int):
        self.unit = unit
        self.scale = scale

    @property
    def label(self):
        """The unit, scaled."""
        return f"{self.scale} {self.unit}"

    def __double(self, n: int) -> int:
        """Twice n, scaled."""

        return 2 * n * self.scale

    def reading(self, n: int) -> int:
        """The reading for n: twice n, scaled, plus one."""
        return self.__double(n) + 1


class Point(tuple):
    """A point."""

    def __new__(cls, x: int, y: int):
        """A point at x, y."""
        return super().__new__(cls, (x, y))


if sys.platform:

    def halve(n: int) -> int:
        """Half of n, rounded down."""
        return n // 2
'''
FAITHFUL = {
    "The unit, scaled.": 'def label(self):\n    return f"{self.scale} {self.unit}"\n',
    "Twice n, scaled.": "def __double(self, n):\n    return 2 * n * self.scale\n",
    "The reading for n: twice n, scaled, plus one.": (
        "def reading(self, n):\n    return self.__double(n) + 1\n"
    ),
    "A point at x, y.": "def __new__(cls, x, y):\n    return super().__new__(cls, (x, y))\n",
    "Half of n, rounded down.": "def halve(n):\n    return n // 2\n",
}
WRONG = {
    "The unit, scaled.": 'def label(self):\n    return f"{self.unit} {self.scale}"\n',
    "Twice n, scaled.": "def __double(self, n):\n    return 2 * n\n",
    "The reading for n: twice n, scaled, plus one.": (
        "def reading(self, n):\n    return self.__double(n)\n"
    ),
    "A point at x, y.": "def __new__(cls, x, y):\n    return super().__new__(cls, (y, x))\n",
    # (not n / 2: by SONAR's rules 2 == 2.0, so it matches on every even n, a score of 0.5)
    "Half of n, rounded down.": "def halve(n):\n    return n >> 2\n",
}
QUALNAMES = ("Meter.label", "Meter.__double", "Meter.reading", "Point.__new__", "halve")


pytestmark = pytest.mark.usefixtures("quick_fluency")


@pytest.fixture
def project(tmp_path):
    return package_project(tmp_path, "gauges", {"meters.py": METERS.replace("\n", "\r\n").encode()})


async def scores(project, client, writer, programs):
    path = project / "gauges" / "meters.py"
    text = path.read_bytes().decode()
    analysis = analyze(text, str(path), "gauges.meters", Settings())
    writer.programs.update({docstring: [program] for docstring, program in programs.items()})
    items = [(analysis, r) for r in analysis.units if r.unit.qualname in QUALNAMES]
    assert sorted(r.unit.qualname for _, r in items) == sorted(QUALNAMES)
    settings = Settings(sonar=SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=30))
    found = await score_units(
        items, settings, Cache(project.parent / "cache"), client, sonar=True, ssc=False
    )
    return {r.unit.qualname: found[r.symbol].sonar.correctness for _, r in items}


async def test_each_runs_in_its_module_and_a_faithful_regeneration_scores_one(
    project, client, writer
):
    found = await scores(project, client, writer, FAITHFUL)
    for qualname, correctness in found.items():
        assert correctness.value == 1.0, (qualname, correctness.how)
        assert not correctness.approximate and "in its module" in correctness.how


async def test_each_wrong_regeneration_is_caught(project, client, writer):
    found = await scores(project, client, writer, WRONG)
    for qualname, correctness in found.items():
        assert correctness.value is not None and correctness.value < 0.5, (
            qualname,
            correctness.how,
        )
        assert not correctness.approximate
