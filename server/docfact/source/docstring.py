"""Split a docstring's value into summary, prose, documented entries and code blocks.

Google, NumPy, Sphinx (reST field lists) and Epytext layouts are understood. Every
``Field`` is an exact slice of the value (``value[f.start:f.end] == f.text``); file
spans are the caller's business (``DocstringText.span_of``). The parser makes one pass
over the lines with precompiled patterns and never raises on malformed text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from docfact.model import DocEntry, Docstring, DocstringText, Field

STYLES = ("google", "numpy", "sphinx", "epytext", "plain")

# Section heading (lower case, single spaces) -> what its body holds.
_SECTIONS = {
    **dict.fromkeys(
        (
            "args",
            "arguments",
            "parameters",
            "params",
            "keyword args",
            "keyword arguments",
            "keyword parameters",
            "other parameters",
            "other args",
            "other arguments",
            "kwargs",
        ),
        "param",
    ),
    **dict.fromkeys(("returns", "return"), "returns"),
    **dict.fromkeys(("yields", "yield"), "yields"),
    **dict.fromkeys(("raises", "raise", "except", "exceptions"), "raises"),
    "attributes": "attribute",
    **dict.fromkeys(("warns", "warn"), "warns"),  # "name: description" like Raises
    **dict.fromkeys(("methods", "receives", "receive"), "named"),  # like Args
    **dict.fromkeys(
        (
            "notes",
            "note",
            "warning",
            "warnings",
            "example",
            "examples",
            "extended summary",
            "description",
            "todo",
            "tip",
            "hint",
            "important",
            "attention",
            "caution",
            "danger",
            "error",
            "usage",
        ),
        "prose",
    ),
    **dict.fromkeys(("see also", "references"), "skip"),
}
_ENTRY_SECTIONS = frozenset(("param", "returns", "yields", "raises", "attribute", "warns", "named"))

# Sphinx/Epytext field tag (lower case) -> (entry kind, whether its body is a "desc" or a "type").
_FIELD_TAGS = {
    **dict.fromkeys(
        ("param", "parameter", "arg", "argument", "key", "keyword", "kwarg", "kwparam"),
        ("param", "desc"),
    ),
    **dict.fromkeys(("type", "kwtype"), ("param", "type")),
    **dict.fromkeys(("ivar", "cvar", "var"), ("attribute", "desc")),
    "vartype": ("attribute", "type"),
    **dict.fromkeys(("returns", "return"), ("returns", "desc")),
    "rtype": ("returns", "type"),
    **dict.fromkeys(("yields", "yield"), ("yields", "desc")),
    "ytype": ("yields", "type"),
    **dict.fromkeys(("raises", "raise", "except", "exception", "throws"), ("raises", "desc")),
}

# Directives whose content is code, and directives whose content is neither prose nor code.
_CODE_DIRECTIVES = frozenset(
    (
        "code-block",
        "code",
        "sourcecode",
        "doctest",
        "literalinclude",
        "testcode",
        "testoutput",
        "testsetup",
        "testcleanup",
        "ipython",
        "plot",
        "math",
        "productionlist",
        "raw",
        "jupyter-execute",
    )
)
_SKIP_DIRECTIVES = frozenset(
    (
        "seealso",
        "toctree",
        "image",
        "figure",
        "include",
        "index",
        "table",
        "csv-table",
        "list-table",
        "graphviz",
        "highlight",
        "currentmodule",
        "module",
    )
)
# Directives nested deeper than this are skipped (their content is not prose).
_MAX_NESTING = 16
# Admonitions whose text may start on the directive line itself.
_ADMONITIONS = frozenset(
    (
        "note",
        "warning",
        "tip",
        "hint",
        "important",
        "attention",
        "caution",
        "danger",
        "error",
        "todo",
    )
)

# Directives about history whose first argument is a version and whose text may follow it.
_VERSION_DIRECTIVES = frozenset(("versionadded", "versionchanged", "versionremoved", "deprecated"))
_VERSION_ARGUMENT = re.compile(r"[ \t]+\S+[ \t]+")

_NAME = r"\*{0,2}[^\W\d][\w.]*"
_EXC = r"(?::[\w:]+:)?`?~?[^\W\d][\w.]*`?"  # also :exc:`ValueError` and `ValueError`

_GOOGLE_HEADING = re.compile(r"[ \t]*([A-Za-z]+(?:[ \t]+[A-Za-z]+)*)[ \t]*:\s*$")
_UNDERLINE = re.compile(r"\s*(?:-{3,}|={3,})\s*$")
_ADORNMENT = re.compile(r"\s*([=\-~^*+#\"':._])\1{2,}\s*$")
# The arguments group keeps surrounding blanks (trimmed later) so that matching stays linear.
_SPHINX_FIELD = re.compile(r"[ \t]*:([A-Za-z_][\w-]*)(?:[ \t]([^:]*))?:(?=\s|$)")
_EPYTEXT_FIELD = re.compile(r"[ \t]*@([A-Za-z_]\w*)(?:[ \t]([^:]*))?:(?=\s|$)")
_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+([A-Za-z][\w:+.-]*?)[ \t]*::(?=\s|$)")
_TABLE_BORDER = re.compile(r"\s*(?:=+(?:[ \t]+=+)+|\+(?:[-=]+\+)+)\s*$")
_OPTION = re.compile(r"[ \t]*:[\w-]+:(?:\s|$)")
_NAMES = re.compile(rf"[ \t]*({_NAME}(?:[ \t]*,[ \t]*{_NAME})*)")
_NAME_ITEM = re.compile(r"\*{0,2}([^\W\d][\w.]*)")
_NUMPY_PARAM = re.compile(rf"[ \t]*({_NAME}(?:[ \t]*,[ \t]*{_NAME})*)\s*(?::(.*))?$")
_NUMPY_RETURN = re.compile(r"[ \t]*([^\W\d]\w*)\s*:(.*)$")
_EXC_HEAD = re.compile(rf"[ \t]*({_EXC}(?:[ \t]*,[ \t]*{_EXC})*)\s*(:|$)")
_EXC_LIST = re.compile(rf"\s*{_EXC}(?:\s*,\s*{_EXC})*\s*")
_EXC_ITEM = re.compile(r"(?::[\w:]+:)?`?~?([^\W\d][\w.]*)`?")
_TYPE_JOINERS = frozenset(("or", "of", "|"))
_TYPE_CHARS = re.compile(r"[\w.\[\](){}|,`~:'\"*<>=-]+")


def detect_style(value: str) -> str:
    """The docstring style of ``value``: the first marker of documented items (an "Args:"
    heading with indented entries, ":param x:", "@param x:", "Parameters" underlined)
    decides; else the first weaker marker (a "Notes" heading, an empty "Args:", an unknown
    field); else "plain"."""
    if ":" not in value and "@" not in value and "---" not in value and "===" not in value:
        return "plain"
    lines = value.split("\n")
    weak = None
    for k in range(len(lines)):
        found = _style_marker(lines, k)
        if found is not None:
            style, strong = found
            if strong:
                return style
            weak = weak or style
    return weak or "plain"


def _style_marker(lines: list[str], k: int) -> tuple[str, bool] | None:
    """(style, is an entry-bearing marker) if line ``k`` is a style marker."""
    line = lines[k]
    first = line.lstrip()[:1]
    if first in (":", "@"):
        style, pattern = ("sphinx", _SPHINX_FIELD) if first == ":" else ("epytext", _EPYTEXT_FIELD)
        m = pattern.match(line)
        if m is None:
            return None
        if m.group(1).lower() in _FIELD_TAGS:
            return style, True
        # An unknown indented field is more likely a directive option (":linenos:").
        return (style, False) if first == line[:1] else None
    if not first.isalpha():
        return None
    if k + 1 < len(lines) and _UNDERLINE.match(lines[k + 1]):
        kind = _SECTIONS.get(_norm(line.strip().rstrip(":")))
        if kind:
            return "numpy", kind in _ENTRY_SECTIONS
    m = _GOOGLE_HEADING.match(line)
    kind = _SECTIONS.get(_norm(m.group(1))) if m else None
    if kind:
        return "google", kind in _ENTRY_SECTIONS and _indented_after(lines, k)
    return None


def _indented_after(lines: list[str], k: int) -> bool:
    indent = len(lines[k]) - len(lines[k].lstrip())
    for n in range(k + 1, len(lines)):
        line = lines[n]
        body = line.lstrip()
        if body:
            return len(line) - len(body) > indent
    return False


def parse_docstring(text: DocstringText, style: str = "auto") -> Docstring:
    """Parse ``text.value`` with ``style`` ("auto" detects it); all offsets are in the value."""
    if style == "auto":
        style = detect_style(text.value)
    elif style not in STYLES:
        raise ValueError(f"unknown docstring style {style!r}")
    return _Parser(text.value, style).parse(text)


def _norm(heading: str) -> str:
    return " ".join(heading.lower().split())


def _looks_like_type(text: str) -> bool:
    """Whether ``text`` reads as a type ("list of str", "int | None") rather than a sentence."""
    if not text or text.endswith("."):
        return False
    words = _outside_brackets(text).split()
    for left, right in itertools.pairwise(words):
        joined = left in _TYPE_JOINERS or right in _TYPE_JOINERS
        if not (joined or left.endswith((",", "|")) or right.startswith("|")):
            return False
    return all(_TYPE_CHARS.fullmatch(word) for word in words)


def _levels(text: str, start: int, end: int) -> Iterator[tuple[int, str, int]]:
    """(offset, character, bracket level) of text[start:end] outside backquotes; an
    outermost bracket itself is at level 0, what it encloses at level 1 and deeper."""
    depth = 0
    quoted = False
    for i in range(start, end):
        c = text[i]
        if c == "`":
            quoted = not quoted
        elif quoted:
            continue
        if c in "([{":
            yield i, c, depth
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
            yield i, c, depth
        else:
            yield i, c, depth


def _outside_brackets(text: str) -> str:
    """``text`` with the contents of brackets and backquotes dropped."""
    return "".join(c for _, c, level in _levels(text, 0, len(text)) if level == 0)


def _type_colon(value: str, start: int, end: int) -> int:
    """Offset of the first ``:`` in value[start:end] that ends a "type:" prefix, or -1."""
    return next(
        (
            i
            for i, c, level in _levels(value, start, end)
            if c == ":" and level == 0 and (i + 1 == end or value[i + 1].isspace())
        ),
        -1,
    )


_QUALIFIER = re.compile(r"(?:optional|default|keyword|required|positional)\b", re.IGNORECASE)


def _no_name(name: Field | None, names: list[Field | None]) -> bool:
    """A word in an entry's place that names no parameter: ``None``, ``True`` (a "None"
    entry for no parameters, a doctest's output read as an entry), and ``optional`` written
    after the names without a colon (``case_sensitive, optional``)."""
    if name is None:
        return False
    return name.text in ("None", "True", "False") or (
        name.text == "optional" and len(names) > 1 and name is names[-1]
    )


def _top_level_commas(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` between commas outside brackets, blanks trimmed."""
    spans, depth, start = [], 0, 0
    for i, char in enumerate(text + ","):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            piece = text[start:i]
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
            start = i + 1
    return spans


