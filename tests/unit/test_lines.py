"""Offsets to lines and columns, for every kind of line break LSP knows."""

import re

from hypothesis import given
from hypothesis import strategies as st

from docfact.source.lines import LineIndex


def line_starts(text: str) -> list[int]:
    """Where each line starts, the slow and obvious way."""
    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


@given(st.text(alphabet=st.sampled_from(list("ab \t\n\r\x0c\u2028é😀")), max_size=60))
def test_line_starts_match_lsp_line_breaks(text):
    index = LineIndex(text)
    assert index.starts == line_starts(text)
    for offset in range(len(text) + 1):
        line, column = index.position(offset)
        assert index.starts[line] + column == offset
        if offset <= index.line_end(line):  # not between a \r and its \n
            assert index.offset(line, column) == offset


def test_other_unicode_breaks_are_not_line_breaks():
    # Python's str.splitlines() breaks at form feeds and U+2028; LSP does not.
    index = LineIndex("a\x0cb\u2028c\nd")
    assert index.starts == [0, 6]
    assert index.line_text(0) == "a\x0cb\u2028c"
