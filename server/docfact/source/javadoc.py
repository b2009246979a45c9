"""Split a Javadoc comment's value into the Docstring model.

The main description is prose: its first sentence is the summary; paragraphs end at
blank lines and at block-level HTML tags (``<p>``, ``<li>``, ...), and ``<pre>`` blocks
and ``{@snippet ...}`` examples are code, not prose. Block tags start a line:
``@param name``, ``@param <T>``, ``@return``, ``@throws X`` / ``@exception X`` become
entries; ``@deprecated``, ``@apiNote``, ``@implSpec`` and ``@implNote`` are prose;
``@see Class#member`` is a "see" entry named by its target; the others
(``@see "a book"``, ``@see <a href>``, ``@since``, ...) are kept as "other" entries with
no description, since they are references, not sentences. Inline tags (``{@code ...}``,
``{@link ...}``, and HTML ``<code>...</code>``) are listed in ``Docstring.inline`` with
their spans; an opening ``{@return ...}`` is also the Returns entry. Inline HTML and
entities (``&lt;``) stay in the value: every Field is an exact slice of it, so offsets
stay exact.

A Markdown comment (``///`` lines, JEP 467) has the same tags, and Markdown's own code
and links besides: fenced blocks are code, a backquoted span is a "code" inline tag, and
a reference link to a program element (``[the list][List]``, or ``[List#add(Object)]``
alone) is a "link" inline tag whose body is the element, unless the comment defines the
label as an ordinary link (``[label]: https://...``).
"""

from __future__ import annotations

import re

from ..model import DocEntry, Docstring, DocstringText, Field, InlineTag
from .segment import split_sentences

