"""C1 (name): names in a docstring that are not the names the code uses."""

from __future__ import annotations

import ast
import bisect
import builtins
import inspect
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import NamedTuple

from ..graph.facts import is_property
from ..model import DocEntry, Docstring, Finding, Segment
from .context import CheckContext
from .evidence import alike_in_scope
from .kwargs import is_typo_of, keyword_fate, kwargs_use_of, reads_positionals
from .lookups import NameScope
from .referents import (
    called_name,
    closest_name,
    one_typo_apart,
    version_notes,
)
from .registry import rule

_SELF_AND_CLS = frozenset({"self", "cls"})
_VARIADIC = frozenset({"var_positional", "var_keyword"})
_TYPE_FIELDS = frozenset({"@type", ":type"})
_CODE = re.compile(
    r"(?::(?:py:)?(?P<role>[a-z][a-z-]*):)?"
    r"(?P<ticks>``?)(?P<body>[^`\n]+?)(?P=ticks)(?![`_])"  # `text`_ is a hyperlink
)
_EPYTEXT_CODE = re.compile(r"\bC\{(?P<body>[^{}\n]+)\}")
_CAMEL_CASE = re.compile(r"[a-z]+(?:[A-Z][a-z0-9]*)+")
# A letter with a subscript is maths in any docstring: ``K_4``, ``C_m``, `s_i`.
_SUBSCRIPTED = re.compile(r"[A-Za-z]_[A-Za-z0-9]{1,2}")
# Maths in NumPy docstrings' single backticks: `s_i`, `K_4`, `vA`, `nxn`. A subscript
# follows a symbol of one or two letters (`B_e`, `v_A`, `d_k`): `num_G` and `old_G` are
# names built on the parameter `G`, not maths.
_MATH = re.compile(r"[A-Za-z]{1,3}|[A-Za-z]{1,2}_[A-Za-z0-9]{1,2}")
# Sentences about history name what is gone: "Renamed from ``resultcallback``". A present
# or future passive tells what the code does, and names what is there ("each tab is
# replaced", "it will be removed", "it is used to unpack"); "was called" is history only
# before a name ("was called ``f``", not "was called with ...").
_HISTORY = re.compile(
    r"\b(?:renamed|deprecated|no longer|formerly|previously|declined|instead of|removed"
    r"|replaced|replaces"
    r"|migrat(?:e|es|ed|ing|ion) from"
    r"|(?:originally|initially|first) (?:called|named)"
    r"|used to|was called(?=\s+[`'\"])"
    r"|(?:prior to|before) (?:[\w-]+ )?versions? \d)\b",
    re.IGNORECASE,
)
_PASSIVE = frozenset({"is", "are", "be", "being", "get", "gets"})
# Methods that make attributes on demand: their docstrings name examples of what they make
# (blessed's ``__getattr__``: "``is_mouse_left_released()``, etc.").
_ATTRIBUTE_HOOKS = frozenset({"__getattr__", "__getattribute__", "__dir__"})
# A parameter's description that retires it: old callers may still pass it, and a function
# with **kwargs still takes it.
_RETIRED = re.compile(
    r"\b(?:deprecated|ignored|unused|has no effect|no longer (?:used|supported|has any effect))\b",
    re.IGNORECASE,
)
# An item of a version history ("* v1: `max_time_steps` raised to 500", "- 0.12.3: ..."):
# it tells what changed then, in the names of then. A bare number needs three parts to be a
# version ("- 0.5: ..." may list a parameter's values).
_VERSION_ITEM = re.compile(
    r"[ \t]*(?:[*+-][ \t]+)?(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+)\w*[ \t]*[:\-\u2013]"
)
# Words that deny a name exists, just before it: "There is no `DynamicHistory`".
_DENIED = re.compile(
    r"\b(?:there\s+(?:is|are|was|were)|(?:has|have|had))\s+no\s+\W{0,3}$", re.IGNORECASE
)
_WORD_BEFORE = re.compile(r"(\w+)\W*$")
# Of a note about history: a verb in the present, and words that tell of a change.
_PRESENT = re.compile(r"\b(?:is|are|can|may|must|will|does|do)\b", re.IGNORECASE)
_CHANGE = re.compile(
    r"\b(?:now|new|newly|adds?|added|replace[sd]?|previous|old|older|became|becomes?"
    r"|changed?|changes|renamed?|renames|removed?|removes|deprecated|was|were|been)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`:*])")
