"""Offsets to lines and columns. Lines end at \\n, \\r\\n or \\r, as in Python and LSP."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Maps string offsets of one text to 0-based (line, column in code points)."""

    def __init__(self, text: str):
        self.text = text
        if "\r" in text:
            self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        else:  # the usual text, indexed on every keystroke: splitting is several times faster
            self.starts = [0, *accumulate(len(line) + 1 for line in text.split("\n")[:-1])]

    def position(self, offset: int) -> tuple[int, int]:
        line = self.line(offset)
        return line, offset - self.starts[line]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def offset(self, line: int, column: int) -> int:
        """The offset of (line, column), clamped to the text."""
        if line >= len(self.starts):
            return len(self.text)
        return min(self.starts[line] + column, self.line_end(line))

    def line_end(self, line: int) -> int:
        """Offset just past the line's last character, before its line break."""
        if line + 1 >= len(self.starts):
            return len(self.text)
        end = self.starts[line + 1]
        while end > self.starts[line] and self.text[end - 1] in "\r\n":
            end -= 1
        return end

    def line_text(self, line: int) -> str:
        return self.text[self.starts[line] : self.line_end(line)]
