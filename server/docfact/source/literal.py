"""Decode a Python string literal into its value, keeping the file offset of every
character, then clean it the way ``inspect.cleandoc`` does (without losing the map)."""

from __future__ import annotations

import re
import unicodedata

from ..model import DocstringText, Span

_PREFIX = re.compile(r"[A-Za-z]*")
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}
_OCTAL = frozenset("01234567")


def decode_literal(source: str, start: int, end: int) -> tuple[str, list[int]] | None:
    """Value of the literal source[start:end] and the offset of each of its characters.

    None when the literal is not a plain text string (bytes, f-strings) or is malformed.
    """
    prefix_match = _PREFIX.match(source, start, end)
    assert prefix_match is not None  # it matches everywhere, if only the empty string
    prefix = prefix_match.group().lower()
    if "b" in prefix or "f" in prefix or "t" in prefix:
        return None
    body_start = start + len(prefix)
    quote = source[body_start : body_start + 3]
    if quote not in ('"""', "'''"):
        quote = source[body_start : body_start + 1]
    if quote not in ('"""', "'''", '"', "'"):
        return None
    content_start = body_start + len(quote)
    content_end = end - len(quote)
    if content_end < content_start or source[content_end:end] != quote:
        # An unterminated literal (tree-sitter recovered): take what is there.
        content_end = end
    return _decode_body(source, content_start, content_end, raw="r" in prefix)


def _decode_body(source: str, i: int, end: int, raw: bool) -> tuple[str, list[int]]:
    body = source[i:end]
    if "\\" not in body and "\r" not in body:
        return body, list(range(i, end))  # the common case: the value is the source
    chars: list[str] = []
    offsets: list[int] = []
    while i < end:
        ch = source[i]
        if ch == "\r":
            # Python reads \r\n and a lone \r in source as one newline.
            chars.append("\n")
            offsets.append(i)
            i += 2 if source.startswith("\r\n", i) else 1
            continue
        if ch != "\\" or raw or i + 1 >= end:
            if raw and ch == "\\" and i + 1 < end:
                # A raw string keeps the backslash and the character after it.
                chars.append(ch)
                offsets.append(i)
                i += 1
                ch = source[i]
                if ch == "\r":
                    continue
            chars.append(ch)
            offsets.append(i)
            i += 1
            continue
        value, length = _escape(source, i, end)
        for c in value:
            chars.append(c)
            offsets.append(i)
        i += length
    return "".join(chars), offsets


def _escape(source: str, i: int, end: int) -> tuple[str, int]:
    """The characters an escape sequence at source[i] stands for, and its length."""
    nxt = source[i + 1]
    if nxt == "\n":
        return "", 2
    if nxt == "\r":
        return "", 3 if source.startswith("\r\n", i + 1) else 2
    if nxt in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[nxt], 2
    if nxt in _HEX_LENGTH:
        digits = source[i + 2 : min(end, i + 2 + _HEX_LENGTH[nxt])]
        try:
            return chr(int(digits, 16)), 2 + len(digits)
        except (ValueError, OverflowError):
            return source[i : i + 2], 2
    if nxt in _OCTAL:
        j = i + 1
        while j < min(end, i + 4) and source[j] in _OCTAL:
            j += 1
        return chr(int(source[i + 1 : j], 8)), j - i
    if nxt == "N" and i + 2 < end and source[i + 2] == "{":
        close = source.find("}", i + 3, end)
        if close != -1:
            try:
                return unicodedata.lookup(source[i + 3 : close]), close + 1 - i
            except KeyError:
                pass
    # An unknown escape keeps its backslash, as Python does.
    return source[i : i + 2], 2


def clean(value: str, offsets: list[int], literal: Span) -> DocstringText:
    """Apply ``inspect.cleandoc`` to a decoded value, carrying the offsets along.

    Tabs in the margin count to the next multiple of 8 columns, as cleandoc's
    expandtabs does; tabs inside a line are kept as they are.
    """
    lines = _split_lines(value)
    margin = _margin(value, lines[1:])
    kept: list[tuple[int, int]] = []
    for number, (start, stop) in enumerate(lines):
        if number == 0:
            while start < stop and value[start] in " \t":
                start += 1
        else:
            start = _skip_margin(value, start, stop, margin)
        kept.append((start, stop))
    while kept and not value[kept[0][0] : kept[0][1]].strip():
        kept.pop(0)
    while kept and not value[kept[-1][0] : kept[-1][1]].strip():
        kept.pop()
    chars: list[str] = []
    out_offsets: list[int] = []
    for index, (start, stop) in enumerate(kept):
        if index:
            newline_at = kept[index - 1][1]
            chars.append("\n")
            out_offsets.append(offsets[newline_at] if newline_at < len(offsets) else literal.end)
        chars.append(value[start:stop])
        out_offsets.extend(offsets[start:stop])
    return DocstringText("".join(chars), tuple(o - literal.start for o in out_offsets), literal)


def _split_lines(value: str) -> list[tuple[int, int]]:
    lines = []
    start = 0
    while True:
        stop = value.find("\n", start)
        if stop == -1:
            lines.append((start, len(value)))
            return lines
        lines.append((start, stop))
        start = stop + 1


def _indent_columns(value: str, start: int, stop: int) -> int:
    column = 0
    for ch in value[start:stop]:
        if ch == " ":
            column += 1
        elif ch == "\t":
            column = column // 8 * 8 + 8
        else:
            break
    return column


def _margin(value: str, lines: list[tuple[int, int]]) -> int:
    indents = [
        _indent_columns(value, start, stop) for start, stop in lines if value[start:stop].strip()
    ]
    return min(indents, default=0)


def _skip_margin(value: str, start: int, stop: int, margin: int) -> int:
    column = 0
    while start < stop and column < margin and value[start] in " \t":
        column = column + 1 if value[start] == " " else column // 8 * 8 + 8
        start += 1
    return start
