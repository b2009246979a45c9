"""Value types shared by every layer of docfact.

Offsets are Python string indices. Two coordinate systems exist and are kept apart by name:
``Span`` is always an offset range in the *file's text*; ``start``/``end`` fields of
docstring parts (``Field``, ``DocEntry``, ``Segment``) are offsets in the docstring's
*value* (the cleaned string Python would show), mapped to the file by
``DocstringText.span_of``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CRITERIA = ("name", "type", "function", "context", "structure")
SEVERITIES = ("error", "warning", "information", "hint")


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range of offsets into a file's text."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    # "positional_only" | "regular" | "keyword_only" | "var_positional" | "var_keyword"
    kind: str
    annotation: str | None
    default: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class Signature:
    parameters: tuple[Parameter, ...]
    returns: str | None
    returns_span: Span | None
    is_async: bool = False
    throws: tuple[str, ...] = ()  # Java: the exceptions of the ``throws`` clause, as written

    def rendered(self) -> str:
        """As Python writes it after the name: ``(a: int, *rest, **options) -> str``."""
        parts = []
        for p in self.parameters:
            star = {"var_positional": "*", "var_keyword": "**"}.get(p.kind, "")
            text = star + p.name + (f": {p.annotation}" if p.annotation else "")
            parts.append(text + (f" = {p.default}" if p.default else ""))
        returns = f" -> {self.returns}" if self.returns else ""
        return f"({', '.join(parts)}){returns}"


@dataclass(frozen=True, slots=True)
class DocstringText:
    """A docstring's value, cleaned like ``inspect.cleandoc``, with where in the file
    every character of the value is."""

    value: str
    # From the start of the literal, so that a docstring moved by an edit above it moves
    # its literal only.
    offsets: tuple[int, ...]
    literal: Span
    markdown: bool = False  # Java: a /// comment (JEP 467), whose markup is Markdown

    def file_offset(self, index: int) -> int:
        """Where value[index] is in the file."""
        return self.literal.start + self.offsets[index]

    def span_of(self, start: int, end: int) -> Span:
        """File span covering value[start:end] (an empty range maps to a point)."""
        if not self.offsets:
            return self.literal
        if end <= start:
            point = self.file_offset(min(start, len(self.offsets) - 1))
            return Span(point, point)
        return Span(self.file_offset(start), self.file_offset(end - 1) + 1)


@dataclass(frozen=True, slots=True)
class Unit:
    """A documentable definition: module, class, function or method."""

    kind: str  # "module" | "class" | "function" | "method" | "field" (Java, documented)
    name: str
    qualname: str  # module-relative, e.g. "Class.method"
    span: Span  # the whole definition, decorators included
    name_span: Span
    def_line: int  # 0-based line of the ``def``/``class`` keyword (for suppressions)
    docstring: DocstringText | None
    signature: Signature | None = None
    decorators: tuple[str, ...] = ()
    # Names a sentence may mention without being wrong, beyond parameters:
    local_names: frozenset[str] = frozenset()  # assigned, imported or defined in the body
    attributes: frozenset[str] = frozenset()  # of the enclosing class (self./cls.) or own
    return_values: tuple[str, ...] = ()  # source text of every ``return <expr>``
    has_bare_return: bool = False
    is_generator: bool = False
    raises: tuple[str, ...] = ()  # exception names raised directly in the body
    # May raise what it did not create: a bare ``raise`` or a value (``raise self.error``,
    # Python), ``throw e`` or no body at all (Java: abstract, interface and native methods;
    # implementations decide).
    reraises: bool = False
    calls: tuple[str, ...] = ()  # dotted names called in the body (``self.save``, ``os.path.join``)
    bases: tuple[str, ...] = ()  # of a class, as written
    suppressed: frozenset[str] = frozenset()  # codes from ``# docfact: ignore[...]``
    # A method's instance attributes (``self.total = ...``): written, with the 0-based line
    # of the first write, and read.
    attribute_writes: tuple[tuple[str, int], ...] = ()
    attribute_reads: tuple[str, ...] = ()
    # Attributes used on what an instance attribute holds (``decrypted_data`` of
    # ``self.credentials.decrypted_data``): of a value of unknown type, any project
    # property so named may run.
    attributes_through: tuple[str, ...] = ()


class Outdated(Exception):
    """An analysis given up because a newer version of its text arrived (the editor's
    work on a version nobody will see again)."""


@dataclass(frozen=True, slots=True)
class Module:
    """A parsed source file: its units and the names it defines or imports."""

    units: tuple[Unit, ...]
    defined_names: frozenset[str]  # every name bound anywhere in the file
    imported_names: frozenset[str]  # local names bound by import statements
    # local name -> what it imports, dotted; relative imports keep their leading dots
    imports: tuple[tuple[str, str], ...] = ()
    # module- and class-level variables: (qualname such as "TIMEOUT" or "Cart.limit", 0-based line)
    variables: tuple[tuple[str, int], ...] = ()
    has_errors: bool = False
    package: str | None = None  # Java: the declared package ("" for the default package)
    # its code makes module names at run time (``globals().update(...)``): it may have any
    names_at_run_time: bool = False


# --- docstring structure (value coordinates) ---------------------------------------


@dataclass(frozen=True, slots=True)
class Field:
    """A piece of a docstring's value: value[start:end] == text."""

    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class DocEntry:
    """One entry of a docstring section."""

    kind: str  # "param" | "returns" | "yields" | "raises" | "attribute" | "see" | "other"
    # parameter/attribute name (no leading stars), exception name, or a Javadoc @see target
    name: Field | None
    type: Field | None
    description: Field | None
    section: str = ""  # the section heading or field tag as written ("Args", ":param")


