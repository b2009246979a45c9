"""Abstraction: how different the programs regenerated from one docstring are.

Pair similarity = 0.5 x structural + 0.5 x lexical. Structural: Jaccard of the programs'
labelled graph edges (source node type, edge kind, target node type), edges from syntax,
control flow and data dependence, built from Python's ast. Lexical: Jaccard of token
bigrams without docstrings, comments, keywords and the names the context already gives.
Both Jaccards are over multisets (each edge or bigram occurrence counts), as SONAR's
program graphs hold every concrete edge before their labels are compared.
"""

from __future__ import annotations

import ast
import io
import itertools
import keyword
import sys
import textwrap
import tokenize
from collections import Counter
from collections.abc import Iterator, Sequence

from .measure import Measure, not_measured

Edge = tuple[str, str, str]
_SKIPPED_TOKENS = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}
_KEYWORDS = set(keyword.kwlist) | set(keyword.softkwlist)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_TRIES: tuple[type[ast.Try], ...]  # ast.TryStar (3.11) has the fields of ast.Try
if sys.version_info >= (3, 11):
    _TRIES = (ast.Try, ast.TryStar)  # try ... except* ...
else:
    _TRIES = (ast.Try,)


def jaccard(a: Counter, b: Counter) -> float:
    """Multiset Jaccard: sum of minimum counts over sum of maximum counts (1.0 for two empties)."""
    keys = a.keys() | b.keys()
    union = sum(max(a[k], b[k]) for k in keys)
    return sum(min(a[k], b[k]) for k in keys) / union if union else 1.0


# --- the program graph --------------------------------------------------------------------


def _parse(code: str) -> ast.Module:
    tree = ast.parse(textwrap.dedent(code))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, _DOCUMENTED) and body and _is_docstring(body[0]):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def graph_edges(code: str) -> Counter[Edge]:
    """Every labelled edge of ``code``'s program graph (docstrings left out)."""
    tree = _parse(code)
    edges: Counter[Edge] = Counter()
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if not isinstance(child, ast.expr_context):
                edges[(_label(parent), "syntax", _label(child))] += 1
    for block, follow in _blocks(tree):
        _flow(block, follow, edges)
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, _SCOPES))]:
        _data(scope, edges)
    return edges


def _label(node: ast.AST) -> str:
    return type(node).__name__


def _blocks(tree: ast.Module) -> Iterator[tuple[list[ast.stmt], None]]:
    """The statement lists that start a flow of their own: the module's and every body of
    a function or class."""
    yield tree.body, None
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED[1:]):
            yield node.body, None


def _branch(
    statement: ast.stmt, body: list[ast.stmt], then: tuple[ast.stmt, str] | None, edges: Counter
) -> None:
    """The edge from ``statement`` into one of its branches (``then`` if the branch is
    empty), and the branch's own edges."""
    if body:
        edges[(_label(statement), "branch", _label(body[0]))] += 1
        _flow(body, then, edges)
    elif then is not None:
        edges[(_label(statement), "branch", _label(then[0]))] += 1


def _flow(block: list[ast.stmt], follow: tuple[ast.stmt, str] | None, edges: Counter) -> None:
    """Control-flow edges of ``block``: statement -> next statement ("flow"), a compound
    statement -> the first statement of each branch ("branch"), the end of a loop body ->
    the loop ("loop"). ``follow`` is where control goes after the block, and by which kind."""
    for index, statement in enumerate(block):
        after = (block[index + 1], "flow") if index + 1 < len(block) else follow
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            _branch(statement, statement.body, (statement, "loop"), edges)
            _branch(statement, statement.orelse, after, edges)
        elif isinstance(statement, ast.If):
            _branch(statement, statement.body, after, edges)
            _branch(statement, statement.orelse, after, edges)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            _branch(statement, statement.body, after, edges)
        elif isinstance(statement, _TRIES):
            final = (statement.finalbody[0], "flow") if statement.finalbody else after
            then = (statement.orelse[0], "flow") if statement.orelse else final
            _branch(statement, statement.body, then, edges)
            for handler in statement.handlers:
                _branch(statement, handler.body, final, edges)
            if statement.orelse:
                _branch(statement, statement.orelse, final, edges)
            _flow(statement.finalbody, after, edges)
        elif isinstance(statement, ast.Match):
            for case in statement.cases:
                _branch(statement, case.body, after, edges)
        elif not isinstance(statement, _JUMPS) and after is not None:
            edges[(_label(statement), after[1], _label(after[0]))] += 1


