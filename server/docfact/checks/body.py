"""What a function's body does, read with ``ast`` when a rule needs more than the
source model gives (the function's text is parsed alone, dedented)."""

from __future__ import annotations

import ast
import re
import textwrap
import warnings

from ..model import Unit


def function_ast(text: str, unit: Unit) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``ast`` of the function ``unit`` (its source in ``text``); None if it does not parse."""
    # From the start of its first line: the indentation before a decorator belongs to it.
    source = textwrap.dedent(text[text.rfind("\n", 0, unit.span.start) + 1 : unit.span.end])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return None
    return next(
        (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None
    )


def is_stub(text: str, unit: Unit) -> bool:
    """Whether the function ``unit`` does nothing (an interface, documenting overrides)."""
    function = function_ast(text, unit)
    return function is None or is_stub_ast(function)


def writes_code_with(text: str, unit: Unit, keyword: str) -> bool:
    """Whether the function ``unit`` has a string (its docstring aside) holding the
    statement ``keyword`` (``"return "``): code it generates."""
    function = function_ast(text, unit)
    if function is None:
        return True
    strings = [
        node.value
        for node in ast.walk(function)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    docstring = ast.get_docstring(function, clean=False)
    return any(re.search(rf"\b{keyword}\b", value) for value in strings if value != docstring)


def is_stub_ast(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body that does nothing: a docstring, ``pass``, ``...``, ``raise NotImplementedError``."""
    for statement in function.body:
        if isinstance(statement, ast.Pass) or (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
        ):
            continue
        if isinstance(statement, ast.Raise) and "NotImplementedError" in ast.unparse(statement):
            continue
        return False
    return True


def only_calls(text: str, unit: Unit) -> bool:
    """Whether the body of ``unit`` is one call whose result it drops (``self._unsupported()``):
    a helper that raises, or that the function hands its work to."""
    function = function_ast(text, unit)
    if function is None:
        return True
    body = [
        s
        for s in function.body
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Call)


# What may raise an exception the code does not name: a call, an operator (a dunder method
# may run), an attribute or a subscript, iteration, a context manager, awaiting, an import.
_MAY_RAISE = (
    ast.Call,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.BoolOp,
    ast.AugAssign,
    ast.Attribute,
    ast.Subscript,
    ast.For,
    ast.AsyncFor,
    ast.comprehension,
    ast.With,
    ast.AsyncWith,
    ast.Await,
    ast.YieldFrom,
    ast.Import,
    ast.ImportFrom,
    ast.Assert,
    ast.Delete,
    ast.JoinedStr,
    ast.Starred,
    ast.Try,
    ast.Raise,
)


def cannot_raise_implicitly(text: str, unit: Unit) -> bool:
    """Whether the body of ``unit`` does nothing that could raise an exception it does not
    name (``return key``, ``self = x``): no call, operator, attribute, subscript,
    iteration, ``with``, ``await``, import or ``raise`` of something else."""
    function = function_ast(text, unit)
    if function is None:
        return False
    body = ast.Module(body=function.body, type_ignores=[])
    return not any(isinstance(node, _MAY_RAISE) for node in ast.walk(body))
