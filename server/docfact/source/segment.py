"""Split docstring prose into sentences and a parsed docstring into segments.

Sentence boundaries come from NLTK's Punkt, run with hand-written parameters (no model
download). Punkt never sees code: inline code, ellipses and punctuation glued to
brackets or operators are masked with same-length text first, so offsets stay valid.
Blank lines and bullet items are hard breaks that Punkt never has to guess.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from docfact.model import DocEntry, Docstring, Field, Segment

if TYPE_CHECKING:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

# Lower-case, without the final period, as Punkt looks them up.
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf approx resp incl esp viz al dr mr mrs ms prof st jr no nos "
    "fig figs eq eqs sec ch vol pp ref refs".split()
)

# A bullet item starts a sentence: "- x", "* x", "+ x", "• x", "1. x", "1) x", "a) x",
# "(a) x", "(iv) x", "#. x".
_BULLET = re.compile(
    r"[ \t]*"
    r"(?:[-*+•‣◦]|#\.|\d{1,3}[.)]|[a-zA-Z]\)"
    r"|\((?:\d{1,3}|[a-zA-Z]|[ivxlcdm]{1,5})\))"
    r"[ \t]+\S"
)

# Text whose periods, question and exclamation marks never end a sentence.
_MASKED = re.compile(
    # Inline literals and interpreted text; RST's rule that markup hugs its content
    # keeps a lone backtick from hiding a real boundary.
    r"``\S(?:.*?\S)?``"
    r"|`[^`\s](?:[^`]*?[^`\s])?`"
    r"|\.{2,}"  # ellipsis, also in ``f(...)`` and ``Tuple[int, ...]``
    r"|[.?!](?=[;*:@({\[])"  # glued to code: ``foo.*``, ``x.[0]``, ``e.g.:``
    r"|^[ \t]*(?:\d{1,3}|#)\.(?=[ \t])",  # an enumerated bullet's marker
    re.DOTALL | re.MULTILINE,
)
_HIDE = str.maketrans(".?!", "___")

# "etc." and single letters (variables, not initials, in docstrings) end a sentence when
# a capital or code follows; Punkt alone would call them abbreviations there.
_CLOSING_ABBREVIATION = re.compile(r"(?<![\w.])(?:etc|[^\W\d_])\.(?=\s+([^\W\d_]|`))")

# Everything Punkt could consider a boundary: the fast path skips Punkt without it.
_CANDIDATE = re.compile(r"[.?!](?:\s+\S|[^\s\w.,])")


def warm_up() -> None:
    """Load the tokenizer now (a server does it at start, off its first request's path)."""
    _tokenizer()


@functools.cache
def _tokenizer() -> PunktSentenceTokenizer:
    # nltk is imported only when a sentence is first split. Its package init imports its
    # collocation statistics, which import scipy.stats when scipy is installed (the model
    # extra brings it): a second of start-up for nothing Punkt uses, so scipy is hidden
    # from that one import.
    hide_scipy = "scipy" not in sys.modules
    if hide_scipy:
        sys.modules["scipy"] = None  # type: ignore[assignment]
    try:
        from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    finally:
        if hide_scipy:
            del sys.modules["scipy"]

    params = PunktParameters()
    params.abbrev_types = set(_ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Spans (start, end) of the sentences of ``text``, whitespace-trimmed, in order."""
    spans: list[tuple[int, int]] = []
    for block_start, block_end in _blocks(text):
        for start, end in _block_spans(_mask(text[block_start:block_end])):
            span = _trim(text, block_start + start, block_start + end)
            if span:
                spans.append(span)
    return spans


def _blocks(text: str) -> Iterator[tuple[int, int]]:
    """Runs of lines separated by blank lines, each bullet item starting a new run."""
    block_start = None
    pos = 0
    for line in text.splitlines(keepends=True):
        blank = not line.strip()
        if block_start is not None and (blank or _BULLET.match(line)):
            yield block_start, pos
            block_start = None
        if block_start is None and not blank:
            block_start = pos
        pos += len(line)
    if block_start is not None:
        yield block_start, pos


def _mask(text: str) -> str:
    return _MASKED.sub(lambda m: m.group().translate(_HIDE), text)


def _pieces(masked: str) -> Iterator[tuple[int, int]]:
    """``masked`` cut after every closing abbreviation followed by a capital or code."""
    start = 0
    for m in _CLOSING_ABBREVIATION.finditer(masked):
        if m.group(1) == "`" or m.group(1).isupper():
            yield start, m.end()
            start = m.end()
    yield start, len(masked)


def _block_spans(masked: str) -> Iterator[tuple[int, int]]:
    if not _CANDIDATE.search(masked):
        yield 0, len(masked)
        return
    for piece_start, piece_end in _pieces(masked):
        for start, end in _tokenizer().span_tokenize(masked[piece_start:piece_end]):
            yield piece_start + start, piece_start + end


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped:
        return None
    start += len(chunk) - len(chunk.lstrip())
    return start, start + len(stripped)


def segments(doc: Docstring) -> list[Segment]:
    """Sentences of the prose and one segment per entry description, by position."""
    result: list[Segment] = []
    for index, field in enumerate(doc.prose):
        role = "summary" if index == 0 and field == doc.summary else "prose"
        result.extend(_prose_segments(field, role, doc.code_blocks))
    for entry in doc.entries:
        result.extend(_description_segment(entry))
    result.sort(key=lambda segment: segment.start)
    return result


def _prose_segments(field: Field, role: str, code_blocks: tuple[Field, ...]) -> list[Segment]:
    result = []
    for part_start, part_end in _outside(field, code_blocks):
        part = field.text[part_start - field.start : part_end - field.start]
        for s, e in split_sentences(part):
            result.append(Segment(part[s:e], part_start + s, part_start + e, role))
    return result


def _description_segment(entry: DocEntry) -> list[Segment]:
    """The whole description as one segment, or none if it is missing or blank."""
    description = entry.description
    if description is None:
        return []
    span = _trim(description.text, 0, len(description.text))
    if span is None:
        return []
    start, end = span
    return [
        Segment(
            description.text[start:end],
            description.start + start,
            description.start + end,
            entry.kind,
            entry,
        )
    ]


def _outside(field: Field, code_blocks: tuple[Field, ...]) -> list[tuple[int, int]]:
    """The parts of ``field`` (value coordinates) that no code block covers."""
    parts = [(field.start, field.end)]
    for block in code_blocks:
        parts = [
            piece
            for start, end in parts
            for piece in ((start, min(end, block.start)), (max(start, block.end), end))
            if piece[0] < piece[1]
        ]
    return parts