_FILE_SUFFIXES = frozenset(
    {
        "py",
        "pyi",
        "txt",
        "xml",
        "json",
        "yaml",
        "yml",
        "toml",
        "cfg",
        "ini",
        "csv",
        "html",
        "md",
        "rst",
        "pl",
        "c",
        "h",
        "so",
        "dll",
        "zip",
        "gz",
        # images and documents an example names (google-cloud-storage's `blog.png`)
        "png",
        "jpg",
        "jpeg",
        "gif",
        "svg",
        "pdf",
    }
)
_BARE_CALL = re.compile(r"(?<![\w.`'\"*@])(?P<body>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(\)(?!`)")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_MENTIONS_C = re.compile(r"\bC (?:function|API|code|level)|\w\.[ch]\b")
# Names of CPython's C API (``PyFrame_New``, ``_Py_DecodeUTF8Ex``) live in no Python file.
_C_API = re.compile(r"_?_?Py[A-Z_]")
# A name right after "for example" is made up, or stands for a kind of thing.
_ILLUSTRATION = re.compile(
    r"\b(?:for (?:example|instance)|e\.g\.|such as)[^.;:()]{0,12}$", re.IGNORECASE
)
# A name the reader is to write: "if you made a subclass ``MP3Handler``", "define an
# `on_changed` method", "handled using `on_changed` in a subclass of ...".
_READER_WRITES_BEFORE = re.compile(
    r"\b(?:(?:an?|your(?:\s+own)?)\s+(?:new\s+|custom\s+)?(?:sub)?class(?:\s+(?:called|named))?"
    r"|(?:define|implement|write|create|add|provide)s?\s+(?:an?|your(?:\s+own)?)"
    r"|handled\s+(?:using|with|by)(?:\s+an?)?"
    r"|\ban?\s+(?:method|function|handler|callback|hook|class|subclass)\s+(?:named|called)"
    r")\s*[`'\"]*$",
    re.IGNORECASE,
)
# A capitalised word in mid-sentence right before a name: "a Routes ``Mapper`` object".
_PROPER_OWNER = re.compile(r"\b(?:an?|the|[a-z]+)\s+(?P<owner>[A-Z][A-Za-z0-9]+)\s*[`'\"]*$")
_WHERE = re.compile(r"\bwhere\s*[`'\"]*$", re.IGNORECASE)
_DEFINED_AS = re.compile(r"[`'\"]*\s+(?:is|are|denotes|stands for)\b")
_INDEFINITE = re.compile(r"\ban?\s*[`'\"]*$", re.IGNORECASE)
_CALLABLE_NOUN = re.compile(r"[`'\"]*\s*(?:method|function|handler|callback|hook)\b", re.IGNORECASE)
_IN_A_SUBCLASS = re.compile(r"[`'\"]*\s+in\s+(?:a|your(?:\s+own)?)\s+subclass\b", re.IGNORECASE)
# A name that belongs to something outside the code: "stdio's ``fgets``", "the Python
# library ``qpformat``", "the ``mod_auth_tkt`` specification".
_OWNED_BEFORE = re.compile(
    r"(?:\b\w+'s|\b(?:library|package|program|utility|tool|command|specification))\s*[`'\"]*$",
    re.IGNORECASE,
)
_OUTSIDE_NOUN = re.compile(
    r"[`'\"]*\s*(?:library|package|program|utility|tool|command|executable|binary"
    r"|specification|spec|protocol|directive|setting)s?\b",
    re.IGNORECASE,
)
_PARENTHESES = re.compile(r"\([^()]*\)")
# Code spans in a row: "``nan``, ``inf``, and ``-inf``", "``a`` or ``b``".
_CODE_LIST = re.compile(
    r"``?[^`\n]+``?(?:(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)``?[^`\n]+``?)+"
)
_BUILTIN_FUNCTIONS = {name: value for name, value in vars(builtins).items() if callable(value)}
# What a keyword argument looks like.
_KEYWORD = re.compile(r"[a-z_][a-z0-9_]*")
# What precedes a cross-reference: "See `comparison`", ".. seealso:: `comparison`".
_SEE = re.compile(r"\bsee(?: also|also::)?\s*$", re.IGNORECASE)
# A TSDoc link in generated docstrings, whose label is in backticks: {@link A.b `b`}.
_TSDOC_LINK = re.compile(r"\{@link[^}]*\}")
# Literals of JSON, JavaScript and friends, not Python names.
_FOREIGN_LITERALS = frozenset({"null", "true", "false", "undefined", "nil"})
# A placeholder built on a known name: ``TypeA``, ``TypeB`` beside ``Type``.
_PLACEHOLDER = re.compile(r"(?P<stem>[A-Za-z_]\w*?)[A-Z0-9]")
# Section titles a NumPy docstring wrote without the underline: not parameters.
_SECTION_TITLES = frozenset(
    {
        "Returns",
        "Yields",
        "Raises",
        "Notes",
        "References",
        "Examples",
        "Warnings",
        "Attributes",
        "Methods",
    }
)


# A decorator that copies a docstring onto what it decorates: ``@doc(plot_dataframe)``,
# ``@copy_docstring(f)``, ``@docstring.Appender(f.__doc__)``.
_COPIES_DOCSTRING = re.compile(r"^[\w.]*doc\w*\(\s*([\w.]+?)(?:\.__doc__)?\s*[,)]", re.IGNORECASE)


def _docstring_copied(ctx: CheckContext) -> bool:
    """Whether a definition of the module takes this unit's docstring for its own, so that
    the entries may be the other's parameters (geopandas's ``@doc(plot_dataframe)`` on an
    accessor whose ``__call__`` takes ``kind``)."""
    name = ctx.unit.name
    return any(
        (copied := _COPIES_DOCSTRING.match(decorator)) is not None
        and copied.group(1).rpartition(".")[2] == name
        for unit in ctx.module.units
        for decorator in unit.decorators
    )


