"""Shapes of input a function's body asks for, read from its source (issue 25: the mutants
that scored 1.0 were on lines no drawn input reached). Each is a hint the sandbox's driver
(``_driver.py``) turns into values:

* the regular expressions the body matches with (``self.sentence_end_re.search``,
  ``_RATIONAL_FORMAT.match``, ``re.sub(r"(?m)^ +", ...)``): text drawn from them, so a
  parser sees the decimal and exponent strings it parses, a sentence splitter sentences;
* whether the body works line by line (``splitlines``, ``"\\n"``, a ``(?m)`` pattern): text
  of several lines sharing an indentation, what ``dedent`` removes;
* whether it reads numbers from text (``int(m.group("num"))``, ``isdigit()``, a pattern
  with ``\\d``): numbers written as text, with decimals, exponents, signs and slashes;
* the attributes of ``self`` it tests against None (``self.max_lines is None``,
  ``self.source is not None``): instances with them set, a state the constructor leaves
  unset;
* the constructor's parameters the class stores and calls (``self.__ttu = ttu`` and
  ``self.__ttu(key, value, now)``): functions, not any value.
"""

from __future__ import annotations

import ast

from .inputs import _tail, compared_attributes

MAX_NAMES = 40  # names the body reads, looked up in the sandbox for compiled patterns
_RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn"}
_RE_FUNCTIONS |= {"split"}
_NUMBER_READERS = {"int", "float", "complex", "Decimal", "Fraction", "literal_eval"}
_DIGIT_TESTS = {"isdigit", "isdecimal", "isnumeric"}
# What an attribute tested against None is also tried with: counts (``max_lines``) and text.
NOT_NONE = (1, 2, 3, "a")


def pattern_sources(function: ast.AST) -> dict[str, list[str]]:
    """{"names": the names the body reads (``_RATIONAL_FORMAT``, ``sentence_end_re`` of
    ``self.sentence_end_re``; the sandbox keeps those naming a compiled pattern), "regex":
    the pattern text given to a function of ``re`` (``re.match(r"\\d+", s)``)}."""
    names: list[str] = []
    literals: list[str] = []
    for node in ast.walk(function):
        name = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            name = node.id
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            name = node.attr
        if name and name not in names and not name.startswith("__"):
            names.append(name)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_FUNCTIONS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value not in literals
        ):
            literals.append(node.args[0].value)
    return {"names": names[:MAX_NAMES], "regex": literals[:8]}


def works_on_lines(function: ast.AST) -> bool:
    """Whether the body handles text line by line: ``splitlines``, a ``"\\n"`` in its
    literals, a multi-line pattern (``(?m)``, ``re.MULTILINE``)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and node.attr in ("splitlines", "MULTILINE", "M"):
            return True
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and ("\n" in text or "(?m)" in text):
            return True
    return False


def parses_numbers(function: ast.AST) -> bool:
    """Whether the body reads numbers from text: ``int(...)``, ``float(...)``,
    ``Decimal(...)`` of something not a literal, ``isdigit()`` and the like."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        if _tail(node.func) in _DIGIT_TESTS:
            return True
        if (
            _tail(node.func) in _NUMBER_READERS
            and node.args
            and not isinstance(node.args[0], ast.Constant)
        ):
            return True
    return False


def none_tested_state(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[list]:
    """[attribute, repr of a value] pairs for each attribute of ``self`` the method tests
    against None (``self.max_lines is None``): the values of ``NOT_NONE``, so the branch
    for a set attribute is reached although the constructor leaves it None."""
    found: list[list] = []
    for node, attribute, _owner in compared_attributes(function):
        sides = [node.left, *node.comparators]
        if any(isinstance(s, ast.Constant) and s.value is None for s in sides):
            pairs = [[attribute, repr(value)] for value in NOT_NONE]
            found += [pair for pair in pairs if pair not in found]
    return found


def stored_and_called(
    init: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef
) -> set[str]:
    """The parameters of ``init`` that it stores on ``self`` (``self.__ttu = ttu``) and that
    a method of the class ``owner`` then calls (``self.__ttu(key, value, now)``)."""
    positional = [*init.args.posonlyargs, *init.args.args]
    if not positional:
        return set()
    this = positional[0].arg
    parameters = {a.arg for a in [*positional[1:], *init.args.kwonlyargs]}
    stored: dict[str, str] = {}  # attribute -> parameter
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == this
                    and node.value.id in parameters
                ):
                    stored[target.attr] = node.value.id
    called = {
        node.func.attr
        for node in ast.walk(owner)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
    }
    return {parameter for attribute, parameter in stored.items() if attribute in called}
