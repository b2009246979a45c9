"""Offsets to lines and columns."""

from __future__ import annotations

from bisect import bisect_right


class LineIndex:
    """Maps string offsets of one text to 0-based (line, column in code points)."""

    def __init__(self, text: str):
        self.text = text
        starts = [0]
        find = text.find
        position = find("\n")
        while position != -1:
            starts.append(position + 1)
            position = find("\n", position + 1)
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def line_text(self, line: int) -> str:
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line] : end]