@rule("DF101", "unknown-parameter", "name", "A documented parameter that is not in the signature.")
def unknown_parameter(ctx: CheckContext) -> Iterator[Finding]:
    signature = ctx.signature
    if signature is None:
        if ctx.unit.kind == "class":
            yield from _lone_type_fields(ctx)
            yield from _inherited_constructor_entries(ctx)
        return
    if is_property(ctx.unit):
        return  # a property's documented parameters are those of the callable it returns
    parameters = [p.name for p in signature.parameters]
    kwargs = next((p.name for p in signature.parameters if p.kind == "var_keyword"), None)
    use = kwargs_use_of(ctx, kwargs) if kwargs else None
    args = next((p.name for p in signature.parameters if p.kind == "var_positional"), None)
    # A heading written without its underline is no parameter, nor is the `:type x:` of
    # an `:ivar x:`.
    accepted = (
        set(parameters)
        | _SECTION_TITLES
        | {e.name.text for e in ctx.docstring.entries if e.kind == "attribute" and e.name}
    )
    if ctx.unit.kind == "class" and ctx.unit.signature is None:
        # A class documenting its constructor: dataclass-like fields count as parameters.
        accepted |= ctx.unit.attributes
    accepted |= _returned_callable_parameters(ctx)
    documented = {e.name.text for e in ctx.docstring.entries if e.kind == "param" and e.name}
    ignored = ignored_parameters(ctx)
    undocumented = [p for p in parameters if p not in documented and p not in ignored]
    # An entry that is no parameter, beside one for the ``**kwargs`` as a whole while a
    # named parameter goes undocumented, is that parameter under a stale name (flask's
    # ``template_name`` for ``source``), not a key of the keywords; unless such entries
    # outnumber those parameters: then the docstring documents keys (dask's ``dataset``
    # and ``read`` beside an undocumented ``engine``).
    named_undocumented = [
        p.name for p in signature.parameters if p.kind not in _VARIADIC and p.name in undocumented
    ]
    entry_names = [e.name.text for e in ctx.docstring.entries if e.kind == "param" and e.name]
    strays = [
        name
        for name in entry_names
        if name not in accepted and name not in ignored and _NAME.fullmatch(name)
    ]
    stale_name = (
        kwargs is not None
        and any(name.lstrip("\\*") == kwargs for name in entry_names)
        and 0 < len(strays) <= len(named_undocumented)
    )
    for entry in ctx.docstring.entries:
        if entry.kind != "param" or entry.name is None:
            continue
        name = entry.name.text
        if name in accepted or name in ignored or not _NAME.fullmatch(name):
            continue
        # Asked only now: reading every definition's decorators makes this unit depend on
        # all of them (an edit anywhere in the module would check it again).
        if _docstring_copied(ctx):
            return  # it documents another callable's parameters too
        closest = closest_name(name, undocumented) or closest_name(name, parameters)
        shown = ", ".join(f"`{p}`" for p in parameters if p not in ignored) or "none"
        message = f"`{name}` is not a parameter of `{ctx.unit.name}` (its parameters: {shown})"
        condition = None
        if use is not None and name in use.read:
            continue  # read from **kwargs by name (a deprecated alias: ``kwargs.pop("quadsegs")``)
        if kwargs is not None and _retired(entry):
            continue  # "size_policy: this argument is deprecated": **kwargs still takes it
        if args is not None and _positional_through(ctx, args, name, closest):
            continue  # ``PColorMeshItem([x, y,] z)``: positional arguments taken as *args
        if (
            stale_name
            and use is not None
            and use.anywhere
            and closest is None
            and not _tells_of_any(entry, undocumented)
        ):
            continue  # a key of keywords kept whole (``settings.update(kwargs)``), no stale
            # name: it tells nothing of the parameter left undocumented
        if (
            use is not None
            and stale_name
            and use.forwarded_to
            and not is_typo_of(name, closest, kwargs)
        ):
            # Unless a callee it passes the keywords on to names it (a deprecated
            # ``default`` of a base's constructor).
            condition = ("forwarded by name", f"{','.join(use.forwarded_to)}:{name}")
        elif use is not None and not stale_name and not is_typo_of(name, closest, kwargs):
            # **kwargs: a typo of a named parameter is reported; else the key may be read.
            closest, fate = None, keyword_fate(use, name)
            if fate == "accepted":
                continue
            message += f", and it reads no `{name}` from `**{kwargs}`"
            condition = fate if isinstance(fate, tuple) else None
        if closest:
            message += f"; did you mean `{closest}`?"
        evidence = (
            ctx.evidence(ctx.unit.qualname, ctx.unit.name_span.start, signature.rendered()),
        )
        yield ctx.finding(
            "DF101",
            message,
            entry.name.start,
            entry.name.end,
            entry=entry,
            fix=(f"Rename to `{closest}`", closest, _rename_safety(name, closest, undocumented))
            if closest
            else None,
            evidence=evidence,
            condition=condition,
        )


def _tells_of_any(entry: DocEntry, parameters: Iterable[str]) -> bool:
    """Whether the entry's text holds a word of one of ``parameters`` (flask's stale
    ``template_name: the sourcecode of the template`` for ``source``)."""
    told = " ".join(part.text for part in (entry.type, entry.description) if part is not None)
    told = told.lower()
    return any(word in told for p in parameters for word in p.lower().split("_") if len(word) > 2)


def _retired(entry: DocEntry) -> bool:
    """Whether the entry's text retires its parameter (NumPy style may put that text where
    the type goes: "size_policy: this argument is deprecated")."""
    told = (entry.type, entry.description)
    return any(part is not None and _RETIRED.search(part.text) for part in told)


def _positional_through(ctx: CheckContext, args: str, name: str, closest: str | None) -> bool:
    """Whether the entry ``name`` may be a positional argument the function takes through
    its ``*args``: the docstring does not document ``*args`` as a whole, the function reads
    it, and the name is no typo of a named parameter."""
    documents_args = any(
        e.kind == "param" and e.name is not None and e.name.text.lstrip("\\*") == args
        for e in ctx.docstring.entries
    )
    if documents_args or is_typo_of(name, closest, args):
        return False
    return reads_positionals(ctx, args)


def _lone_type_fields(ctx: CheckContext) -> Iterator[Finding]:
    """The type fields (``@type x:``, ``:type x:``) of a class without a constructor of
    its own that type nothing: no entry documents ``x``, and the class's code has no ``x``
    (pydoctor warns of them too). twisted: ``@type whenRunningArguments:`` beside
    ``@ivar _whenRunningArguments:``."""
    entries = ctx.docstring.entries
    documented = {
        e.name.text for e in entries if e.name is not None and e.section not in _TYPE_FIELDS
    }
    for entry in entries:
        if entry.kind != "param" or entry.section not in _TYPE_FIELDS or entry.name is None:
            continue
        name = entry.name.text
        if name in documented or name in ctx.class_names or not _NAME.fullmatch(name):
            continue
        closest = closest_name(name, documented)
        message = (
            f"`{name}` has a type field, but the docstring documents no `{name}` and "
            f"`{ctx.unit.name}` has none"
        )
        if closest:
            message += f"; did you mean `{closest}`?"
        yield ctx.finding(
            "DF101",
            message,
            entry.name.start,
            entry.name.end,
            entry=entry,
            fix=(f"Rename to `{closest}`", closest, "unsafe") if closest else None,
        )


