"""Cross-references of a docstring: the targets it asks a documentation tool to link.

Sphinx roles of the Python domain (``:meth:`Cart.add```, ``:py:class:`~shop.Cart```,
``:mod:`shop.cart```), Epytext links (``L{Cart.add}``, ``L{the cart<Cart>}``) and the
entries of a NumPy or Google "See Also" section. Each target is the dotted name as the
tool resolves it: a title (``title <target>``), a leading ``~`` or ``!`` and call
parentheses are not part of it; a leading ``.`` is kept apart (Sphinx then searches
every module for a name ending so). Offsets are in the docstring's value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Docstring, Field

# Roles of Sphinx's Python domain whose target is a Python object or module.
OBJECT_ROLES = frozenset(
    {"func", "meth", "class", "attr", "data", "exc", "obj", "const", "mod", "type"}
)
_ROLE = re.compile(r"(?<![\w:]):(?:py:)?(?P<role>[a-z]+):`(?P<body>[^`\n]+)`")
_EPYTEXT_LINK = re.compile(r"\bL\{(?P<body>[^{}\n]+)\}")
_EPYTEXT_CODE = re.compile(r"\bC\{(?P<body>[^{}\n]+)\}")
_BACKQUOTED = re.compile(r"(?::[\w:]+:)?`[^`]*`")
_CLASS_NAME = re.compile(
    r"(?<![\w.])(?:[A-Za-z_]\w*\.)*_?[A-Z]\w*[a-z]\w*(?![\w.(])"
    # or any dotted name after Sphinx's ``~`` (napoleon links a type): ``~datetime.datetime``
    r"|(?<=~)[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w.(])"
)
_TARGET = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# A dotted name with a character no Python name has: ``FingerprintFormats.MD5-HEX``.
_HYPHENATED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:-\w+)+(?:\.\w+(?:-\w+)*)*")
# "See Also" headings: NumPy's underlined one, Google's with a colon.
_SEE_ALSO = re.compile(r"[ \t]*See[ \t]+Also[ \t]*:?[ \t]*$", re.IGNORECASE)
_UNDERLINE = re.compile(r"[ \t]*-{3,}[ \t]*$")
# The names an entry of a See Also section starts with: ``a, b.c : description``.
_SEE_NAMES = re.compile(
    r"[ \t]*((?:`{0,2}[~.]?[A-Za-z_][\w.]*(?:\(\))?`{0,2}[ \t]*,[ \t]*)*"
    r"`{0,2}[~.]?[A-Za-z_][\w.]*(?:\(\))?`{0,2})[ \t]*(?::[ \t]|:$|$)"
)
_SEE_NAME = re.compile(r"`{0,2}[~.]?([A-Za-z_][\w.]*?)(?:\(\))?`{0,2}(?=[ \t]*(?:,|$))")


@dataclass(frozen=True, slots=True)
class Reference:
    # "role" | "link" (Epytext) | "see" (an entry of a See Also section) | "type" (code
    # in an Epytext type field) | "type name" (a class name in an entry's type)
    how: str
    role: str | None  # the Sphinx role ("meth", "mod", ...); None for links and See Also
    target: Field  # the dotted name, no title, ``~``, leading ``.`` or ``()``
    whole: Field  # the reference as written
    relative: bool = False  # written ``.name``: any module's object whose name ends so
    malformed: bool = False  # a dotted name with a ``-``, which no Python name has


def references(docstring: Docstring) -> list[Reference]:
    """Every cross-reference of ``docstring`` outside its code (doctests, literal blocks)."""
    value = docstring.text.value
    found = []
    for match in _ROLE.finditer(value):
        if match.group("role") in OBJECT_ROLES and not _in_code(docstring, match.start()):
            reference = _reference(value, "role", match.group("role"), match)
            if reference is not None:
                found.append(reference)
    if docstring.style != "numpy":  # Epytext links survive in docstrings of every style
        for match in _EPYTEXT_LINK.finditer(value):
            if not _in_code(docstring, match.start()):
                reference = _reference(value, "link", None, match)
                if reference is not None:
                    found.append(reference)
    found += _see_also(docstring)
    found += _epytext_types(docstring) + _entry_types(docstring)
    return sorted(found, key=lambda r: r.whole.start)


def _entry_types(docstring: Docstring) -> list[Reference]:
    """Class names in the types of entries (``x (Optional[Cart]):``, ``x : Cart``,
    ``:rtype: Cart``): dotted words with a capital and a lower-case letter, or any dotted
    name written with a ``~``, outside backquotes (a role there is found as a role)."""
    found = []
    for entry in docstring.entries:
        if entry.type is None or docstring.style == "epytext":
            continue
        text = _BACKQUOTED.sub(lambda m: " " * len(m.group()), entry.type.text)
        for match in _CLASS_NAME.finditer(text):
            start = entry.type.start + match.start()
            target = Field(match.group(), start, start + len(match.group()))
            found.append(Reference("type name", None, target, target))
    return found


def _epytext_types(docstring: Docstring) -> list[Reference]:
    """The code of Epytext type fields (``@type x: C{int} or L{Cart}``): a type there is
    a reference to it, though written as code."""
    if docstring.style != "epytext":
        return []
    value = docstring.text.value
    found = []
    for entry in docstring.entries:
        where = entry.type
        if where is None:
            continue
        for match in _EPYTEXT_CODE.finditer(value, where.start, where.end):
            reference = _reference(value, "type", None, match)
            if reference is not None:
                found.append(reference)
    return found


def _in_code(docstring: Docstring, offset: int) -> bool:
    return any(block.start <= offset < block.end for block in docstring.code_blocks)


def _reference(value: str, how: str, role: str | None, match: re.Match) -> Reference | None:
    body_start, body_end = match.span("body")
    body = value[body_start:body_end]
    explicit = re.fullmatch(r"[^<]*<([^<>]+)>\s*", body)  # "title <target>"
    if explicit:
        body_start, body_end = body_start + explicit.start(1), body_start + explicit.end(1)
    return _target(value, how, role, body_start, body_end, Field(match.group(), *match.span()))


def _target(
    value: str, how: str, role: str | None, start: int, end: int, whole: Field
) -> Reference | None:
    text = value[start:end].strip()
    start = value.index(text, start) if text else start
    stripped = text.lstrip("~!")
    relative = stripped.startswith(".")
    stripped = stripped.lstrip(".")
    if stripped.endswith("()"):
        stripped = stripped[:-2]
    malformed = how in ("role", "link") and _HYPHENATED.fullmatch(stripped) is not None
    if not _TARGET.fullmatch(stripped) and not malformed:
        return None  # a title alone, a generic (``list[int]``), a C name, ...
    start += text.index(stripped)
    return Reference(
        how, role, Field(stripped, start, start + len(stripped)), whole, relative, malformed
    )


def _see_also(docstring: Docstring) -> list[Reference]:
    """The names listed in "See Also" sections (a role there is found as a role)."""
    value = docstring.text.value
    lines = value.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found = []
    k = 0
    while k < len(lines):
        if not _SEE_ALSO.fullmatch(lines[k]) or _in_code(docstring, starts[k]):
            k += 1
            continue
        indent = len(lines[k]) - len(lines[k].lstrip())
        body = k + 2 if k + 1 < len(lines) and _UNDERLINE.fullmatch(lines[k + 1]) else k + 1
        google = body == k + 1
        base = None
        k = body
        while k < len(lines):
            line = lines[k]
            stripped = line.strip()
            if not stripped:
                k += 1
                continue
            depth = len(line) - len(stripped)
            if depth < indent or (
                depth == indent
                and (google or (k + 1 < len(lines) and _UNDERLINE.fullmatch(lines[k + 1])))
            ):
                break  # the section ended
            if base is None:
                base = depth
            if depth == base and ":`" not in line:
                found += _see_entry(value, starts[k], starts[k] + len(line))
            k += 1
    return found


def _see_entry(value: str, start: int, end: int) -> list[Reference]:
    match = _SEE_NAMES.match(value, start, end)
    if match is None:
        return []
    names_start, names_end = match.span(1)
    whole = Field(value[names_start:names_end], names_start, names_end)
    found = []
    for name in _SEE_NAME.finditer(value, names_start, names_end):
        text = name.group(1)
        relative = value[name.start() : name.start(1)].endswith(".")
        found.append(Reference("see", None, Field(text, *name.span(1)), whole, relative))
    return found