def _closing_paren(value: str, start: int, end: int) -> int:
    """Offset of the ``)`` matching the ``(`` at ``start``, or -1 before ``end``."""
    depth = 0
    for i in range(start, end):
        if value[i] == "(":
            depth += 1
        elif value[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


@dataclass(slots=True)
class _Draft:
    """A DocEntry under construction (Sphinx/Epytext fields merge into earlier ones)."""

    kind: str
    name: Field | None
    type: Field | None
    description: Field | None
    section: str


# (names, type, offset where the description starts) of an entry's first line.
_Head = tuple[list[Field], Field | None, int]


class _Parser:
    """One pass over the lines of a value, collecting prose, code blocks and entries."""

    def __init__(self, value: str, style: str) -> None:
        self.value = value
        self.style = style
        self.lines = value.split("\n")
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.indents: list[int] = []
        self.blank: list[bool] = []
        pos = 0
        for line in self.lines:
            body = line.lstrip()
            self.starts.append(pos)
            self.ends.append(pos + len(line))
            self.indents.append(len(line) - len(body))
            self.blank.append(not body)
            pos += len(line) + 1
        self.prose: list[Field] = []
        self.code: list[Field] = []
        self.entries: list[_Draft] = []
        self.index: dict[tuple[str, str | None], _Draft] = {}
        self.summary: Field | None = None
        self.seen_section = False
        self.nesting = 0

    def parse(self, text: DocstringText) -> Docstring:
        self._scan(0, len(self.lines), top=True)
        entries = tuple(
            DocEntry(d.kind, d.name, d.type, d.description, d.section) for d in self.entries
        )
        return Docstring(
            self.style, text, self.summary, tuple(self.prose), entries, tuple(self.code)
        )

    # --- fields ---------------------------------------------------------------------

    def _field(self, start: int, end: int) -> Field | None:
        """value[start:end] without surrounding whitespace; None if nothing is left."""
        raw = self.value[start:end]
        text = raw.strip()
        if not text:
            return None
        start += len(raw) - len(raw.lstrip())
        return Field(text, start, start + len(text))

    def _exact(self, start: int, end: int) -> Field:
        return Field(self.value[start:end], start, end)

    def _add_prose(self, field: Field | None, top: bool) -> None:
        if field is None:
            return
        if top and not self.prose and not self.seen_section:
            self.summary = field
        self.prose.append(field)

    def _add_code(self, start: int, end: int) -> None:
        field = self._field(start, end)
        if field is not None:
            self.code.append(field)

    # --- blocks ---------------------------------------------------------------------

    def _scan(self, i: int, j: int, top: bool) -> None:
        """Lines i..j as a sequence of blocks; only the top level has sections."""
        while i < j:
            if self.blank[i]:
                i += 1
                continue
            end = self._section(i, j) if top else -1
            if end < 0:
                end = self._markup(i, j)
            if end < 0:
                end = self._paragraph(i, j, top)
            i = end

    def _markup(self, i: int, j: int) -> int:
        """End of the non-prose block starting at line i, or -1 if it is prose."""
        line = self.lines[i]
        body = line.lstrip()
        if body.startswith(">>>"):
            return self._doctest(i, j)
        if body.startswith("```"):
            return self._fence(i, j)
        if body.startswith("..") and (len(body) == 2 or body[2].isspace()):
            return self._explicit_markup(i, j)
        if _TABLE_BORDER.match(line):
            return self._until_blank(i + 1, j)  # a reST table is neither prose nor code
        if _ADORNMENT.match(line):
            return i + 1
        if i + 1 < j and _ADORNMENT.match(self.lines[i + 1]):
            return i + 2  # a title and its underline
        return -1

    def _breaks_paragraph(self, k: int, j: int, top: bool) -> bool:
        body = self.lines[k].lstrip()
        if body.startswith((">>>", "```")) or (
            body.startswith("..") and (len(body) == 2 or body[2].isspace())
        ):
            return True
        if _ADORNMENT.match(self.lines[k]) or (k + 1 < j and _ADORNMENT.match(self.lines[k + 1])):
            return True
        return top and self._heading(k, j) is not None

    def _paragraph(self, i: int, j: int, top: bool, start: int | None = None) -> int:
        """Record the paragraph at line i (from offset ``start`` if given) and return the
        line after it, or after the literal block it announces with "::"."""
        k = i + 1
        while k < j and not self.blank[k] and not self._breaks_paragraph(k, j, top):
            k += 1
        field = self._field(self.starts[i] if start is None else start, self.ends[k - 1])
        if not self.lines[k - 1].rstrip().endswith("::"):
            self._add_prose(field, top)
            return k
        if field is not None and field.text != "::":  # a lone "::" only announces code
            self._add_prose(field, top)
        return self._literal_block(k, j, min(self.indents[i:k]))

    def _literal_block(self, k: int, j: int, indent: int) -> int:
        """The block more indented than ``indent`` after a paragraph ending with "::"."""
        m = k
        while m < j and self.blank[m]:
            m += 1
        if m >= j or self.indents[m] <= indent:
            return k
        end = self._indented_end(m, j, indent)
        self._add_code(self.starts[m], self.ends[end - 1])
        return end

    def _indented_end(self, i: int, j: int, indent: int) -> int:
        """End of the lines from i that are blank or more indented than ``indent``,
        trailing blank lines excluded; at least i."""
        end = i
        for k in range(i, j):
            if self.blank[k]:
                continue
            if self.indents[k] <= indent:
                break
            end = k + 1
        return end

    def _until_blank(self, i: int, j: int) -> int:
        while i < j and not self.blank[i]:
            i += 1
        return i

    def _doctest(self, i: int, j: int) -> int:
        """A ``>>>`` line and everything up to the next blank line (prompts and output)."""
        end = self._until_blank(i + 1, j)
        self._add_code(self.starts[i], self.ends[end - 1])
        return end

    def _fence(self, i: int, j: int) -> int:
        end = self._fence_end(i, j)
        self._add_code(self.starts[i], self.ends[end - 1])
        return end

    def _fence_end(self, i: int, j: int) -> int:
        """Line after the fence closing the one at line i; an unclosed fence runs to j."""
        body = self.lines[i].strip()
        ticks = len(body) - len(body.lstrip("`"))
        for k in range(i + 1, j):
            closing = self.lines[k].strip()
            if len(closing) >= ticks and not closing.strip("`"):
                return k + 1
        return j

    def _explicit_markup(self, i: int, j: int) -> int:
        """A ``..`` block: directive, comment, target or footnote."""
        end = self._indented_end(i + 1, j, self.indents[i])
        m = _DIRECTIVE.match(self.lines[i])
        if m is None:
            return end
        name = m.group(1).lower()
        if name in _SKIP_DIRECTIVES or name.startswith("auto") or self.nesting >= _MAX_NESTING:
            return end
        body = i + 1
        while body < end and _OPTION.match(self.lines[body]):
            body += 1
        if name in _CODE_DIRECTIVES:
            if body < end:
                self._add_code(self.starts[body], self.ends[end - 1])
            return end
        if name in _ADMONITIONS and self.lines[i][m.end() :].strip():
            body = self._paragraph(i, end, top=False, start=self.starts[i] + m.end())
        elif name in _VERSION_DIRECTIVES:
            # ".. versionchanged:: 21.3.0 Converters are also run ..." tells its change
            # on the directive line, after the version.
            version = _VERSION_ARGUMENT.match(self.lines[i], m.end())
            if version is not None and self.lines[i][version.end() :].strip():
                body = self._paragraph(i, end, top=False, start=self.starts[i] + version.end())
        self.nesting += 1
        self._scan(body, end, top=False)
        self.nesting -= 1
        return end

    # --- sections -------------------------------------------------------------------

    def _heading(self, k: int, j: int) -> tuple[str, str] | re.Match | None:
        """What starts a section at line k in this style: (kind, heading) for Google and
        NumPy, the field match for Sphinx and Epytext; None if nothing does."""
        line = self.lines[k]
        if self.style == "google":
            m = _GOOGLE_HEADING.match(line)
            if m is None:
                return None
            kind = _SECTIONS.get(_norm(m.group(1)))
            return (kind, m.group(1)) if kind else None
        if self.style == "numpy":
            if k + 1 < j and _UNDERLINE.match(self.lines[k + 1]):
                heading = line.strip().rstrip(":").rstrip()
                kind = _SECTIONS.get(_norm(heading))
                return (kind, heading) if kind else None
            return None
        if self.style == "sphinx":
            return _SPHINX_FIELD.match(self.value, self.starts[k], self.ends[k])
        if self.style == "epytext":
            return _EPYTEXT_FIELD.match(self.value, self.starts[k], self.ends[k])
        return None

    def _section(self, i: int, j: int) -> int:
        """End of the section starting at line i (its entries recorded), or -1."""
        head = self._heading(i, j)
        if head is None:
            return -1
        self.seen_section = True
        if isinstance(head, re.Match):  # a Sphinx or Epytext field
            end = self._indented_end(i + 1, j, self.indents[i])
            self._field_list_item(head, i, end)
            return end
        kind, heading = head
        if self.style == "google":
            body, end = i + 1, self._indented_end(i + 1, j, self.indents[i])
        else:
            body, end = i + 2, self._numpy_end(i + 2, j, self.indents[i])
        self._section_body(kind, heading, body, end)
        return end

    def _numpy_end(self, i: int, j: int, indent: int) -> int:
        """Line of the next underlined heading not more indented than ``indent``, skipping
        code whose output could look like one; j if none."""
        k = i
        while k < j:
            body = self.lines[k].lstrip()
            if body.startswith(">>>"):
                k = self._until_blank(k, j)
            elif body.startswith("```"):
                k = self._fence_end(k, j)
            elif (
                body
                and self.indents[k] <= indent
                and k + 1 < j
                and _UNDERLINE.match(self.lines[k + 1])
                and not _ADORNMENT.match(self.lines[k])
            ) or self._unmarked_heading(k, j, indent):
                return k
            else:
                k += 1
        return j

    def _unmarked_heading(self, k: int, j: int, indent: int) -> bool:
        """A heading whose underline (or colon) was forgotten: a capitalised section name
        alone on a line no more indented than the section's, with an indented body (kombu's
        ``Returns`` after an underlined ``Arguments:``). Lowercase is a parameter's name
        (``notes``), and so is anything followed by no indented line."""
        line = self.lines[k].strip().rstrip(":")
        if self.indents[k] > indent or not line[:1].isupper() or _norm(line) not in _SECTIONS:
            return False
        following = next((n for n in range(k + 1, j) if not self.blank[n]), None)
        return following is not None and self.indents[following] > self.indents[k]

    def _section_body(self, kind: str, heading: str, i: int, j: int) -> None:
        if kind == "prose":
            self._scan(i, j, top=False)
        elif kind in ("returns", "yields"):
            if self.style == "google":
                self._google_returns(kind, heading, i, j)
            else:
                self._numpy_returns(kind, heading, i, j)
        elif kind in ("raises", "warns"):
            entry_kind = "raises" if kind == "raises" else "other"
            self._named_entries(entry_kind, heading, i, j, self._exception_head)
        elif kind != "skip":
            head = self._google_head if self.style == "google" else self._numpy_head
            entry_kind = "other" if kind == "named" else kind
            self._named_entries(entry_kind, heading, i, j, head)

    def _blocks(self, i: int, j: int) -> Iterator[tuple[int, int]]:
        """(first, last) line of each entry: a line at the body's indent and the more
        indented lines after it."""
        base = first = last = -1
        for k in range(i, j):
            if self.blank[k]:
                continue
            if first < 0:
                base = self.indents[k]
            elif self.indents[k] <= base:
                yield first, last
            else:
                last = k
                continue
            first = last = k
        if first >= 0:
            yield first, last

    def _named_entries(
        self, kind: str, heading: str, i: int, j: int, head: Callable[[int], _Head | None]
    ) -> None:
        """Entries whose first line names them; a line that names nothing continues the
        previous entry (or starts a nameless one)."""
        pending: list | None = None  # [names, type, description start, description end]
        for first, last in self._blocks(i, j):
            parsed = head(first)
            if parsed is None:
                if pending is None:
                    pending = [[None], None, self.starts[first], self.ends[last]]
                else:
                    pending[3] = self.ends[last]
                continue
            self._emit(kind, heading, pending)
            pending = [*parsed, self.ends[last]]
        self._emit(kind, heading, pending)

    def _emit(self, kind: str, heading: str, pending: list | None) -> None:
        if pending is None:
            return
        names, type_, start, end = pending
        description = self._field(start, end)
        names = [n for n in names if not _no_name(n, names)]
        types = self._one_type_each(type_, len(names))
        for name, its_type in zip(names, types):
            self.entries.append(_Draft(kind, name, its_type, description, heading))

    def _one_type_each(self, type_: Field | None, count: int) -> list[Field | None]:
        """The type of each of ``count`` grouped names: NumPy's ``xoff, yoff : float, int``
        gives one type per name; otherwise all share the one type."""
        if type_ is None or count < 2:
            return [type_] * count
        parts = _top_level_commas(type_.text)
        if len(parts) != count or any(
            _QUALIFIER.match(type_.text[a:b]) for a, b in parts
        ):  # ``a, b : int, optional``: one type with a qualifier, for both
            return [type_] * count
        return [self._field(type_.start + a, type_.start + b) for a, b in parts]

    def _names(self, start: int, end: int) -> list[Field]:
        """Each name in value[start:end], leading stars left out."""
        return [self._exact(*m.span(1)) for m in _NAME_ITEM.finditer(self.value, start, end)]

    def _google_head(self, k: int) -> _Head | None:
        """``x, y (type): description`` (type and description optional)."""
        value, end = self.value, self.ends[k]
        m = _NAMES.match(value, self.starts[k], end)
        if m is None:
            return None
        pos = self._skip_space(m.end(), end)
        type_ = None
        if pos < end and value[pos] == "(":
            close = _closing_paren(value, pos, end)
            if close < 0:
                return None
            type_ = self._field(pos + 1, close)
            pos = self._skip_space(close + 1, end)
        if pos < end and value[pos] != ":":
            return None
        return self._names(*m.span(1)), type_, min(pos + 1, end)

    def _numpy_head(self, k: int) -> _Head | None:
        """``x, y : type`` with the description on the following lines."""
        m = _NUMPY_PARAM.match(self.value, self.starts[k], self.ends[k])
        if m is None:
            return None
        type_ = self._field(*m.span(2)) if m.group(2) is not None else None
        return self._names(*m.span(1)), type_, self.ends[k]

    def _exception_head(self, k: int) -> _Head | None:
        """``ValueError, TypeError: description`` (description optional)."""
        m = _EXC_HEAD.match(self.value, self.starts[k], self.ends[k])
        if m is None:
            return None
        names = [self._exact(*x.span(1)) for x in _EXC_ITEM.finditer(self.value, *m.span(1))]
        return names, None, m.end() if m.group(2) else self.ends[k]

    def _skip_space(self, pos: int, end: int) -> int:
        while pos < end and self.value[pos].isspace():
            pos += 1
        return pos

    def _google_returns(self, kind: str, heading: str, i: int, j: int) -> None:
        """The whole body is one entry; a leading ``type:`` is its type."""
        lines = [k for k in range(i, j) if not self.blank[k]]
        if not lines:
            return
        first = lines[0]
        start = self.starts[first] + self.indents[first]
        colon = _type_colon(self.value, start, self.ends[first])
        type_ = self._field(start, colon) if colon >= 0 else None
        if type_ is not None and _looks_like_type(type_.text):
            start = colon + 1
        else:
            type_ = None
        description = self._field(start, self.ends[lines[-1]])
        if type_ is not None or description is not None:
            self.entries.append(_Draft(kind, None, type_, description, heading))

    def _numpy_returns(self, kind: str, heading: str, i: int, j: int) -> None:
        """One entry per ``type`` or ``name : type`` line; a sentence is a description."""
        for first, last in self._blocks(i, j):
            start, end = self.starts[first], self.ends[first]
            name = None
            m = _NUMPY_RETURN.match(self.value, start, end)
            if m is not None:
                name, type_ = self._exact(*m.span(1)), self._field(*m.span(2))
            else:
                type_ = self._field(start, end)
                if type_ is None or not _looks_like_type(type_.text):
                    type_, end = None, start
            description = self._field(end, self.ends[last])
            self.entries.append(_Draft(kind, name, type_, description, heading))

    # --- Sphinx and Epytext fields --------------------------------------------------

    def _field_list_item(self, m: re.Match, i: int, end: int) -> None:
        """A ``:tag args: body`` (or ``@tag args: body``) field spanning lines i..end."""
        tag = m.group(1)
        kind, role = _FIELD_TAGS.get(tag.lower(), ("other", "desc"))
        section = (":" if self.style == "sphinx" else "@") + tag
        args = m.span(2) if m.group(2) is not None else (m.end(1), m.end(1))
        body = self._field(m.end(), self.ends[end - 1])
        if kind == "raises":
            for name in self._exception_names(*args):
                self.entries.append(_Draft(kind, name, None, body, section))
            return
        if kind == "other":
            self.entries.append(_Draft(kind, self._field(*args), None, body, section))
            return
        name = type_ = None
        if kind in ("param", "attribute"):
            name, type_ = self._name_and_type(*args)
        if role == "type":
            self._merge_type(kind, name, body, section)
        else:
            self._merge_description(kind, name, type_, body, section)

    def _exception_names(self, start: int, end: int) -> list[Field | None]:
        if _EXC_LIST.fullmatch(self.value, start, end):
            return [self._exact(*x.span(1)) for x in _EXC_ITEM.finditer(self.value, start, end)]
        return [self._field(start, end)]

    def _name_and_type(self, start: int, end: int) -> tuple[Field | None, Field | None]:
        """``int x`` -> (x, int): the last word is the name, what comes before its type."""
        args = self._field(start, end)
        if args is None:
            return None, None
        cut = max(args.text.rfind(" "), args.text.rfind("\t"))
        name_start = args.start + cut + 1
        while name_start < args.end and self.value[name_start] == "*":
            name_start += 1
        type_ = self._field(args.start, args.start + cut) if cut > 0 else None
        return self._field(name_start, args.end), type_

    def _merge_type(self, kind: str, name: Field | None, type_: Field | None, section: str) -> None:
        """``:type x:``/``:rtype:`` completes the entry it describes, else starts one."""
        key = name.text if name is not None else None
        for candidate in ("param", "attribute") if kind == "param" else (kind,):
            draft = self.index.get((candidate, key))
            if draft is not None and draft.type is None:
                draft.type = type_
                return
        self._add(_Draft(kind, name, type_, None, section))

    def _merge_description(
        self, kind: str, name: Field | None, type_: Field | None, body: Field | None, section: str
    ) -> None:
        draft = self.index.get((kind, name.text if name is not None else None))
        if draft is not None and draft.description is None:
            draft.description, draft.section = body, section
            draft.type = draft.type or type_
            return
        self._add(_Draft(kind, name, type_, body, section))

    def _add(self, draft: _Draft) -> None:
        """Record an entry that later type or description fields may complete."""
        self.entries.append(draft)
        if draft.name is not None or draft.kind in ("returns", "yields"):
            key = draft.name.text if draft.name is not None else None
            self.index.setdefault((draft.kind, key), draft)
