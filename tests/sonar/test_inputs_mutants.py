"""Inputs that tell one-operator mutants apart (issue 25): each family below let a mutant
score 1.0 on real code (``bench/sonar_mutants.py``) because no drawn input reached the
changed line. Run in the real sandbox against a scripted model: the function's own code
must score 1.0, the mutant below 0.99.

* a limit given as a default (``textwrap.wrap(text, width=70)`` -> ``width=71``): text as
  long as the limit and its neighbours;
* a type the body tests with ``isinstance`` (humanize's ``_date_and_delta`` and a
  ``timedelta``): values of that type;
* dates relative to today (humanize's ``naturalday``: tomorrow, yesterday): dates near now,
  not only anywhere in ten thousand years;
* a parameter whose attributes the body reads (``fractions._add(a, b)``: ``a.numerator``):
  instances of the module's class that has them;
* a decorator used bare (``cachetools.func.lru_cache(maxsize=128)`` given the function as
  its ``maxsize``): functions for a parameter the body calls or tests with ``callable``, and
  a returned function compared by its own attributes too (``wrapper.cache_parameters()``);
* an annotation naming what the module imports only for type checkers (humanize's
  ``value: dt.date`` under ``if TYPE_CHECKING: import datetime as dt``): resolved with
  those imports;
* a method of a class built by ``__new__`` (``Fraction(numerator=0, denominator=None)``):
  instances drawn from its parameters, not only ``Fraction()``;
* an attribute a method compares with a literal (``shlex.push_token``: ``self.debug >= 1``):
  instances in those states too;
* a float whose derived value is compared with a number (humanize's ``naturalsize``:
  ``abs_bytes == 1``): the body's numbers and their neighbours as floats.
"""

import pytest
from sonar_helpers import assert_all_score_one, named_correctness, package_project