def _inherited_constructor_entries(ctx: CheckContext) -> Iterator[Finding]:
    """The parameter entries of a class without a constructor of its own, which documents
    the one it inherits: each must be a parameter of that constructor, which only the
    project knows (the condition ``("constructor keyword", name)``). A decorated class
    (a dataclass, attrs) gets a constructor its code does not show, and a name the class's
    code uses may be a field."""
    if ctx.unit.decorators:
        return
    attributes = {e.name.text for e in ctx.docstring.entries if e.kind == "attribute" and e.name}
    for entry in ctx.docstring.entries:
        if entry.kind != "param" or entry.name is None or entry.section in _TYPE_FIELDS:
            continue
        name = entry.name.text.lstrip("\\*")
        if (
            name in attributes
            or name in ctx.class_names
            or name in _SELF_AND_CLS
            or not _NAME.fullmatch(name)
        ):
            continue
        yield ctx.finding(
            "DF101",
            f"`{name}` is not a parameter of the constructor `{ctx.unit.name}` inherits",
            entry.name.start,
            entry.name.end,
            entry=entry,
            condition=("constructor keyword", name),
        )


def _rename_safety(name: str, closest: str, undocumented: list[str]) -> str:
    """A documented name one typo away from an undocumented parameter is that parameter
    ("safe"); a looser match may be another ("unsafe"); renaming to a parameter documented
    already would document it twice ("display-only")."""
    if closest not in undocumented:
        return "display-only"
    return "safe" if one_typo_apart(name, closest) else "unsafe"


def _returned_callable_parameters(ctx: CheckContext) -> set[str]:
    """Parameters of the nested functions and lambdas the unit returns: a factory's
    docstring documents what the function it returns takes ("Return a function that
    takes `uuid`")."""
    returned: set[str] = set()
    found: set[str] = set()
    for value in ctx.unit.return_values:
        returned.update(_NAME.findall(value))
        try:
            tree = ast.parse(value.strip(), mode="eval")
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda):
                arguments = node.args
                found.update(
                    a.arg
                    for a in (
                        *arguments.posonlyargs,
                        *arguments.args,
                        *arguments.kwonlyargs,
                        arguments.vararg,
                        arguments.kwarg,
                    )
                    if a is not None
                )
    depth = ctx.unit.qualname.count(".") + 1
    for nested in ctx.nested_units:
        if nested.name in returned and nested.signature and nested.qualname.count(".") == depth:
            found.update(p.name for p in nested.signature.parameters)
    return found


def ignored_parameters(ctx: CheckContext) -> frozenset[str]:
    """Parameters no docstring documents: Python's ``self`` and ``cls`` (in Java, ``cls``
    is a name like any other)."""
    return frozenset() if ctx.docstring.style == "javadoc" else _SELF_AND_CLS


@rule(
    "DF102",
    "unresolved-name",
    "name",
    "A name written as code in the prose that is defined nowhere.",
)
def unresolved_name(ctx: CheckContext) -> Iterator[Finding]:
    for segment, start, name, is_call, how in _code_references(
        ctx.segments, ctx.docstring, _renamable(ctx)
    ):
        if not is_call:
            yield from _unresolved(ctx, "DF102", segment, start, name, how)


@rule(
    "DF103",
    "unknown-callable",
    "name",
    "A called name, such as `f()`, that exists nowhere in the project or its imports.",
)
def unknown_callable(ctx: CheckContext) -> Iterator[Finding]:
    for segment, start, name, is_call, how in _code_references(
        ctx.segments, ctx.docstring, _renamable(ctx)
    ):
        if is_call:
            yield from _unresolved(ctx, "DF103", segment, start, name, how)


# (segment, value start, dotted name, is a call, how it is written)
_CodeReference = tuple[Segment, int, str, bool, str]


def _code_references(
    segments: tuple[Segment, ...], docstring: Docstring, renamable: frozenset[str] = frozenset()
) -> Iterator[_CodeReference]:
    """(segment, value start, dotted name, is a call, how it is written) of each reference.

    In NumPy-style docstrings single backticks mostly hold maths (`s_i`, `K_4`) or
    placeholders: only ``literals`` and roles count as code there. In Javadoc, code is
    ``{@code ...}`` (or ``<code>``); link targets are left to the link rule."""
    if docstring.style == "javadoc":
        yield from _javadoc_references(segments, docstring, renamable)
        return
    # Where code is written in double backticks, single ones are reST's default role,
    # which "See `comparison`" uses for a cross-reference to a page.
    default_role = "``" in docstring.text.value
    for segment in segments:
        text = segment.text
        links = [m.span() for m in _TSDOC_LINK.finditer(text)]
        covered = []
        for match in _CODE.finditer(text):
            if match.group("role") is not None or _within(match.start(), links):
                covered.append(match.span())  # a role is a cross-reference: DF107's
                continue
            reference = _reference_in(match.group("body"), calls=True)
            if reference is None:
                continue
            offset, name, is_call = reference
            covered.append((match.start(), match.end()))
            start = segment.start + match.start("body") + offset
            cross_reference = default_role and _SEE.search(text, 0, match.start()) is not None
            how = _written_as(match, name, docstring.style, cross_reference)
            if how == "code" and called_name(match.group("body")):
                how = "example"  # not maths: NumPy's `Wd(k,n)` is a formula
            yield segment, start, name, is_call, how
        if docstring.style != "numpy":  # Epytext writes code as C{...}, also beside :param:
            for match in _EPYTEXT_CODE.finditer(text):
                reference = _reference_in(match.group("body"), calls=True)
                covered.append(match.span())
                if reference is not None:
                    offset, name, is_call = reference
                    how = "example" if called_name(match.group("body")) else "code"
                    yield segment, segment.start + match.start("body") + offset, name, is_call, how
        for match in _BARE_CALL.finditer(text):
            if _within(match.start(), covered):
                continue
            start = segment.start + match.start("body")
            yield segment, start, match.group("body"), True, "plain"


