"""The code of a docstring's doctests (``>>>`` and ``...`` lines), read with ``ast``.

What the checks need of it: the names it uses, the dotted names (``nx.edge_dfs``), the
imports and the keyword arguments of calls, each with its offsets in the docstring's
value, and every name the examples bind themselves. Examples are read as ``doctest``
reads them; one that does not parse (Python 2, a pseudo-session) is left out.
"""

from __future__ import annotations

import ast
import doctest
import warnings
from dataclasses import dataclass, field

from ..model import Field

_PARSER = doctest.DocTestParser()
_PROMPT = 4  # ">>> " and "... "


@dataclass
class DoctestCode:
    names: list[Field] = field(default_factory=list)  # used, not bound by the examples
    dotted: list[Field] = field(default_factory=list)  # ``head.attr...`` chains on a name
    # (what is imported, where its name is): "a.b" for ``import a.b``,
    # "a.|b" for ``from a import b``
    imports: list[tuple[str, Field]] = field(default_factory=list)
    # (callee as written, keyword, where): ``f(x, key=1)``
    keywords: list[tuple[str, Field]] = field(default_factory=list)
    bound: set[str] = field(default_factory=set)  # names (and attributes) the examples bind
    assigned: set[str] = field(default_factory=set)  # bound otherwise than by an import
    aliases: dict[str, str] = field(default_factory=dict)  # local -> what an import binds


def doctest_code(value: str) -> DoctestCode:
    """The doctest code of a docstring's ``value`` (empty when it has none)."""
    code = DoctestCode()
    if ">>>" not in value:
        return code
    try:
        examples = _PARSER.get_examples(value)
    except ValueError:  # inconsistent indentation: doctest itself refuses it
        return code
    lines = value.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    trees = []
    for example in examples:
        if example.options.get(doctest.SKIP):
            continue  # "commented out": the example is not run
        tree = _parse(example.source)
        if tree is not None:
            trees.append((example, tree))
            code.bound |= _bound(tree)
            code.assigned |= _bound(tree, imports=False)
    for example, tree in trees:
        _read(code, tree, _Locator(lines, starts, example))
    return code


def _parse(source: str) -> ast.AST | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError):
            return None


# The nodes that carry a position (a module or a context such as Load carries none).
_Positioned = ast.expr | ast.stmt | ast.keyword


class _Locator:
    """Value offsets of the nodes of one example's source."""

    def __init__(self, lines: list[str], starts: list[int], example: doctest.Example) -> None:
        self.lines, self.starts, self.example = lines, starts, example

    def field(self, node: _Positioned, text: str) -> Field | None:
        line = self.example.lineno + node.lineno - 1
        if line >= len(self.lines):
            return None
        prefix = self.example.indent + _PROMPT
        source_line = self.lines[line][prefix:]
        column = len(source_line.encode("utf-8")[: node.col_offset].decode("utf-8", "replace"))
        start = self.starts[line] + prefix + column
        return Field(text, start, start + len(text))

    def find(self, node: _Positioned, text: str) -> Field | None:
        """``text`` at or after ``node``'s start, on its line (a keyword, an imported name)."""
        line = self.example.lineno + node.lineno - 1
        if line >= len(self.lines):
            return None
        at = self.lines[line].find(text, self.example.indent + _PROMPT)
        if at < 0:
            return None
        return Field(text, self.starts[line] + at, self.starts[line] + at + len(text))


def _bound(tree: ast.AST, imports: bool = True) -> set[str]:
    """Every name an example binds, at any depth, and the attributes it sets
    (``obj.flag = True``); with ``imports``, the names imports bind too."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            bound.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias) and imports:
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
    return bound


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _read(code: DoctestCode, tree: ast.AST, at: _Locator) -> None:
    chained = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                code.aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
                where = at.find(node, alias.name)
                if where is not None:
                    code.imports.append((alias.name, where))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name == "*":
                    continue
                code.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                where = at.find(node, alias.name) if alias.name != node.module else None
                if where is not None:
                    code.imports.append((f"{node.module}.|{alias.name}", where))
        elif isinstance(node, ast.Attribute) and id(node) not in chained:
            dotted = _dotted(node)
            inner = node.value
            while isinstance(inner, ast.Attribute):
                chained.add(id(inner))
                inner = inner.value
            if dotted is not None:
                where = at.field(inner, dotted)
                if where is not None and where.text == _text_at(at, where):
                    code.dotted.append(where)
        elif (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id not in code.bound
        ):
            where = at.field(node, node.id)
            if where is not None:
                code.names.append(where)
        if isinstance(node, ast.Call) and node.keywords:
            callee = _dotted(node.func)
            for keyword in node.keywords:
                if callee is not None and keyword.arg is not None:
                    where = at.field(keyword, keyword.arg)
                    if where is not None:
                        code.keywords.append((callee, where))


def _text_at(at: _Locator, where: Field) -> str:
    """What the value holds at ``where`` (a chain written across lines does not match)."""
    line = next(k for k in range(len(at.starts) - 1) if at.starts[k + 1] > where.start)
    column = where.start - at.starts[line]
    return at.lines[line][column : column + len(where.text)]