@dataclass(frozen=True, slots=True)
class Docstring:
    style: str  # "google" | "numpy" | "sphinx" | "epytext" | "plain"
    text: DocstringText
    summary: Field | None
    prose: tuple[Field, ...]  # free prose blocks outside sections, summary included
    entries: tuple[DocEntry, ...]
    # Spans of the value that are code, not prose (doctests, literal blocks, fences).
    code_blocks: tuple[Field, ...] = ()
    inline: tuple[InlineTag, ...] = ()  # Javadoc's {@code ...}, {@link ...}, <code>...</code>


@dataclass(frozen=True, slots=True)
class InlineTag:
    """An inline tag of a Javadoc comment: ``{@link Cart#add(Item) the cart}``."""

    tag: str  # "code", "link", "linkplain", "literal", "value", ... ("code" for <code>)
    whole: Field  # from "{" to "}" (or <code> to </code>)
    body: Field | None  # what the tag holds: the code, or the link's target (no label)


@dataclass(frozen=True, slots=True)
class Segment:
    """A sentence of prose, or one entry's description."""

    text: str
    start: int
    end: int
    role: str  # "summary" | "prose" | "param" | "returns" | "yields" | "raises" | ...
    entry: DocEntry | None = None


# --- results -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evidence:
    symbol: str
    path: str
    line: int  # 1-based
    text: str = ""
    # "" for context (ReFEree's 1-hop neighbourhood, what a finding was judged on); for a
    # name-existence finding, what shows the text meant something else of the project:
    # "near miss" or "history" (``checks/evidence.py``)
    kind: str = ""


# How far a fix may be trusted, as ruff grades them: a "safe" fix makes the docstring say
# what the code says and may be applied with every other; an "unsafe" one may pick the
# wrong word (a name merely spelled alike), so it is applied one at a time, after reading
# it; a "display-only" one is shown but never applied (it would leave the docstring wrong
# another way).
FIX_SAFETIES = ("safe", "unsafe", "display-only")


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    replacement: str
    span: Span
    safety: str = "unsafe"  # one of FIX_SAFETIES


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    criterion: str
    severity: str
    message: str
    span: Span
    symbol: str
    sentence: str
    sentence_span: Span
    evidence: tuple[Evidence, ...] = ()
    fix: Fix | None = None
    # What would cancel this finding once the whole project is known:
    # ("defined", name): a file of the project defines ``name``;
    # ("called", name): the same, or a module of the standard library does (what an example
    # in the docstring calls);
    # ("visible", name), Java: the same, or the unit's file has a wildcard import of names
    # docfact cannot list (a package or class outside the project and the JDK's API);
    # ("raised", exception): the unit or a callee in the project may raise ``exception``.
    condition: tuple[str, str] | None = None
    data: dict = field(default_factory=dict, compare=False, hash=False)
    # The text the finding flags, as written (the name a name-existence finding is about).
    subject: str = ""
    # Shown only with preview behaviour on (``preview = true``): a finding of a stable rule
    # that rests on too little (a name-existence finding with no evidence).
    preview: bool = False