def _within(position: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(a <= position < b for a, b in spans)


def _written_as(match: re.Match, name: str, style: str, cross_reference: bool) -> str:
    """How a code span reads: "code"; "maths" (`s_i`, NumPy's single backticks: `nxn`);
    or "plain" for a single-backticked word that is a ``cross_reference``."""
    single = match.group("role") is None and match.group("ticks") == "`"
    if _SUBSCRIPTED.fullmatch(name) or (single and style == "numpy" and _MATH.fullmatch(name)):
        return "maths"
    if single and cross_reference and name.isalpha() and name.islower():
        return "plain"
    return "code"


def _javadoc_references(
    segments: tuple[Segment, ...], docstring: Docstring, renamable: frozenset[str]
) -> Iterator[_CodeReference]:
    """Javadoc writes every term as {@code ...}: keywords, bytecodes, Unicode property
    names, placeholders. A name in code is taken as the code's in a @param, @return or
    @throws description; in the prose only when it is a near miss of a ``renamable``
    name (one renamed without its comment). Plain-text calls are not looked at."""
    for segment in segments:
        in_entry = segment.role in ("param", "returns", "raises")
        for tag in docstring.inline:
            if not (segment.start <= tag.whole.start and tag.whole.end <= segment.end):
                continue
            if tag.tag != "code" or not tag.body:
                continue
            reference = _reference_in(tag.body.text)
            if reference is None:
                continue
            offset, name, is_call = reference
            if in_entry or closest_name(name.split(".")[0], renamable):
                yield segment, tag.body.start + offset, name, is_call, "code"


def _reference_in(body: str, calls: bool = False) -> tuple[int, str, bool] | None:
    """(offset in body, name, is a call) when a code span holds a plain dotted name,
    or with ``calls`` one that Python code calls with arguments (``mkpipe(f, g)(x)``)."""
    callee = called_name(body) if calls else None
    if callee is not None:
        return 0, callee, True
    target = body
    offset = 0
    explicit = re.fullmatch(r"[^<]*<([^>]+)>", body)  # :func:`title <target>`
    if explicit:
        offset, target = explicit.start(1), explicit.group(1)
    stripped = target.lstrip("~!.*")
    offset += len(target) - len(stripped)
    is_call = stripped.endswith("()")
    name = stripped[:-2] if is_call else stripped
    if not _NAME.fullmatch(name):
        return None
    return offset, name, is_call


def _parameters(ctx: CheckContext) -> frozenset[str]:
    return frozenset(p.name for p in ctx.signature.parameters) if ctx.signature else frozenset()


def _renamable(ctx: CheckContext) -> frozenset[str]:
    """What a Javadoc comment's prose names that may have been renamed under it: the
    parameters, or in a field's comment the fields of its class."""
    if ctx.unit.kind != "field":
        return _parameters(ctx)
    owner = ctx.unit.qualname.rpartition(".")[0] + "."
    return frozenset(
        name[len(owner) :]
        for name, _ in ctx.module.variables
        if name.startswith(owner) and "." not in name[len(owner) :]
    )


def _nearest(ctx: CheckContext, name: str, how: str) -> str | None:
    """What a misspelt name may have meant. Maths only ever misspells a parameter; in
    Java, whose code is all names, only parameters and fields are likely."""
    if how == "maths":
        return closest_name(name, _parameters(ctx))
    if ctx.docstring.style == "javadoc":
        return closest_name(
            name, _parameters(ctx) | {n.rpartition(".")[2] for n, _ in ctx.module.variables}
        )
    return ctx.referents.nearest(name) or _alike_in_scope(ctx, name)


# A scope with more names than this makes a looser likeness no evidence of one of them.
_MOST_IN_SCOPE = 200


def _alike_in_scope(ctx: CheckContext, name: str) -> str | None:
    """The one name of the unit's own scope (its parameters, what its examples and its
    code bind) that ``name`` is a looser near miss of (``image_store`` of an example's
    ``image_store_config``): there are few such names, so a word more or two letters
    still point at one."""
    # A function's own code; a module's or class's text holds every function's locals.
    local = ctx.unit.local_names if ctx.unit.kind in ("function", "method") else frozenset()
    own = _parameters(ctx) | ctx.example_names | local
    if len(own) > _MOST_IN_SCOPE:
        return None  # too many to tell one (and each name of a hostile text would ask)
    found = {c for c in own if c != name and alike_in_scope(name, c) is not None}
    return found.pop() if len(found) == 1 else None


def _unresolved(
    ctx: CheckContext, code: str, segment: Segment, start: int, name: str, how: str
) -> Iterator[Finding]:
    """A finding for ``name`` unless it resolves; ``how``: "code", "plain", "maths" or
    "example" (the callee of inline code with arguments: ``mkpipe(f, g)(x)``)."""
    if ctx.unit.name in _ATTRIBUTE_HOOKS:
        return  # the hook that makes attributes names examples of what it makes
    parts = name.split(".")
    note = _version_note(ctx, start)
    # In a note about history, "is removed" tells a change, not what the code does.
    if tells_history(segment.text, start - segment.start, passives=note is None) or _mentions_c(
        segment.text
    ):
        return  # a history note, or a sentence about C code (names there are C's)
    if _DENIED.search(ctx.docstring.text.value, max(0, start - 40), start):  # a window: linear
        return  # "There is no `DynamicHistory`": the text says so itself
    if _in_version_item(ctx.docstring.text.value, start):
        return  # "* v1: `max_time_steps` raised to 500": a name of that version
    if parts[-1] in _FILE_SUFFIXES or not all(part.isidentifier() for part in parts):
        return  # a file name, or maths (``a³b⁴c²``)
    if parts[0] in _FOREIGN_LITERALS:
        return  # JSON's `null`
    referent = ctx.referents.resolve(name)
    if referent.resolved:
        return
    head = referent.name
    if _stands_for_known(head, ctx.known_names, called=how == "example"):
        return
    if any(p.startswith(head + "_") for p in ctx.referents.parameters):
        return  # what a parameter is about: ``kw_only`` of ``kw_only_default``
    closest = _nearest(ctx, head, how)
    if how == "maths" and closest == head.replace("_", ""):
        return  # maths writes the parameter ``x0`` with its subscript: `x_0`
    if (
        note is not None
        and not _tells_today(segment.text, start - segment.start)
        and (
            closest is None
            or not one_typo_apart(head, closest)
            or re.search(rf"\b{re.escape(closest)}\b", note)
        )
    ):
        return  # history names what is gone; only a plain typo of what exists is reported
    if how in ("code", "example") and _outside_or_to_write(ctx.docstring.text.value, head):
        return  # said to be the reader's to write, or something else's: near miss or not
    if closest is None and _module_member(ctx, parts, referent.name, how):
        # ``C{util.switchuid}``: a module the file does not import, by its last name; the
        # project graph reports it only as a near miss of a name such a module has.
        end = start + len(name)
        message = f"`{name}` is not a name the code or the project defines"
        yield ctx.finding(
            code, message, start, end, segment=segment, condition=("module member", name)
        )
        return
    # camelCase is Java's own style of names, not a sign of a name from elsewhere.
    foreign_case = _CAMEL_CASE.fullmatch(head) and ctx.docstring.style != "javadoc"
    if closest is None and (
        _incidental(segment, start, head, parts, how, foreign_case, ctx)
        or (code == "DF102" and _forwarded_keyword(ctx, head))
    ):
        return
    if closest and ctx.docstring.style != "javadoc" and _in_another_case(head, closest):
        return  # no typo: `textEdit` of a `TextEdit`, `BackendInterface` of `backend_interface`
    if code == "DF103":
        message = f"`{name}()` is called nowhere in the code and defined nowhere in the project"
    else:
        message = f"`{name}` is not a parameter, attribute or name defined in the code"
    if closest:
        message += f"; did you mean `{closest}`?"
    head_start = start if head == parts[0] else start + name.index(head)
    yield ctx.finding(
        code,
        message,
        head_start,
        head_start + len(head),
        segment=segment,
        fix=(f"Replace with `{closest}`", closest, "unsafe") if closest else None,
        # An example may call a function of any module of the standard library
        # (``monthrange(year, month)``), imported or not.
        condition=("called", head)
        if how == "example" and referent.condition
        else referent.condition,
    )


def _module_member(ctx: CheckContext, parts: list[str], head: str, how: str) -> bool:
    """Whether a dotted name in code markup (``util.switchuid``) starts with a name the
    file does not bind and may be a project module's last name: the graph judges it."""
    return (
        how in ("code", "example")
        and len(parts) == 2
        and head == parts[0]
        and head.islower()
        and ctx.docstring.style != "javadoc"
    )


def _in_version_item(value: str, at: int) -> bool:
    """Whether the line of ``value`` holding ``at`` is an item of a version history."""
    line_start = value.rfind("\n", 0, at) + 1
    return _VERSION_ITEM.match(value, line_start) is not None


def _version_note(ctx: CheckContext, start: int) -> str | None:
    """The text of the note about history (``.. versionchanged::``) around ``start``."""
    value = ctx.docstring.text.value
    return next((value[a:b] for a, b in version_notes(ctx.docstring) if a <= start < b), None)


def _forwarded_keyword(ctx: CheckContext, name: str) -> bool:
    """Whether ``name`` may be a keyword the unit passes on with ``**kwargs`` to a callee,
    whose parameters the docstring may then describe: one of the callee's parameters when
    the file tells them (a builtin, a function or method of the file), any keyword-like
    name when it cannot (an import, a method of a value, a class taken as a parameter)."""
    signature = ctx.signature
    kwargs = (
        next((p.name for p in signature.parameters if p.kind == "var_keyword"), None)
        if signature
        else None
    )
    if kwargs is None or not _KEYWORD.fullmatch(name):
        return False
    body = ctx.lines.text[ctx.docstring.text.literal.end : ctx.unit.span.end]  # after the signature
    for call in re.finditer(rf"([\w.]+)\((?:[^()]|\([^()]*\))*?\*\*{re.escape(kwargs)}\b", body):
        accepted = _callee_parameters(ctx, call.group(1))
        if accepted is None or name in accepted:
            return True
    return False


def _callee_parameters(ctx: CheckContext, callee: str) -> frozenset[str] | None:
    """The keywords ``callee`` (as called in the unit) accepts, or None when they are not
    known from the file alone or it takes any keyword itself."""
    if callee in _BUILTIN_FUNCTIONS:
        try:
            return frozenset(inspect.signature(_BUILTIN_FUNCTIONS[callee]).parameters)
        except (TypeError, ValueError):
            return None
    head, _, rest = callee.partition(".")
    if head in ("self", "cls") and rest and "." not in rest:
        qualname = f"{ctx.unit.qualname.rpartition('.')[0]}.{rest}"
    elif not rest:
        qualname = callee
    else:
        return None
    definition = next((u for u in ctx.module.units if u.qualname == qualname and u.signature), None)
    if definition is None or any(p.kind == "var_keyword" for p in definition.signature.parameters):
        return None
    return frozenset(p.name for p in definition.signature.parameters)


def _stands_for_known(head: str, known: NameScope, called: bool = False) -> bool:
    """Whether an unknown name still points at a known one, or is not a name at all.
    One ``called`` with arguments (``RaisesGroups(ValueError)``) is code, never a plural."""
    if _C_API.match(head) or (not called and head.endswith("s") and head[:-1] in known):
        return True  # the C API, or the plural of a known name ("`MagicMock`s")
    if head.endswith("_") or (
        head.startswith("_")
        and not head.startswith("__")
        and any(name.endswith(head) for name in known)
    ):
        return True  # a fragment of names: "the ``_codepoint`` arguments", "``tag_``"
    if "_" + head in known:
        return True  # a private name by its public spelling: "munge_whitespace()"
    placeholder = _PLACEHOLDER.fullmatch(head)
    return placeholder is not None and placeholder.group("stem") in known  # ``TypeA``, ``TypeB``


def _in_another_case(name: str, known: str) -> bool:
    """The same words in another naming convention: `textEdit` and `TextEdit`,
    `BackendInterface` and `backend_interface`, `deepObject` and `deep_object`. A
    difference inside one convention (`PropBank`, `Propbank`) or of underscores alone
    (`getall`, `get_all`) is a typo."""
    name, known = name.lstrip("_"), known.lstrip("_")
    if name.replace("_", "").lower() != known.replace("_", "").lower():
        return False
    conventions = {_convention(name), _convention(known)}
    return len(conventions) == 2 and conventions != {"flat", "snake"}


def _convention(name: str) -> str:
    if "_" in name:
        return "snake"
    if name[:1].isupper():
        return "pascal"
    return "camel" if name != name.lower() else "flat"


def _incidental(
    segment: Segment,
    start: int,
    head: str,
    parts: list[str],
    how: str,
    foreign_case: object,
    ctx: CheckContext,
) -> bool:
    """Whether a name with no near miss most likely names something outside the code."""
    if how not in ("code", "example") or (len(parts) > 1 and head == parts[0]) or foreign_case:
        return True  # plain text, maths, a dotted name with an unknown head, a JSON field
    if head.upper() == head:
        return True  # an acronym, an SQL keyword, a protocol constant: ``CLIG``, ``SSH_MSG_EOF``
    if ctx.docstring.style != "javadoc" and _template(head, ctx):
        return True  # a name built on a one-letter placeholder is a pattern (``X_nowait``)
    at = start - segment.start
    # A window, not the sentence so far: a sentence of many names would be read again per name.
    return (
        _ILLUSTRATION.search(segment.text, max(0, at - 40), at) is not None
        or _in_enumeration(segment, at, ctx)
        or _owned_by_an_outside_name(segment.text, at, ctx)
        or _tail_of_an_outside_name(ctx, head)
    )


def _owned_by_an_outside_name(sentence: str, at: int, ctx: CheckContext) -> bool:
    """Whether a capitalised word the code does not know comes right before the name, in
    mid-sentence: its owner, a library or product (``a Routes ``Mapper`` object``)."""
    match = _PROPER_OWNER.search(sentence, max(0, at - 40), at)
    return match is not None and not ctx.referents.resolve(match["owner"]).resolved


def _tail_of_an_outside_name(ctx: CheckContext, name: str) -> bool:
    """Whether the docstring also writes ``name`` as the last part of a dotted name whose
    head the code does not know (``MyModule.MyClass``, then ``MyClass``): the same thing.
    Not the target of a TSDoc link, which generated docstrings write for every member."""
    return any(
        head not in _SELF_AND_CLS and not ctx.referents.resolve(head).resolved
        for head in _dotted_heads(ctx.docstring.text.value).get(name, ())
    )


# Of every dotted name: its head, and the rest of it (a dotted name is read as a whole).
_DOTTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*)((?:\.\w+)+)")
# A name that starts a dotted name or stands alone, and is not called.
_MENTION = re.compile(r"(?<![\w.])\w+(?![\w(])")