MODULE = '''\
"""Days and pairs."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date as Day


class Pair:
    """Two numbers."""

    def __init__(self, low=0, high=1):
        self.low = low
        self.high = high


class Clock:
    """A clock, whose time is its timer's."""

    def __init__(self, timer=None):
        self.timer = timer

    @property
    def now(self):
        return self.timer()


def later(clock, seconds=1):
    """A time (a number or a clock's), seconds later."""
    if isinstance(clock, (int, float)):
        return clock + seconds
    return clock.now + seconds


class Log:
    """A log."""

    def __init__(self):
        self.level = 0
        self.lines = []

    def note(self, text):
        """Keep the text; print it too from level 1 on."""
        if self.level >= 1:
            print(text)
        self.lines.append(text)
        return len(self.lines)


def size(value: float) -> str:
    """The value in KiB from 1536 on, else in bytes."""
    amount = abs(value)
    if amount >= 1536:
        return "KiB"
    return "bytes"


class Ratio:
    """A ratio, made by ``__new__``."""

    __slots__ = ("top", "bottom")

    def __new__(cls, top=0, bottom=1):
        self = super().__new__(cls)
        self.top, self.bottom = top, bottom
        return self

    def whole(self):
        """Whether the ratio is a whole number."""
        return self.top % self.bottom == 0


def marked(text, width=50):
    """The text, with a mark when it is exactly as long as the width."""
    if len(text) == width:
        return text + "|"
    return text


def seconds(value):
    """The seconds of a timedelta; 0 for anything else."""
    if isinstance(value, dt.timedelta):
        return value.days * 86400 + value.seconds
    return 0


def day_name(value: dt.date) -> str:
    """'tomorrow' for tomorrow, else the ISO date."""
    if (value - dt.date.today()).days == 1:
        return "tomorrow"
    return value.isoformat()


def _memo(size):
    def decorator(func):
        def wrapper(*args):
            return func(*args)

        wrapper.size = lambda: size
        return wrapper

    return decorator


def memo(size=128):
    """A decorator keeping size results; used bare (``@memo``) it keeps 128."""
    if callable(size):
        return _memo(128)(size)
    return _memo(size)


def weekend(value: Day) -> bool:
    """Whether the day is a Saturday or a Sunday."""
    return value.weekday() >= 5


def spread(pair):
    """The high number less the low one, 0 when they are in the wrong order."""
    if pair.high > pair.low:
        return pair.high - pair.low
    return 0
'''
FAITHFUL = {
    "marked": (
        "def marked(text, width=50):\n    if len(text) == width:\n"
        "        return text + '|'\n    return text\n"
    ),
    "seconds": (
        "def seconds(value):\n    if isinstance(value, dt.timedelta):\n"
        "        return value.days * 86400 + value.seconds\n    return 0\n"
    ),
    "day_name": (
        "def day_name(value: dt.date) -> str:\n"
        "    if (value - dt.date.today()).days == 1:\n        return 'tomorrow'\n"
        "    return value.isoformat()\n"
    ),
    "memo": (
        "def memo(size=128):\n    if callable(size):\n        return _memo(128)(size)\n"
        "    return _memo(size)\n"
    ),
    "weekend": "def weekend(value: Day) -> bool:\n    return value.weekday() >= 5\n",
    "Log.note": (
        "def note(self, text):\n    if self.level >= 1:\n        print(text)\n"
        "    self.lines.append(text)\n    return len(self.lines)\n"
    ),
    "size": (
        "def size(value: float) -> str:\n    amount = abs(value)\n"
        "    if amount >= 1536:\n        return 'KiB'\n"
        "    return 'bytes'\n"
    ),
    "later": (
        "def later(clock, seconds=1):\n    if isinstance(clock, (int, float)):\n"
        "        return clock + seconds\n    return clock.now + seconds\n"
    ),
    "Ratio.whole": "def whole(self):\n    return self.top % self.bottom == 0\n",
    "spread": (
        "def spread(pair):\n    if pair.high > pair.low:\n"
        "        return pair.high - pair.low\n    return 0\n"
    ),
}
MUTANT = {
    "marked": FAITHFUL["marked"].replace("width=50", "width=51"),
    "seconds": FAITHFUL["seconds"].replace("86400", "86401"),
    "day_name": FAITHFUL["day_name"].replace("== 1", "== 2"),
    "memo": FAITHFUL["memo"].replace("_memo(128)", "_memo(129)"),
    "weekend": FAITHFUL["weekend"].replace(">= 5", ">= 6"),
    "Log.note": FAITHFUL["Log.note"].replace(">= 1", ">= 2"),
    "size": FAITHFUL["size"].replace(">=", ">"),
    "Ratio.whole": FAITHFUL["Ratio.whole"].replace("%", "//"),
    "spread": FAITHFUL["spread"].replace("high - pair.low", "high + pair.low"),
}
DOCSTRINGS = {
    "marked": "The text, with a mark when it is exactly as long as the width.",
    "seconds": "The seconds of a timedelta; 0 for anything else.",
    "day_name": "'tomorrow' for tomorrow, else the ISO date.",
    "memo": "A decorator keeping size results; used bare (``@memo``) it keeps 128.",
    "weekend": "Whether the day is a Saturday or a Sunday.",
    "Log.note": "Keep the text; print it too from level 1 on.",
    "size": "The value in KiB from 1536 on, else in bytes.",
    "later": "A time (a number or a clock's), seconds later.",
    "Ratio.whole": "Whether the ratio is a whole number.",
    "spread": "The high number less the low one, 0 when they are in the wrong order.",
}

pytestmark = pytest.mark.usefixtures("quick_fluency")


@pytest.fixture
def project(tmp_path):
    return package_project(tmp_path, "days", {"days.py": MODULE.encode()})


async def correctness(project, client, writer, programs):
    return await named_correctness(project, "days", MODULE, DOCSTRINGS, programs, client, writer)


async def test_faithful_code_scores_one(project, client, writer):
    assert_all_score_one(await correctness(project, client, writer, FAITHFUL), FAITHFUL)


@pytest.mark.parametrize("name", sorted(MUTANT))
async def test_one_operator_mutants_are_caught(project, client, writer, name):
    measured = (await correctness(project, client, writer, {name: MUTANT[name]}))[name]
    assert measured.value is not None and measured.value < 0.99, measured.how
