"""The tree-sitter tree of each version of an edited Python document, from the last one.

tree-sitter reparses incrementally, but tree-sitter-python reparses most of a file for an
edit next to a line break, which is where typing happens: about 16 ms for a 6,000-line
file. So an edit inside one function (top-level, or in the body of a top-level class)
parses that function alone, and the old tree, edited but not reparsed, keeps giving the
places of the statements around it. The function parsed alone must parse as it would in
the whole file: its lines indented deeper than its first, its own line and the next
statement's closing it, no errors; else the file is reparsed.

A tree with errors, before or after an edit, is parsed afresh: error recovery depends on
which old nodes are reused (tree-sitter/tree-sitter#4001), and the findings must not
depend on the edits that led to a text.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import tree_sitter
import tree_sitter_python


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))


class Reparser:
    """Successive trees of one document (not thread-safe: its owner holds a lock)."""

    def __init__(self) -> None:
        self._data = b""
        self._tree: tree_sitter.Tree | None = None
        # The function (by start byte) whose text changed since the tree was last parsed:
        # the tree is out of date there, and it is always parsed on its own.
        self._stale_at: int | None = None
        self._alone_parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))

    def parse(self, data: bytes) -> tuple[tree_sitter.Tree, dict[int, tree_sitter.Node]]:
        """The tree of ``data``, and the functions parsed on their own (by start byte)
        that stand in for what the tree holds there."""
        tree, alone = self._update(data)
        self._data, self._tree = data, tree
        return tree, alone

    def _update(self, data: bytes) -> tuple[tree_sitter.Tree, dict[int, tree_sitter.Node]]:
        old, tree = self._data, self._tree
        if tree is None or tree.root_node.has_error:
            self._stale_at = None
            return _parser().parse(data), {}
        start = _common_prefix(old, data)
        suffix = _common_prefix(old[start:][::-1], data[start:][::-1])
        start, old_end, new_end = _leftmost(old, data, start, len(old) - suffix, len(data) - suffix)
        statement = _edited_function(tree.root_node, start, old_end)
        # Read before the edit changes the tree under the node.
        function = None if statement is None else _Function.of(statement, new_end - old_end)
        tree.edit(
            start_byte=start,
            old_end_byte=old_end,
            new_end_byte=new_end,
            start_point=_point(old, start),
            old_end_point=_point(old, old_end),
            new_end_point=_point(data, new_end),
        )
        if function is not None and self._stale_at in (None, function.start):
            alone = self._parsed_alone(data, function)
            if alone is not None:
                self._stale_at = function.start
                return tree, {function.start: alone}
        self._stale_at = None
        reparsed = _parser().parse(data, tree)
        return (_parser().parse(data) if reparsed.root_node.has_error else reparsed), {}

    def _parsed_alone(self, data: bytes, function: _Function) -> tree_sitter.Node | None:
        """The function parsed without the rest of the file, if it still parses as it
        would in the file: one whole definition of the same kind with a statement in its
        body, no errors, every line after its ``def`` line indented deeper (else the edit
        may have changed the statements around it: a line at its indentation, an open
        bracket)."""
        if not (
            _decorators_aligned(data[function.start : function.def_start], function.column)
            and _indented_under(data[function.def_start : function.end], function.column)
            and _ends_at(data, function.end, function.column)
        ):
            return None
        self._alone_parser.included_ranges = [
            tree_sitter.Range(
                function.start_point, _point(data, function.end), function.start, function.end
            )
        ]
        root = self._alone_parser.parse(data).root_node
        if root.has_error or root.child_count != 1:
            return None
        node = root.children[0]
        definition = _definition_of(node)
        body = definition.child_by_field_name("body") if definition is not None else None
        if body is None or not any(c.type != "comment" for c in body.named_children):
            return None  # no statement: the next lines may be its body in the whole file
        same = (node.type, node.start_byte, node.end_byte) == (
            function.kind,
            function.start,
            function.end,
        )
        return node if same else None


class _Function(NamedTuple):
    """Where an edited function is in the new text."""

    start: int  # its first byte (a decorator's, if it has any)
    start_point: tuple[int, int]
    end: int
    kind: str  # "function_definition" or "decorated_definition"
    def_start: int  # the first byte of its ``def`` (or ``async``) line
    column: int  # of that line

    @classmethod
    def of(cls, statement: tree_sitter.Node, growth: int) -> _Function:
        """The function at ``statement`` (of the old tree), after an edit inside it that
        made it ``growth`` bytes longer."""
        definition = _definition_of(statement)
        assert definition is not None, "the grammar gives every decorated_definition a definition"
        return cls(
            statement.start_byte,
            statement.start_point,
            statement.end_byte + growth,
            statement.type,
            definition.start_byte,
            definition.start_point[1],
        )


def _leftmost(
    old: bytes, new: bytes, start: int, old_end: int, new_end: int
) -> tuple[int, int, int]:
    """The same insertion or deletion, moved as far left as it goes: a line typed after a
    function's last one is ``"z" + "\n    w = z"``, inside the function, rather than
    ``"z\n" + "    w = z\n"`` after it. Multi-byte characters are not split."""
    if old_end == start < new_end:  # new[start:new_end] inserted
        while start > 0 and new[start - 1] == new[new_end - 1] < 0x80:
            start, old_end, new_end = start - 1, old_end - 1, new_end - 1
    elif new_end == start < old_end:  # old[start:old_end] deleted
        while start > 0 and old[start - 1] == old[old_end - 1] < 0x80:
            start, old_end, new_end = start - 1, old_end - 1, new_end - 1
    return start, old_end, new_end


def _edited_function(root: tree_sitter.Node, start: int, end: int) -> tree_sitter.Node | None:
    """The function, top-level or in the body of a top-level class, that holds the edited
    bytes [start, end) after its first one; None when the edit is elsewhere."""
    statement = _child_around(root, start, end)
    definition = _definition_of(statement)
    if definition is not None and definition.type == "class_definition":
        statement = _child_around(definition.child_by_field_name("body"), start, end)
        definition = _definition_of(statement)
    return (
        statement if definition is not None and definition.type == "function_definition" else None
    )


def _indented_under(text: bytes, column: int) -> bool:
    """Whether every line of ``text`` after the first is blank or starts with more than
    ``column`` spaces: then the indentation outside it cannot change how it parses. Tabs,
    form feeds and lone carriage returns, which indent by other rules, are refused."""
    text = text.replace(b"\r\n", b"\n")
    if b"\t" in text or b"\f" in text or b"\r" in text:
        return False
    return all(
        len(line) - len(line.lstrip(b" ")) > column or not line.strip()
        for line in text.split(b"\n")[1:]
    )


def _decorators_aligned(text: bytes, column: int) -> bool:
    """Whether the lines of a function's decorators, up to its ``def``, are each a
    decorator at ``column`` (a comment or a bracket's line between them is indented by
    the scanner's own rules)."""
    lines = text.replace(b"\r\n", b"\n").split(b"\n")
    margin = b" " * column
    return all(line.startswith(margin + b"@") for line in lines[1:-1]) and (
        len(lines) == 1 or lines[-1] == margin
    )


def _ends_at(data: bytes, end: int, column: int) -> bool:
    """Whether a function whose ``def`` is at ``column`` ends at ``end`` whatever its text:
    its line ends there, and the lines after it up to the first that holds code are blank
    or indented no deeper (comments too: the scanner gives a comment the indentation of
    the code after it). Indentation other than spaces, which the scanner measures by its
    own rules (a tab to 8 columns, a form feed back to 0), is refused."""
    if end < len(data) and data[end : end + 1] not in (b"\n", b"\r"):
        return False
    position = data.find(b"\n", end) + 1
    while 0 < position < len(data):
        line_end = data.find(b"\n", position)
        line = data[position : line_end if line_end != -1 else len(data)].removesuffix(b"\r")
        position = line_end + 1
        code = line.lstrip(b" ")
        if not code.strip():
            continue  # a blank line has no indentation
        if code[:1] in (b"\t", b"\f") or b"\r" in line or len(line) - len(code) > column:
            return False
        if not code.startswith(b"#"):
            return True
    return True


def _child_around(node: tree_sitter.Node | None, start: int, end: int) -> tree_sitter.Node | None:
    for child in node.children if node is not None else ():
        if child.start_byte < start and end <= child.end_byte:
            return child
    return None


def _definition_of(statement: tree_sitter.Node | None) -> tree_sitter.Node | None:
    if statement is not None and statement.type == "decorated_definition":
        return statement.child_by_field_name("definition")
    return statement


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix (a binary search of C-speed comparisons)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _point(data: bytes, offset: int) -> tuple[int, int]:
    """tree-sitter's (row, byte column) of ``offset``."""
    return data.count(b"\n", 0, offset), offset - (data.rfind(b"\n", 0, offset) + 1)
