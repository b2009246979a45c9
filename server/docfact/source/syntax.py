"""Helpers shared by the tree-sitter extractors (Python, Java)."""

from __future__ import annotations

from array import array
from itertools import accumulate


def statements_by_scope(
    captures: dict[str, list], scopes: tuple[str, ...], statements: tuple[str, ...]
) -> dict[int, dict[str, list]]:
    """Statement nodes (captures named in ``statements``), in source order, grouped by
    the id of the function that owns them: the innermost enclosing scope (captures named
    in ``scopes``), when that scope is a "function" (not a class body or a lambda)."""
    items = []
    for kind in scopes:
        items += [(n.start_byte, -n.end_byte, 0, kind, n) for n in captures.get(kind, ())]
    for kind in statements:
        items += [(n.start_byte, -n.end_byte, 1, kind, n) for n in captures.get(kind, ())]
    items.sort(key=lambda item: item[:3])
    grouped: dict[int, dict[str, list]] = {}
    open_scopes: list[tuple[int, str, int]] = []  # (end byte, kind, node id), innermost last
    for start, negative_end, is_statement, kind, node in items:
        while open_scopes and open_scopes[-1][0] <= start:
            open_scopes.pop()
        if not is_statement:
            open_scopes.append((-negative_end, kind, node.id))
        elif open_scopes and open_scopes[-1][1] == "function":
            grouped.setdefault(open_scopes[-1][2], {}).setdefault(kind, []).append(node)
    return grouped


def byte_to_char_map(text: str, data: bytes) -> _Identity | array[int]:
    """Index from UTF-8 byte offset to string offset (identity for ASCII text)."""
    if len(data) == len(text):
        return _Identity()
    widths = [len(ch.encode("utf-8", "surrogatepass")) for ch in text]
    table = array("l", [0]) * (len(data) + 1)
    for index, start in enumerate(accumulate(widths, initial=0)):
        table[start] = index
    return table


class _Identity:
    def __getitem__(self, offset: int) -> int:
        return offset