# The two indexes below are built once per docstring: asking each name's question of the
# whole text was quadratic (8,000 backquoted names in one docstring took minutes).
@lru_cache(maxsize=16)
def _dotted_heads(text: str) -> dict[str, tuple[str, ...]]:
    """Each name written as a later part of a dotted name in ``text`` (not called, not
    in a TSDoc link) -> the heads of those dotted names."""
    heads: dict[str, dict[str, None]] = {}
    text = _TSDOC_LINK.sub("", text)
    for match in _DOTTED.finditer(text):
        parts = match[2][1:].split(".")
        if text.startswith("(", match.end()):
            parts.pop()  # the last part is called: a method, not the name
        for part in parts:
            heads.setdefault(part, {})[match[1]] = None
    return {part: tuple(found) for part, found in heads.items()}


@lru_cache(maxsize=16)
def _mentions(text: str) -> dict[str, tuple[int, ...]]:
    """Where each name stands in ``text``, alone or at the head of a dotted name, and not
    called."""
    found: dict[str, list[int]] = {}
    for match in _MENTION.finditer(text):
        found.setdefault(match.group(), []).append(match.start())
    return {name: tuple(starts) for name, starts in found.items()}


@lru_cache(maxsize=256)  # asked once per unresolved name of a docstring
def _outside_or_to_write(text: str, name: str) -> bool:
    """Whether the words around some mention of ``name`` in the docstring ``text`` say it
    is one the reader is to write (``a subclass ``X````, ``an `on_x` method``, ``handled
    using `on_x` in a subclass``) or one of something outside the code (``stdio's
    ``fgets````, ``the ``mod_auth_tkt`` specification``): once said, every mention is."""
    for at in _mentions(text).get(name, ()):
        end = at + len(name)
        before = text[max(0, at - 50) : at]
        after = text[end : end + 40]
        if _READER_WRITES_BEFORE.search(before) or _OWNED_BEFORE.search(before):
            return True
        if _IN_A_SUBCLASS.match(after) or _OUTSIDE_NOUN.match(after):
            return True
        if _WHERE.search(before) and _DEFINED_AS.match(after):
            return True  # "where `low_val` is 0 for unsigned images": the text's own name
        if _INDEFINITE.search(before) and _CALLABLE_NOUN.match(after):
            return True
    return False


