"""Inputs that reach what a function does: ``*args`` and ``**kwargs`` get arguments, a
method without arguments is tried on containers in many states (not only the empty one a
recipe builds), a method whose default is a class-private marker loads, a function whose
annotation names a type imported only for type checkers loads, and the rows of a
test's ``pytest.mark.parametrize`` are read as the calls they make. Run in the real sandbox
against a scripted model; each wrong regeneration here scored 1.0 or was not measurable
before."""

import pytest
from sonar_helpers import module_correctness, package_project

from docfact.sonar.home import home_of

STORE = '''\
"""Keys and stacks."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence as Numbers


def total(numbers: Numbers) -> int:
    """Twice the sum of the numbers."""
    return 2 * sum(numbers)


def key(*args, **kwargs):
    """A key of the arguments: the keywords, sorted, after a marker."""
    if kwargs:
        return args + ("|",) + tuple(sorted(kwargs.items()))
    return args


class Stack:
    """A stack."""

    __missing = object()

    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def top(self):
        """The item on top (IndexError when there is none)."""
        return self.items[-1]

    def get(self, index: int, default=__missing):
        """The item at index, else default (IndexError without one)."""
        if 0 <= index < len(self.items):
            return self.items[index]
        if default is self.__missing:
            raise IndexError(index)
        return default
'''
TESTS = """\
import pytest

from store.store import key


@pytest.mark.parametrize("first, second", [(2, 3), pytest.param("a", "b", id="text")])
def test_key(first, second):
    assert key(first, second) == (first, second)
"""
FAITHFUL = {
    "Twice the sum of the numbers.": (
        "def total(numbers: Numbers) -> int:\n    return 2 * sum(numbers)\n"
    ),
    "A key of the arguments: the keywords, sorted, after a marker.": (
        "def key(*args, **kwargs):\n    if kwargs:\n"
        "        return args + ('|',) + tuple(sorted(kwargs.items()))\n    return args\n"
    ),
    "The item on top (IndexError when there is none).": (
        "def top(self):\n    return self.items[-1]\n"
    ),
    "The item at index, else default (IndexError without one).": (
        "def get(self, index, default=__missing):\n"
        "    if 0 <= index < len(self.items):\n        return self.items[index]\n"
        "    if default is self.__missing:\n        raise IndexError(index)\n    return default\n"
    ),
}
WRONG = {
    "A key of the arguments: the keywords, sorted, after a marker.": (
        "def key(*args, **kwargs):\n    return args\n"
    ),
    "The item on top (IndexError when there is none).": (
        "def top(self):\n    return self.items[0]\n"
    ),
}
QUALNAMES = {"key", "Stack.top", "Stack.get", "total"}

pytestmark = pytest.mark.usefixtures("quick_fluency")


@pytest.fixture
def project(tmp_path):
    root = package_project(tmp_path, "store", {"store.py": STORE.encode()})
    (root / "tests").mkdir(mode=0o755)
    (root / "tests" / "test_store.py").write_text(TESTS)
    return root


async def scores(project, client, writer, programs):
    path = project / "store" / "store.py"
    return await module_correctness(
        path, STORE, "store.store", programs, QUALNAMES, client, writer, 30
    )


async def test_faithful_regenerations_are_measured_and_score_one(project, client, writer):
    found = await scores(project, client, writer, FAITHFUL)
    assert set(found) == QUALNAMES
    for qualname, correctness in found.items():
        assert correctness.value == 1.0, (qualname, correctness.how)
        assert correctness.how.startswith("FuncSim over 30 cases"), (qualname, correctness.how)


async def test_wrong_regenerations_are_caught(project, client, writer):
    found = await scores(project, client, writer, {**FAITHFUL, **WRONG})
    for qualname in ("key", "Stack.top"):
        assert found[qualname].value is not None and found[qualname].value < 0.99, (
            qualname,
            found[qualname].how,
        )


def test_the_rows_of_a_parametrized_test_are_calls(project):
    path = project / "store" / "store.py"
    home = home_of(str(path), "store.store", STORE, "key")
    assert home is not None
    assert "(2, 3)" in home.calls and "('a', 'b')" in home.calls
