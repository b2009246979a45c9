"""Texts that crash the Python parser, found before the parser sees them, and trees
too deep to query.

tree-sitter-python's scanner keeps its stack of indentation levels in a fixed 1 KiB
buffer between tokens; with about 500 levels and a string open it writes past the buffer
and the process dies of a segmentation fault, taking the CLI's worker or the language
server with it. CPython itself refuses more than 100 levels ("too many levels of
indentation"), so no working Python file comes near.

Counting levels needs only the leading whitespace of each line; counting every line
(continuation lines and the insides of strings too) can only overcount. A text that
looks deeper than CPython allows is parsed once in a child process, and only a text that
kills the child is refused: the check costs nothing on ordinary files and refuses no file
the parser survives.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import lru_cache

import tree_sitter

from .files import SkippedFile

CPYTHON_MAX_INDENT = 100  # CPython's MAXINDENT: deeper files are not Python
# tree-sitter's query cursor keeps a node's depth in 16 bits: past it, a query runs for
# minutes and misses captures (100,000 chained calls: 120 s). A node that deep needs a
# statement of at least that many bytes, so only such statements are measured.
QUERY_MAX_DEPTH = 65_000
_CHILD_TIMEOUT_S = 30.0
# Each level is one column deeper at least, so 100 levels need a line indented 100 columns:
# 100 spaces, or fewer characters with a tab (then the lines are measured).
_MAYBE_DEEP = re.compile(rb"^(?:[ \f]{%d}|[ \t\f]*\t)" % (CPYTHON_MAX_INDENT + 1), re.MULTILINE)
# The parser the editor and the CLI use, in a process of its own.
_PARSE_IN_CHILD = (
    "import sys, tree_sitter, tree_sitter_python\n"
    "tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))"
    ".parse(sys.stdin.buffer.read())\n"
)


def check_python_text(data: bytes) -> None:
    """Raise ``SkippedFile`` with a one-line reason if parsing ``data`` would crash."""
    if not _MAYBE_DEEP.search(data):
        return  # no line indented 100 columns (the editor asks at every keystroke)
    depth = indentation_depth(data)
    if depth <= CPYTHON_MAX_INDENT:
        return
    reason = _crash_in_child(data, depth)
    if reason:
        raise SkippedFile(reason)


def indentation_depth(data: bytes) -> int:
    """The deepest stack of indentation levels the lines of ``data`` build (an upper
    bound of the real one: every line counts, as if none continued another)."""
    levels = [0]
    deepest = 1
    for line in data.splitlines():
        stripped = line.lstrip(b" \t\f")
        if not stripped or stripped[:1] == b"#":
            continue
        width = _width(line[: len(line) - len(stripped)])
        while width < levels[-1]:
            levels.pop()
        if width > levels[-1]:
            levels.append(width)
            deepest = max(deepest, len(levels))
    return deepest - 1


def _width(indent: bytes) -> int:
    """Columns of leading whitespace, tabs to the next multiple of 8 as Python counts."""
    if b"\t" not in indent and b"\f" not in indent:
        return len(indent)
    column = 0
    for byte in indent:
        if byte == 0x09:
            column = (column // 8 + 1) * 8
        elif byte == 0x0C:
            column = 0
        else:
            column += 1
    return column


@lru_cache(maxsize=4)  # its keys hold whole texts
def _crash_in_child(data: bytes, depth: int) -> str:
    """Why parsing killed a child process ("" if it did not: an editor asks again for
    every version of a document, so the answer is kept)."""
    try:
        child = subprocess.run(
            [sys.executable, "-c", _PARSE_IN_CHILD],
            cwd=os.sep,  # `-c` imports from the working folder first: not a repository's
            input=data,
            capture_output=True,
            timeout=_CHILD_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return (
            f"{depth} levels of indentation, and the parser did not "
            f"finish in {_CHILD_TIMEOUT_S:g} s"
        )
    if child.returncode >= 0:
        return ""  # it ended by itself: the parser did not crash
    return (
        f"{depth} levels of indentation crash the Python parser "
        f"(CPython allows {CPYTHON_MAX_INDENT})"
    )


def check_tree_depth(statements: list[tree_sitter.Node]) -> None:
    """Raise ``SkippedFile`` if a node under ``statements`` lies deeper than a query can
    reach."""
    for statement in statements:
        if statement.end_byte - statement.start_byte > QUERY_MAX_DEPTH:
            depth = _depth(statement)
            if depth > QUERY_MAX_DEPTH:
                raise SkippedFile(
                    f"an expression nested {depth:,} levels deep (line "
                    f"{statement.start_point[0] + 1}); CPython refuses far less"
                )


def _depth(node: tree_sitter.Node) -> int:
    """The depth of the deepest node under ``node``, walked without recursion."""
    cursor = node.walk()
    depth = deepest = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            deepest = max(deepest, depth)
            continue
        while not cursor.goto_next_sibling():
            if depth == 0 or not cursor.goto_parent():
                return deepest
            depth -= 1