_BLOCK_TAG = re.compile(r"^[ \t]*@([A-Za-z][\w.-]*)", re.MULTILINE)
_INLINE_START = re.compile(r"\{@([A-Za-z][\w.-]*)")
_HTML_CODE = re.compile(r"<(code|tt)>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_PRE = re.compile(r"<pre\b[^>]*>.*?(?:</pre\s*>|\Z)", re.IGNORECASE | re.DOTALL)
# HTML that ends a paragraph (Javadoc's first sentence ends there too).
_BLOCK_HTML = re.compile(
    r"</?(?:p|ul|ol|li|dl|dt|dd|table|tr|td|th|thead|tbody|h[1-6]|blockquote|div|hr|br|caption)"
    r"\b[^>]*>|\n[ \t]*\n",
    re.IGNORECASE,
)
# Markdown comments' code blocks and code spans.
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?(?:\n[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
# A code span ends in its paragraph: a lone backquote does not swallow what follows.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
# [text][reference]; or [reference] alone, that no "(url)", "[...]" or ":" follows, when
# it names a member or a dotted name ([List#add], [Map.Entry]): a bracketed word alone
# may just be prose ("[Optional]").
_REFERENCE = re.compile(
    r"(?<!\\)\[[^\[\]\n]*\]\[([^\[\]\s]+)\]"
    r"|(?<!\\)\[([^\[\]\s]*[#.][^\[\]\s]*)\](?![\[(:])"
)
_DEFINITION = re.compile(r"^[ \t]*\[([^\]\n]+)\]:", re.MULTILINE)
_PROSE_TAGS = frozenset({"deprecated", "apinote", "implspec", "implnote"})
_THROWS_TAGS = frozenset({"throws", "exception"})


def parse_javadoc(text: DocstringText) -> Docstring:
    """The Docstring of a Javadoc value (style "javadoc"); offsets are in the value."""
    value = text.value
    inline = _inline_tags(value)
    code = [Field(m.group(), m.start(), m.end()) for m in _PRE.finditer(value)]
    code += [t.whole for t in inline if t.tag == "snippet"]
    if text.markdown:
        fences = [Field(m.group(), m.start(), m.end()) for m in _FENCE.finditer(value)]
        code += fences
        markdown = _markdown_inline(
            value, [(f.start, f.end) for f in code] + [(t.whole.start, t.whole.end) for t in inline]
        )
        # In Markdown, a tag written in code is code: `{@link Nope}` links nothing.
        literal = [(f.start, f.end) for f in fences] + [
            (t.whole.start, t.whole.end) for t in markdown if t.tag == "code"
        ]
        inline = [t for t in inline if not _inside(t.whole.start, literal)] + markdown
        inline.sort(key=lambda t: t.whole.start)
    code.sort(key=lambda field: field.start)
    protected = [(t.whole.start, t.whole.end) for t in inline] + [(c.start, c.end) for c in code]
    tags = [m for m in _BLOCK_TAG.finditer(value) if not _inside(m.start(1) - 1, protected)]
    description_end = tags[0].start() if tags else len(value)
    prose = _paragraphs(value, 0, description_end, code)
    summary = None
    if prose:
        prose[:1] = _first_sentence(prose[0])
        summary = prose[0]
    entries = _opening_return(inline, value)
    for index, match in enumerate(tags):
        end = tags[index + 1].start() if index + 1 < len(tags) else len(value)
        tag = match.group(1)
        if tag.lower() in _PROSE_TAGS:
            prose += _paragraphs(value, match.end(), end, code)
        else:
            entries.append(_entry(value, tag, match.end(), end))
    return Docstring(
        "javadoc", text, summary, tuple(prose), tuple(entries), tuple(code), tuple(inline)
    )


def _entry(value: str, tag: str, start: int, end: int) -> DocEntry:
    section = "@" + tag
    lowered = tag.lower()
    if lowered in ("return", "returns"):
        return DocEntry("returns", None, None, _trimmed(value, start, end), section)
    if lowered == "see":
        target = _first_word(value, start, end, parenthesised=True)
        if target is not None and target.text[0] not in '"<':  # not a title, nor an HTML link
            return DocEntry("see", target, None, None, section)
    if lowered == "param" or lowered in _THROWS_TAGS:
        name = _first_word(value, start, end)
        if name is None:
            return DocEntry("other", None, None, None, section)
        description = _trimmed(value, name.end, end)
        if lowered != "param":
            return DocEntry("raises", name, None, description, section)
        if name.text.startswith("<") and name.text.endswith(">") and len(name.text) > 2:
            name = Field(name.text[1:-1], name.start + 1, name.end - 1)  # @param <T>
        return DocEntry("param", name, None, description, section)
    return DocEntry("other", _trimmed(value, start, end), None, None, section)


def _opening_return(inline: list[InlineTag], value: str) -> list[DocEntry]:
    """``{@return the size}`` at the start of the description documents the result."""
    first = inline[0] if inline else None
    if first is None or first.tag != "return" or value[: first.whole.start].strip():
        return []
    return [DocEntry("returns", None, None, first.body, "{@return")]


def _paragraphs(value: str, start: int, end: int, code: list[Field]) -> list[Field]:
    """Trimmed pieces of value[start:end] between paragraph breaks and code blocks."""
    cuts = [(m.start(), m.end()) for m in _BLOCK_HTML.finditer(value, start, end)]
    cuts += [(c.start, c.end) for c in code if c.start < end and c.end > start]
    pieces, position = [], start
    for cut_start, cut_end in sorted(cuts):
        if cut_start >= position:
            pieces.append(_trimmed(value, position, cut_start))
        position = max(position, cut_end)
    pieces.append(_trimmed(value, position, end))
    return [p for p in pieces if p is not None]


def _first_sentence(paragraph: Field) -> list[Field]:
    """The paragraph as its first sentence and the rest (when there is a rest)."""
    sentences = split_sentences(paragraph.text)
    if len(sentences) < 2:
        return [paragraph]
    cut = sentences[1][0]
    head = Field(
        paragraph.text[: sentences[0][1]], paragraph.start, paragraph.start + sentences[0][1]
    )
    tail = Field(paragraph.text[cut:], paragraph.start + cut, paragraph.end)
    return [head, tail]


def _inline_tags(value: str) -> list[InlineTag]:
    """``{@tag body}`` (braces balanced inside) and ``<code>body</code>``, in order."""
    found: list[InlineTag] = []
    position = 0
    while True:
        match = _INLINE_START.search(value, position)
        if match is None:
            break
        close = _closing_brace(value, match.start())
        if close < 0:
            position = match.end()
            continue
        tag = match.group(1)
        body_start, body_end = match.end(), close
        if tag.lower() in ("link", "linkplain", "see", "value"):
            body = _first_word(value, body_start, body_end, parenthesised=True)
        else:
            if body_start < body_end and value[body_start] in " \t\n":
                body_start += 1  # the one separating blank; the rest is the code's own
            body = _trimmed(value, body_start, body_end)
        found.append(
            InlineTag(tag, Field(value[match.start() : close + 1], match.start(), close + 1), body)
        )
        position = close + 1
    for match in _HTML_CODE.finditer(value):
        if not any(t.whole.start <= match.start() < t.whole.end for t in found):
            found.append(
                InlineTag(
                    "code",
                    Field(match.group(), match.start(), match.end()),
                    _trimmed(value, match.start(2), match.end(2)),
                )
            )
    found.sort(key=lambda t: t.whole.start)
    return found


def _markdown_inline(value: str, taken: list[tuple[int, int]]) -> list[InlineTag]:
    """Markdown's code spans, and its links to program elements, outside ``taken``."""
    found = []
    for match in _CODE_SPAN.finditer(value):
        if not _inside(match.start(), taken):
            found.append(
                InlineTag(
                    "code",
                    Field(match.group(), match.start(), match.end()),
                    _trimmed(value, match.start(2), match.end(2)),
                )
            )
    taken = taken + [(t.whole.start, t.whole.end) for t in found]
    defined = {label.casefold() for label in _DEFINITION.findall(value)}  # labels ignore case
    for match in _REFERENCE.finditer(value):
        group = 1 if match.group(1) is not None else 2
        if match.group(group).casefold() not in defined and not _inside(match.start(), taken):
            target = Field(match.group(group), match.start(group), match.end(group))
            found.append(
                InlineTag("link", Field(match.group(), match.start(), match.end()), target)
            )
    return found


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _closing_brace(value: str, start: int) -> int:
    """Offset of the ``}`` closing the ``{`` at ``start``, or -1."""
    depth = 0
    for i in range(start, len(value)):
        if value[i] == "{":
            depth += 1
        elif value[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _first_word(value: str, start: int, end: int, parenthesised: bool = False) -> Field | None:
    """The first blank-separated word of value[start:end]; with ``parenthesised``, a
    blank inside parentheses does not end it (``#add(int, Object)``)."""
    while start < end and value[start].isspace():
        start += 1
    depth = 0
    stop = start
    while stop < end and (depth > 0 or not value[stop].isspace()):
        if parenthesised and value[stop] == "(":
            depth += 1
        elif parenthesised and value[stop] == ")":
            depth = max(0, depth - 1)
        stop += 1
    return Field(value[start:stop], start, stop) if stop > start else None


def _trimmed(value: str, start: int, end: int) -> Field | None:
    raw = value[start:end]
    text = raw.strip()
    if not text:
        return None
    start += len(raw) - len(raw.lstrip())
    return Field(text, start, start + len(text))