def _data(scope: ast.AST, edges: Counter) -> None:
    """Data-dependence edges of one scope: every statement (or parameter) that binds a
    name -> every statement that reads it. Flow-insensitive: each binding is taken to
    reach each read of the same name in the scope."""
    binders: dict[str, list[str]] = {}
    readers: dict[str, list[str]] = {}
    for node, statement in _scope_nodes(scope):
        if isinstance(node, ast.arg):
            binders.setdefault(node.arg, []).append("arg")
        elif isinstance(node, ast.Name):
            table = readers if isinstance(node.ctx, ast.Load) else binders
            table.setdefault(node.id, []).append(_label(statement))
            if isinstance(statement, ast.AugAssign) and statement.target is node:
                readers.setdefault(node.id, []).append(_label(statement))  # x += 1 reads x
    for name, uses in readers.items():
        for definition, use in itertools.product(binders.get(name, ()), uses):
            edges[(definition, "data", use)] += 1


def _scope_nodes(scope: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(node, the statement holding it) for the nodes of ``scope``, not of nested scopes."""
    stack = [(child, scope) for child in ast.iter_child_nodes(scope)]
    while stack:
        node, statement = stack.pop()
        yield node, statement
        if isinstance(node, _SCOPES):
            continue  # a nested scope: its own _data call covers it
        holder = node if isinstance(node, ast.stmt) else statement
        stack.extend((child, holder) for child in ast.iter_child_nodes(node))


# --- tokens -------------------------------------------------------------------------------


def token_bigrams(code: str, context: str = "") -> Counter[tuple[str, str]]:
    """Bigrams of ``code``'s tokens without docstrings, comments, keywords and the names
    that appear in ``context`` (the signature and imports every program shares)."""
    code = textwrap.dedent(code)
    given = {t.string for t in _tokens(context) if t.type == tokenize.NAME} if context else set()
    docstrings = {
        (n.body[0].lineno, n.body[0].col_offset)
        for n in ast.walk(ast.parse(code))
        if isinstance(n, _DOCUMENTED) and n.body and _is_docstring(n.body[0])
    }
    kept = [
        t.string
        for t in _tokens(code)
        if t.type not in _SKIPPED_TOKENS
        and not (t.type == tokenize.STRING and t.start in docstrings)
        and not (t.type == tokenize.NAME and (t.string in _KEYWORDS or t.string in given))
    ]
    return Counter(itertools.pairwise(kept))


def _tokens(code: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return []  # a signature line alone does not tokenize to the end


# --- scores -------------------------------------------------------------------------------


def structural_similarity(a: str, b: str) -> float:
    return jaccard(graph_edges(a), graph_edges(b))


def lexical_similarity(a: str, b: str, context: str = "") -> float:
    return jaccard(token_bigrams(a, context), token_bigrams(b, context))


def pair_similarity(a: str, b: str, context: str = "") -> float:
    """SONAR's ImplSim of two programs; raises SyntaxError when one does not parse."""
    return 0.5 * structural_similarity(a, b) + 0.5 * lexical_similarity(a, b, context)


def abstraction(programs: Sequence[str], context: str, origin: str) -> Measure:
    """A = 1 - mean pair similarity over every pair of ``programs``; ``origin`` says where
    the pool came from ("from 1 model x 9 samples")."""
    if len(programs) < 2:
        return not_measured(f"{len(programs)} usable program(s) {origin}; at least 2 are needed")
    pairs = list(itertools.combinations(programs, 2))
    mean = sum(pair_similarity(a, b, context) for a, b in pairs) / len(pairs)
    return Measure(1.0 - mean, f"{len(programs)} programs {origin}, {len(pairs)} pairs")