def _template(name: str, ctx: CheckContext) -> bool:
    """Whether ``name`` is built on a one-letter placeholder (``X_nowait``: "if ``X``
    would block"); not when the letter is a name of the code (``num_G`` with a ``G``)."""
    letters = [part for part in name.split("_") if len(part) == 1 and part.isupper()]
    return bool(letters) and not any(letter in ctx.known_names for letter in letters)


def _in_enumeration(segment: Segment, at: int, ctx: CheckContext) -> bool:
    """Whether the name at ``at`` of the sentence is one of a list of code spans that gives
    instances of what it talks about: two or more in parentheses (`a handler (``ignore``,
    ``backslashreplace``)`) or three or more in a row (```nan``, ``inf``, and ``-inf``),
    none of them a parameter; or two or more of which none is a name of the code
    (```XMLHttpRequest`` or ``Fetch```). Never a list with a call or a cross-reference
    (``:func:`f```): such a list is about the code."""
    for lists in _code_lists(segment.text):
        # The lists one pattern finds do not overlap: the one holding ``at``, if any, is
        # the last to start before it (not every list of the sentence, per name).
        index = bisect.bisect_right(lists, at, key=lambda found: found.start) - 1
        if index < 0 or at >= lists[index].end:
            continue
        found = lists[index]
        if found.in_parentheses or len(found.members) >= 3:
            if found.distinct.isdisjoint(ctx.referents.parameters):
                return True
        elif not any(_names_code(ctx, m) for m in found.members):
            return True
    return False


