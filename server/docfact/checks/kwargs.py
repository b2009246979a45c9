"""What a function does with its ``**kwargs``: the keys it reads, the callees it passes
them on to, and whether it lets them go anywhere else (then any key may be used).

For DF101: a documented parameter that is not in the signature is still a parameter of
a function taking ``**kwargs`` when the function reads it (``kwargs["x"]``,
``kwargs.get("x")``, ``.pop``, ``.setdefault``, ``"x" in kwargs``) or passes the
keywords on (``f(**kwargs)``) to a callee that accepts it, which only the project graph
knows (the condition ``("forwarded", "f,g:x")``). Likewise a function that reads its
``*args`` takes positional arguments the signature does not name.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model import Unit
from .body import function_ast, is_stub_ast

if TYPE_CHECKING:
    from .context import CheckContext

_READERS = frozenset({"get", "pop", "setdefault", "__getitem__", "__contains__"})


@dataclass(frozen=True)
class KwargsUse:
    read: frozenset[str]  # keys read by literal
    forwarded_to: tuple[str, ...]  # dotted callees given ``**kwargs``
    anywhere: bool  # passed, stored or read in a way that may use any key


def kwargs_use(text: str, unit: Unit, name: str) -> KwargsUse:
    """How the function ``unit`` (its source in ``text``) uses its ``**name``."""
    function = function_ast(text, unit)
    if function is None:
        return KwargsUse(frozenset(), (), True)
    if is_stub_ast(function):
        return KwargsUse(frozenset(), (), True)  # implementations decide what it takes
    read, forwarded, anywhere = set(), [], False
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents.get(node)
        key = _literal_key(node, parent, parents)
        if key is not None:
            read.add(key)
        elif isinstance(parent, ast.keyword) and parent.arg is None:  # f(**kwargs)
            call = parents.get(parent)
            callee = _dotted(call.func) if isinstance(call, ast.Call) else None
            if callee is None:
                anywhere = True
            else:
                forwarded.append(callee)
        elif not isinstance(node.ctx, ast.Load) or isinstance(parent, ast.arguments):
            continue
        else:
            anywhere = True  # stored, passed whole, iterated, updated...
    return KwargsUse(frozenset(read), tuple(dict.fromkeys(forwarded)), anywhere)


def _literal_key(
    node: ast.Name, parent: ast.AST | None, parents: Mapping[ast.AST, ast.AST]
) -> str | None:
    """The key of ``kwargs["x"]``, ``kwargs.get("x", ...)``, ``"x" in kwargs``."""
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return _string(parent.slice)
    if isinstance(parent, ast.Attribute) and parent.attr in _READERS:
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent and call.args:
            return _string(call.args[0])
    if (
        isinstance(parent, ast.Compare)
        and parent.comparators
        and parent.comparators[-1] is node
        and len(parent.ops) == 1
        and isinstance(parent.ops[0], (ast.In, ast.NotIn))
    ):
        return _string(parent.left)
    return None


def _string(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
        return ".".join(["super", *reversed(parts)])
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def keyword_fate(use: KwargsUse, key: str) -> str | tuple[str, str]:
    """What becomes of a documented ``key`` that is not a parameter of a function taking
    ``**kwargs``: "accepted" (read, or possibly used), "unread", or the condition on
    the callees the keywords are passed on to."""
    if key in use.read or use.anywhere:
        return "accepted"
    if use.forwarded_to:
        return ("forwarded", f"{','.join(use.forwarded_to)}:{key}")
    return "unread"


def kwargs_use_of(ctx: CheckContext, kwargs: str) -> KwargsUse:
    """How the documented function (for a class, its constructor) uses ``**kwargs``."""
    unit = _function_of(ctx)
    if unit is None:
        return KwargsUse(frozenset(), (), True)
    return kwargs_use(ctx.lines.text, unit, kwargs)


def reads_positionals(ctx: CheckContext, args: str) -> bool:
    """Whether the documented function (for a class, its constructor) reads its ``*args``
    at all: indexes it, unpacks it, passes it on. Then positional arguments documented by
    name (``PColorMeshItem([x, y,] z)``) are what it takes through them."""
    unit = _function_of(ctx)
    function = function_ast(ctx.lines.text, unit) if unit is not None else None
    if function is None:
        return True
    if is_stub_ast(function):
        return True  # implementations decide what it takes
    return any(
        isinstance(node, ast.Name) and node.id == args and isinstance(node.ctx, ast.Load)
        for node in ast.walk(function)
    )


def _function_of(ctx: CheckContext) -> Unit | None:
    """The documented function, or a class's constructor (None when it has none)."""
    unit = ctx.unit
    if unit.kind != "class":
        return unit
    constructors = [
        u
        for u in ctx.nested_units
        if u.kind == "method"
        and u.qualname in (f"{unit.qualname}.__init__", f"{unit.qualname}.__new__")
    ]
    if not constructors:
        return None
    # ``__init__`` says what the keywords mean when there is one; else ``__new__``.
    # The last definition is the implementation, after its ``typing.overload``s.
    initialisers = [u for u in constructors if u.name == "__init__"]
    return (initialisers or constructors)[-1]


def is_typo_of(key: str, parameter: str | None, kwargs: str | None) -> bool:
    """Whether a documented ``key`` is a typo of a named ``parameter`` (``poxy_url`` for
    ``proxy_url``), not a keyword that merely shares its stem (``arrowsize`` beside
    ``arrows``): as long give or take a letter, and spelled alike."""
    if parameter is None or parameter == kwargs:
        return False
    return (
        abs(len(key) - len(parameter)) <= 1
        and difflib.SequenceMatcher(None, key, parameter).ratio() >= 0.85
    )
