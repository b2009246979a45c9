"""Inputs of the shapes a body asks for (issue 25, ``sonar/shapes.py``): each family below
let a one-operator mutant of the standard library or cachetools score 1.0 in
``bench/sonar_mutants.py``, because no drawn input reached the changed line. Run in the
real sandbox against a scripted model: the function's own code must score 1.0, the mutant
below 0.99.

* text its regular expressions match (``textwrap``'s ``sentence_end_re``, ``fractions``'
  ``_RATIONAL_FORMAT``);
* lines sharing an indentation, for a body that works line by line (``dedent``);
* numbers written as text, for a body that reads numbers from text (``Fraction("1.5e3")``);
* the built-in types an ``isinstance`` test names (``isinstance(numerator, str)`` in a
  constructor of numbers), half the time;
* objects having the attributes the body reads, half the time (``Fraction._add(a, b)``
  with ``b.denominator`` sharing a factor with ``a``'s; fractions are compared exactly,
  ``test_funcsim.py``: -4/4 is not -1/1);
* instances whose attributes tested against None are set (``TextWrapper.max_lines``,
  ``shlex.source``);
* functions for a constructor's parameter the class stores and calls (``TLRUCache``'s
  ``ttu``), half of them answering a number;
* an instance whose ``repr()`` raises (a ``TLRUCache`` with a timer that is no function):
  hypothesis reports the case that stopped the drawing, and that report raised, which
  ended the run with an error.
"""

import pytest
from sonar_helpers import assert_all_score_one, named_correctness, package_project

MODULE = '''\
"""Shapes."""

import math
import re

_GREETING = re.compile(r"(hello|hi) [a-z]{2,5}")


def shout(text):
    """The text in capitals with a mark when it is a greeting, else as it is."""
    if _GREETING.fullmatch(text):
        return text.upper() + "!"
    return text


def margin(text):
    """The indentation all lines share, when there are two or more."""
    rows = [row for row in text.splitlines() if row.strip()]
    if len(rows) < 2:
        return 0
    return min(len(row) - len(row.lstrip()) for row in rows)


def tenths(text):
    """A number written as text, in tenths, rounded down."""
    return math.floor(float(text) * 10)


def double(value=0):
    """Twice the value; text also gets a point."""
    if isinstance(value, str):
        return value * 2 + "."
    return value * 2


class Frac:
    """A fraction in lowest terms."""

    def __init__(self, top=0, bottom=1):
        g = math.gcd(top, bottom) or 1
        self.top, self.bottom = top // g, bottom // g


def plus(a, b):
    """The sum of two fractions, in lowest terms."""
    g = math.gcd(a.bottom, b.bottom)
    if g == 1:
        return (a.top * b.bottom + b.top * a.bottom, a.bottom * b.bottom)
    s = a.bottom // g
    t = a.top * (b.bottom // g) + b.top * s
    g2 = math.gcd(t, g)
    if g2 == 1:
        return (t, s * b.bottom)
    return (t // g2, s * (b.bottom // g2))


class Queue:
    """Items in order, up to a limit when one is set."""

    def __init__(self):
        self.limit = None

    def take(self, items):
        """The items, the first ``limit`` of them when a limit is set."""
        if self.limit is not None and len(items) > self.limit:
            return items[: self.limit]
        return items


class Stamps:
    """Values stamped by a clock."""

    def __init__(self, clock):
        self.__clock = clock

    def stamp(self, value: int):
        """The value and whether the clock reads more than one for it."""
        return (value, self.__clock(value) > 1)


class Loud:
    """A thing whose text cannot be had."""

    def __repr__(self):
        raise RuntimeError("no text")

    def twice(self, n):
        """Twice the number."""
        return 2 * n


'''
FAITHFUL = {
    "shout": (
        "def shout(text):\n    if _GREETING.fullmatch(text):\n"
        "        return text.upper() + '!'\n    return text\n"
    ),
    "margin": (
        "def margin(text):\n    rows = [row for row in text.splitlines() if row.strip()]\n"
        "    if len(rows) < 2:\n        return 0\n"
        "    return min(len(row) - len(row.lstrip()) for row in rows)\n"
    ),
    "tenths": "def tenths(text):\n    return math.floor(float(text) * 10)\n",
    "double": (
        "def double(value=0):\n    if isinstance(value, str):\n"
        "        return value * 2 + '.'\n    return value * 2\n"
    ),
    "plus": (
        "def plus(a, b):\n    g = math.gcd(a.bottom, b.bottom)\n    if g == 1:\n"
        "        return (a.top * b.bottom + b.top * a.bottom, a.bottom * b.bottom)\n"
        "    s = a.bottom // g\n    t = a.top * (b.bottom // g) + b.top * s\n"
        "    g2 = math.gcd(t, g)\n    if g2 == 1:\n        return (t, s * b.bottom)\n"
        "    return (t // g2, s * (b.bottom // g2))\n"
    ),
    "Queue.take": (
        "def take(self, items):\n"
        "    if self.limit is not None and len(items) > self.limit:\n"
        "        return items[: self.limit]\n    return items\n"
    ),
    "Stamps.stamp": "def stamp(self, value: int):\n    return (value, self.__clock(value) > 1)\n",
    "Loud.twice": "def twice(self, n):\n    return 2 * n\n",
}
MUTANT = {
    "shout": FAITHFUL["shout"].replace("'!'", "'?'"),
    "margin": FAITHFUL["margin"].replace("< 2", "< 3"),
    "tenths": FAITHFUL["tenths"].replace("* 10", "* 11"),
    "double": FAITHFUL["double"].replace("+ '.'", "+ '!'"),
    "plus": FAITHFUL["plus"].replace("if g2 == 1", "if g2 != 1"),
    "Queue.take": FAITHFUL["Queue.take"].replace("[: self.limit]", "[: self.limit + 1]"),
    "Stamps.stamp": FAITHFUL["Stamps.stamp"].replace("> 1", "> 2"),
    "Loud.twice": FAITHFUL["Loud.twice"].replace("2 * n", "3 * n"),
}
DOCSTRINGS = {
    "shout": "The text in capitals with a mark when it is a greeting, else as it is.",
    "margin": "The indentation all lines share, when there are two or more.",
    "tenths": "A number written as text, in tenths, rounded down.",
    "double": "Twice the value; text also gets a point.",
    "plus": "The sum of two fractions, in lowest terms.",
    "Queue.take": "The items, the first ``limit`` of them when a limit is set.",
    "Stamps.stamp": "The value and whether the clock reads more than one for it.",
    "Loud.twice": "Twice the number.",
}

pytestmark = pytest.mark.usefixtures("quick_fluency")


@pytest.fixture
def project(tmp_path):
    return package_project(tmp_path, "shapes", {"shapes.py": MODULE.encode()})


async def correctness(project, client, writer, programs):
    return await named_correctness(project, "shapes", MODULE, DOCSTRINGS, programs, client, writer)


def test_an_instance_whose_repr_raises_ends_the_drawing_without_an_error(project):
    from docfact.sonar.funcsim import funcsim
    from docfact.sonar.home import home_of

    path = project / "shapes" / "shapes.py"
    home = home_of(str(path), "shapes.shapes", MODULE, "Loud.twice")
    run = funcsim(None, [FAITHFUL["Loud.twice"]], "twice", cases=30, home=home)
    assert run.error is None, run.error
    assert run.results[0].value == 1.0


async def test_faithful_code_scores_one(project, client, writer):
    assert_all_score_one(await correctness(project, client, writer, FAITHFUL), FAITHFUL)


@pytest.mark.parametrize("name", sorted(MUTANT))
async def test_one_operator_mutants_are_caught(project, client, writer, name):
    measured = (await correctness(project, client, writer, {name: MUTANT[name]}))[name]
    assert measured.value is not None and measured.value < 0.99, measured.how