def _names_code(ctx: CheckContext, member: str) -> bool:
    """Whether a code span of a list is about the code: a name that resolves, or code
    whose every name is one of the code's (``{lt, le, gt, ge}`` of a function taking
    ``lt``, ...; not merely one the docstring's own code binds)."""
    if _NAME.fullmatch(member):
        return ctx.referents.resolve(member).resolved
    names = _IDENTIFIER.findall(member)
    return bool(names) and all(
        ctx.referents.resolve(name).kind in ("parameter", "code") for name in names
    )


class _CodeList(NamedTuple):
    start: int
    end: int
    members: tuple[str, ...]
    distinct: frozenset[str]  # the members, each once (a tuple is read whole per question)
    in_parentheses: bool


@lru_cache(maxsize=256)  # asked once per name of a sentence
def _code_lists(sentence: str) -> tuple[tuple[_CodeList, ...], ...]:
    """The lists of two or more code spans in ``sentence``, with no call or cross-reference
    among them, in parentheses and in a row (each in the order of the sentence)."""
    return tuple(tuple(_lists_of(pattern, sentence)) for pattern in (_PARENTHESES, _CODE_LIST))


def _lists_of(pattern: re.Pattern, sentence: str) -> Iterator[_CodeList]:
    for match in pattern.finditer(sentence):
        spans = list(_CODE.finditer(match.group()))
        if len(spans) < 2 or any(
            m.group("role") or m.group("body").endswith("()") or called_name(m.group("body"))
            for m in spans
        ):
            continue
        members = tuple(m.group("body") for m in spans)
        yield _CodeList(
            match.start(), match.end(), members, frozenset(members), pattern is _PARENTHESES
        )


def tells_history(text: str, at: int, passives: bool = True) -> bool:
    """Whether the sentence of ``text`` (a segment, which may hold a whole entry's
    sentences) around ``at`` tells history, so that the name at ``at`` may be gone:
    "instead of" puts in the past only what follows it ("a view is returned instead of
    a copy")."""
    other_words, first_instead_of = _history_in(text, *_sentence_around(text, at), passives)
    return other_words or first_instead_of < at


@lru_cache(maxsize=256)  # asked once per name of a sentence
def _history_in(text: str, start: int, end: int, passives: bool) -> tuple[bool, float]:
    """Whether ``text[start:end]`` has a word of history other than "instead of", and
    where its first "instead of" starts (infinity when it has none)."""
    other_words, first_instead_of = False, float("inf")
    for match in _history_words(text, start, end, passives):
        if match.group().lower() == "instead of":
            first_instead_of = min(first_instead_of, match.start())
        else:
            other_words = True
    return other_words, first_instead_of


def _history_words(text: str, start: int, end: int, passives: bool) -> Iterator[re.Match]:
    """The words of ``text[start:end]`` that tell history, passives aside (``passives``:
    a present passive tells what the code does)."""
    for match in _HISTORY.finditer(text, start, end):
        word = match.group().lower()
        if passives and word in ("removed", "replaced", "used to"):
            before = _WORD_BEFORE.search(text, max(start, match.start() - 20), match.start())
            passive = _PASSIVE | ({"was", "were", "been"} if word == "used to" else set())
            if before is not None and before.group(1).lower() in passive:
                continue
        yield match


def _tells_today(text: str, at: int) -> bool:
    """Whether the sentence of ``text`` around ``at``, in a note about history, tells how
    the code is today: a verb in the present and no word of change (click: "``ctx`` can
    be ``None``", "All ``kwargs`` are tracked"; not "``old_limit`` is now ``limit``",
    "The ``as_bytes`` parameter was added", "``etag`` replaces Flask's ``add_etags``")."""
    return _present_and_no_change(text, *_sentence_around(text, at)) and not tells_history(text, at)


@lru_cache(maxsize=256)  # asked once per name of a sentence
def _present_and_no_change(text: str, start: int, end: int) -> bool:
    return (
        _PRESENT.search(text, start, end) is not None and _CHANGE.search(text, start, end) is None
    )


def _sentence_around(text: str, at: int) -> tuple[int, int]:
    """The sentence of ``text`` around ``at``: from the end of the last sentence break
    whose next character is before ``at``, to the next break that starts at or after it."""
    breaks = _sentence_breaks(text)
    before = bisect.bisect_left(breaks, at, key=lambda span: span[1]) - 1
    after = bisect.bisect_left(breaks, at, key=lambda span: span[0])
    return (
        breaks[before][1] if before >= 0 else 0,
        breaks[after][0] if after < len(breaks) else len(text),
    )


@lru_cache(maxsize=16)  # finding them per name was quadratic in a long segment
def _sentence_breaks(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in _SENTENCE_END.finditer(text)]


@lru_cache(maxsize=256)  # asked once per name of a sentence
def _mentions_c(sentence: str) -> bool:
    """Whether the sentence is about C code."""
    return _MENTIONS_C.search(sentence) is not None
