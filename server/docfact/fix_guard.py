"""What `--fix` may write: edits inside docstrings, and nothing that changes the code.

A fix comes from a rule, a model or the cache; whichever it was, it is checked against the
file as it is now before anything is written. Every edit must lie inside a docstring of the
current text (in Python a string literal standing alone as a statement, in Java a ``/**``
comment or a run of ``///`` lines), and once all are made the code outside the docstrings
must be what it was: in Python the syntax tree with every docstring blanked, in Java the
text outside comments. Anything else is refused, with the reason.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .source.lines import LineIndex

Edit = tuple[int, int, str]  # (start, end, replacement), offsets into the text


def refusal(suffix: str, before: str, edits: Sequence[Edit], after: str) -> str | None:
    """Why the ``edits`` that turn ``before`` into ``after`` may not be written, or None
    when each lies inside a docstring and the code is unchanged."""
    shape = _java_shape if suffix == ".java" else _python_shape
    try:
        docstrings, code_before = shape(before)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return f"the file does not parse now ({type(error).__name__})"
    for start, end, _ in edits:
        if start > end or not any(low <= start and end <= high for low, high in docstrings):
            line, column = LineIndex(before).position(start)
            return f"an edit at {line + 1}:{column + 1} is not inside a docstring"
    try:
        _, code_after = shape(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "the fixed text would not parse"
    if code_after != code_before:
        return "the fixed text would change code outside the docstrings"
    return None


def is_fix(fix: object) -> bool:
    """``fix`` has the shape of a finding's fix in the JSON output."""
    return (
        isinstance(fix, dict)
        and all(isinstance(fix.get(k), str) for k in ("safety", "replacement", "title"))
        and is_position(fix.get("start"))
        and is_position(fix.get("end"))
    )


def is_position(value: object) -> bool:
    """A 1-based {"line", "column"} of the JSON output."""
    return isinstance(value, dict) and all(
        type(value.get(k)) is int and value[k] >= 1 for k in ("line", "column")
    )


# --- Python ------------------------------------------------------------------------------


def _python_shape(text: str) -> tuple[list[tuple[int, int]], str]:
    """The spans of the text's docstring literals, and its syntax tree with them blanked."""
    tree = ast.parse(text)
    lines = LineIndex(text)
    spans = []
    for node in ast.walk(tree):
        if _is_docstring(node):
            literal = node.value  # type: ignore[attr-defined]
            spans.append(
                (
                    _offset(lines, literal.lineno, literal.col_offset),
                    _offset(lines, literal.end_lineno, literal.end_col_offset),
                )
            )
            literal.value = ""
    return spans, ast.dump(tree)


def _is_docstring(node: ast.AST) -> bool:
    """A string literal standing alone as a statement (a docstring of a module, class or
    function, or of the attribute above it): it does nothing when run."""
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _offset(lines: LineIndex, lineno: int | None, byte_column: int | None) -> int:
    """The text offset of ast's (1-based line, UTF-8 byte column)."""
    line = (lineno or 1) - 1
    start = lines.offset(line, 0)
    encoded = lines.text[start : lines.line_end(line)].encode("utf-8", "surrogatepass")
    return start + len(encoded[: byte_column or 0].decode("utf-8", "surrogatepass"))


# --- Java --------------------------------------------------------------------------------


def _java_shape(text: str) -> tuple[list[tuple[int, int]], str]:
    """The spans of the text's doc comments, and the text outside all its comments."""
    import tree_sitter  # only for Java files
    import tree_sitter_java

    from .source.syntax import byte_to_char_map

    data = text.encode("utf-8", "surrogatepass")
    chars = byte_to_char_map(text, data)
    comments = []
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language()))
    stack = [parser.parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type in ("block_comment", "line_comment"):
            comments.append((chars[node.start_byte], chars[node.end_byte]))
        else:
            stack.extend(node.children)
    comments.sort()
    docs = [(start, end) for start, end in comments if _is_doc_comment(text[start:end])]
    outside, at = [], 0
    for start, end in comments:
        outside.append(text[at:start])
        at = end
    outside.append(text[at:])
    return _joined_runs(docs, text), "\0".join(outside)


def _is_doc_comment(comment: str) -> bool:
    return (comment.startswith("/**") and comment != "/**/") or (
        comment.startswith("///") and not comment.startswith("////")
    )


def _joined_runs(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Doc comments separated only by blank space joined into one (a Markdown doc comment
    is a run of ``///`` lines, each its own comment)."""
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and not text[joined[-1][1] : start].strip():
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined
