"""C2 (type): documented types that the annotations or the returned values contradict."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..model import DocEntry, Evidence, Finding, Parameter, Segment, Signature, Unit
from .context import CheckContext
from .javatypes import as_python_annotation
from .registry import rule
from .typeexpr import (
    TypeExpr,
    contradicts,
    describe,
    parse_annotation,
    parse_doc_type,
    type_of_expression,
)

# "Returns True if ...", "Return a list of ...": the claim and the type it makes.
_CLAIM_NOUNS = (
    r"|an?\s+(?:new\s+|sorted\s+|single\s+)?"
    r"(?P<noun>list|dict|dictionary|tuple|set|frozenset|string|str|integer|int|float|boolean"
    r"|bool|bytes object|generator|iterator)\b(?!\s*-))"
)
_CLAIM = re.compile(
    # "None encoded": a participle makes the literal a noun phrase, not the value.
    r"^(?:Returns?:?\s+)?(?:(?P<literal>True|False|None)\b(?!\s+[a-z]+ed\b)|whether\b"
    + _CLAIM_NOUNS
)
# Javadoc: "{@code true} if ...", "<code>false</code> when ..."; any object may be null,
# so "null" claims nothing about the type.
_JAVA_CLAIM = re.compile(
    r"^(?:Returns?\s+)?(?:(?:\{@code\s+|<code>)?(?P<literal>true|false)\b"
    r"|whether\b" + _CLAIM_NOUNS
)
# Defaults that stand for "nothing" rather than for the parameter's type.
_NO_TYPE_DEFAULTS = frozenset({"None", "..."})
# An empty container stands for "no items": ``keep=()`` of a parameter documented as a
# list or a set, ``{}`` of one documented as a set (a common slip for ``set()``). ``()`` is
# the immutable "nothing" of mappings too: ``dict(())`` and ``d.update(())`` take it as an
# empty mapping (``handlers=()`` documented as a dict). Only ``{}`` still tells the kind:
# it is no ``list``.
_EMPTY_DEFAULTS = {
    "()": ("tuple", "list", "set", "frozenset", "dict"),
    "[]": ("list", "tuple", "set", "frozenset"),
    "set()": ("set", "frozenset", "list", "tuple"),
    "frozenset()": ("frozenset", "set", "list", "tuple"),
    "{}": ("dict", "set"),
}
_AS = re.compile(r"\s+as\s+(?:an?\s+)?(bytes object|\w+)")
_DESCRIBES_ITERATOR = re.compile(
    r"(?:an?\s+|the\s+)?(?:\w+\s+)?(?:iterator|generator|iterable)\b", re.IGNORECASE
)
# A Returns entry whose text goes on with "type: what" lines, one per returned member.
_MORE_TYPED_LINES = re.compile(r"\n\s*[A-Za-z_][\w.]*(?:\[[\w., \[\]]*\])?\s*:\s")
# What a caller can unpack into the members several Returns entries describe.
_UNPACKED = frozenset({"tuple", "list", "Generator"})
# Decorators whose function still returns the generator when called.
_KEEPS_GENERATOR = frozenset(
    {"staticmethod", "classmethod", "abstractmethod", "overload", "override"}
)
_NOUN_TYPES = {
    "list": "list",
    "dict": "dict",
    "dictionary": "dict",
    "tuple": "tuple",
    "set": "set",
    "frozenset": "frozenset",
    "string": "str",
    "str": "str",
    "integer": "int",
    "int": "int",
    "float": "float",
    "boolean": "bool",
    "bool": "bool",
    "bytes object": "bytes",
    "generator": "Iterator",
    "iterator": "Iterator",
}


# What docstring generators write for a type to fill in (pyment's ``type``, autoDocstring's
# ``_type_`` and ``[type]``): not yet a claim about the code.
_PLACEHOLDERS = frozenset({"type", "_type_", "[type]", "TYPE"})


@rule(
    "DF201",
    "parameter-type-mismatch",
    "type",
    "A documented parameter type that the annotation or the default value contradicts.",
)
def parameter_type_mismatch(ctx: CheckContext) -> Iterator[Finding]:
    signature = ctx.signature
    if signature is None:
        return
    parameters = {p.name: p for p in signature.parameters}
    for entry in ctx.docstring.entries:
        if entry.kind != "param" or entry.name is None or entry.type is None:
            continue
        parameter = parameters.get(entry.name.text)
        if parameter is None or parameter.kind in ("var_positional", "var_keyword"):
            continue  # *args documents its items' type, not the tuple's
        if entry.type.text.strip() in _PLACEHOLDERS:
            continue
        if parameter.annotation is None and _documented_sentinel(parameter.default, entry):
            continue
        documented = parse_doc_type(entry.type.text)
        actual, described = _parameter_type(parameter)
        if not contradicts(documented, actual, annotated=parameter.annotation is not None):
            continue
        message = f"`{parameter.name}` is documented as `{entry.type.text}`, but {described}"
        fix = None
        if parameter.annotation is not None:
            fix = (f"Change the type to `{parameter.annotation}`", parameter.annotation, "safe")
        evidence = (
            ctx.evidence(f"{ctx.unit.qualname}({parameter.name})", parameter.span.start, described),
        )
        yield ctx.finding(
            "DF201",
            message,
            entry.type.start,
            entry.type.end,
            entry=entry,
            fix=fix,
            evidence=evidence,
        )


def _documented_sentinel(default: str | None, entry: DocEntry) -> bool:
    """A text default that the entry's description names: ``block_size="default"`` with
    "Buffer size, 'default' for the class default" stands for a value of another type."""
    quoted = re.fullmatch(r"""[rRuU]?(['"])(\w[\w -]*)\1""", default or "")
    if quoted is None or entry.description is None:
        return False
    word = re.escape(quoted.group(2))
    return re.search(rf"(?<![\w-]){word}(?![\w-])", entry.description.text) is not None


def _parameter_type(parameter: Parameter) -> tuple[TypeExpr | None, str]:
    if parameter.annotation is not None:
        return parse_annotation(parameter.annotation), f"it is annotated `{parameter.annotation}`"
    empty = _EMPTY_DEFAULTS.get(parameter.default or "")
    if empty is not None:
        kinds = TypeExpr("Union", tuple(TypeExpr(kind) for kind in empty))
        return kinds, f"its default value `{parameter.default}` is an empty {empty[0]}"
    if parameter.default is not None and parameter.default not in _NO_TYPE_DEFAULTS:
        actual = type_of_expression(parameter.default)
        if actual is not None:
            return actual, f"its default value `{parameter.default}` is {_a(describe(actual))}"
    return None, ""


@rule(
    "DF202",
    "return-type-mismatch",
    "type",
    "A documented return type that the return annotation or every returned value contradicts.",
)
def return_type_mismatch(ctx: CheckContext) -> Iterator[Finding]:
    if ctx.unit.signature is None or _constructor(ctx):
        return
    if ctx.unit.is_generator and not _annotated_generator(ctx.unit):
        return  # its Returns is DF204's
    returns = [e for e in ctx.docstring.entries if e.kind == "returns"]
    for entry in returns:
        if entry.type is None or entry.type.text.strip() in _PLACEHOLDERS:
            continue
        # Several Returns entries (or one whose text goes on with more "type: ..." lines,
        # as Google style writes them) describe the members of a returned tuple.
        describes_member = len(returns) > 1 or _MORE_TYPED_LINES.search(
            entry.description.text if entry.description else ""
        )
        verdict = _returned_contradiction(
            ctx,
            parse_doc_type(entry.type.text),
            loose_claim=bool(describes_member),
            members=bool(describes_member),
        )
        if verdict is None:
            continue
        message = f"the return type is documented as `{entry.type.text}`, but {verdict[0]}"
        yield ctx.finding(
            "DF202",
            message,
            entry.type.start,
            entry.type.end,
            entry=entry,
            fix=verdict[1],
            evidence=verdict[2],
        )


@rule(
    "DF203",
    "yields-without-generator",
    "type",
    "A Yields section on a function that is not a generator and returns no iterator.",
)
def yields_without_generator(ctx: CheckContext) -> Iterator[Finding]:
    unit = ctx.unit
    if unit.signature is None or unit.is_generator:
        return
    entry = next((e for e in ctx.docstring.entries if e.kind == "yields"), None)
    if entry is None:
        return
    if unit.signature.returns and _iterator_like(unit.signature.returns):
        return  # returns an iterator made elsewhere, or a stub: ``-> AsyncGenerator[bytes]``
    verdict = _returned_contradiction(ctx, parse_annotation("Iterator"))
    if verdict is None:
        return
    start, end = _entry_bounds(entry)
    message = (
        f"documents what `{unit.name}` yields, but it is not a generator "
        f"(it has no `yield`) and {verdict[0]}"
    )
    yield ctx.finding("DF203", message, start, end, entry=entry, evidence=verdict[2])


@rule(
    "DF204",
    "returns-in-generator",
    "type",
    "A generator documented with Returns (what it produces belongs under Yields).",
)
def returns_in_generator(ctx: CheckContext) -> Iterator[Finding]:
    unit = ctx.unit
    entries = ctx.docstring.entries
    if not unit.is_generator or unit.return_values or any(e.kind == "yields" for e in entries):
        return
    if any(d.rpartition(".")[2] not in _KEEPS_GENERATOR for d in unit.decorators):
        return  # @contextmanager, a fixture: the caller gets what the decorator makes of it
    for entry in entries:
        if entry.kind != "returns" or describes_the_generator(unit, entry):
            continue
        start, end = _entry_bounds(entry)
        message = f"`{unit.name}` is a generator: document what it yields under Yields, not Returns"
        yield ctx.finding("DF204", message, start, end, entry=entry)


def _annotated_generator(unit: Unit) -> bool:
    """Whether a generator's annotation says what calling it gives (``-> Iterator[Row]``):
    a Returns type is then held against it as any function's is, unless a decorator makes
    something else of the generator (``@contextmanager``)."""
    returns = unit.signature.returns if unit.signature else None
    return (
        returns is not None
        and _iterator_like(returns)
        and all(d.rpartition(".")[2] in _KEEPS_GENERATOR for d in unit.decorators)
    )


def describes_the_generator(unit: Unit, entry: DocEntry) -> bool:
    """Whether a generator's Returns entry describes the generator object itself, which is
    true: an iterator-like type, any return annotation (a generator's can only be an
    iterator type, under any alias: ``-> ComposeResult``), or a description that starts
    by calling it one ("An iterator of ...", "Yields ...")."""
    if unit.signature and unit.signature.returns:
        return True
    if entry.type and _iterator_like(entry.type.text):
        return True
    return entry.description is not None and (
        _DESCRIBES_ITERATOR.match(entry.description.text) is not None
        or _iterator_like(entry.description.text.split(".")[0])
    )


@rule(
    "DF205",
    "return-claim-mismatch",
    "type",
    'A sentence such as "Returns True if ..." that the annotation or returned values contradict.',
)
def return_claim_mismatch(ctx: CheckContext) -> Iterator[Finding]:
    if ctx.unit.signature is None or ctx.unit.is_generator or ctx.unit.signature.returns == "void":
        return  # DF207 reports any documented return value of a void method
    if _constructor(ctx):
        return
    for segment in ctx.segments:
        claim = _claim(segment, _JAVA_CLAIM if ctx.docstring.style == "javadoc" else _CLAIM)
        if claim is None:
            continue
        start, end, claimed = claim
        verdict = _returned_contradiction(ctx, parse_annotation(claimed), loose_claim=True)
        if verdict is None:
            continue
        phrase = ctx.docstring.text.value[start:end]
        message = f"the docstring says it returns {phrase}, but {verdict[0]}"
        yield ctx.finding("DF205", message, start, end, segment=segment, evidence=verdict[2])


def _constructor(ctx: CheckContext) -> bool:
    """Whether the unit is a Python constructor, whose Returns describes the instance that
    calling the class makes (``__init__`` itself returns None)."""
    return (
        ctx.unit.name == "__init__"
        and ctx.unit.kind == "method"
        and ctx.docstring.style != "javadoc"
    )


def _claim(segment: Segment, claims: re.Pattern) -> tuple[int, int, str] | None:
    """(start, end, type) of a return claim at the start of a sentence or Returns entry."""
    claimed_in_prose = segment.role in ("summary", "prose") and re.match(
        r"Returns?\s", segment.text
    )
    if segment.role != "returns" and not claimed_in_prose:
        return None
    match = claims.match(segment.text)
    if match is None:
        return None
    if match.group("literal"):
        literal = match.group("literal")
        claimed = "None" if literal == "None" else "bool"  # True, False; Java's true, false
        return segment.start + match.start("literal"), segment.start + match.end("literal"), claimed
    if not match.group("noun"):  # "Return whether ..."
        return segment.start + match.end() - len("whether"), segment.start + match.end(), "bool"
    converted = _AS.match(segment.text, match.end("noun"))
    if converted is None:
        claimed = _NOUN_TYPES[match.group("noun")]
        return segment.start + match.start("noun"), segment.start + match.end("noun"), claimed
    # "Returns a dict as a string": the string is returned
    as_type = _NOUN_TYPES.get(converted.group(1).lower())
    if as_type is None:
        return None
    return segment.start + match.start("noun"), segment.start + converted.end(), as_type


# What awaiting gives: a docstring documents the result of ``await f()``, not the awaitable.
_AWAITABLES = frozenset({"Awaitable", "Coroutine", "Future", "Task"})


def _awaited(annotation: TypeExpr | None) -> TypeExpr | None:
    """The result type of an awaitable annotation (``Awaitable[tuple[str, str]]``), else
    the annotation itself."""
    if annotation is None or annotation.name.rpartition(".")[2] not in _AWAITABLES:
        return annotation
    return annotation.args[-1] if annotation.args else annotation


def _returned_contradiction(
    ctx: CheckContext,
    documented: TypeExpr | None,
    loose_claim: bool = False,
    members: bool = False,
) -> tuple[str, tuple[str, str, str] | None, tuple[Evidence, ...]] | None:
    """(what the code returns instead, fix, evidence) when it contradicts ``documented``.

    A ``loose_claim`` is prose ("Return True if ..."): it may describe one member of a
    returned tuple, and "True" may stand for any truthy int. ``members``: it is one of
    several Returns entries, each about one member of what the caller unpacks.
    """
    signature = ctx.unit.signature
    if documented is None or signature is None:
        return None
    if signature.returns is not None:
        java = ctx.docstring.style == "javadoc"
        annotation = as_python_annotation(signature.returns) if java else signature.returns
        actual = _awaited(parse_annotation(annotation)) if annotation is not None else None
        # Java's int is no stand-in for a boolean, nor an array for a tuple: no leeway.
        alternatives = actual.args if actual is not None and actual.name == "Union" else (actual,)
        loose = loose_claim and not java and _loosely_true(documented, alternatives)
        if not contradicts(documented, actual, annotated=not java) or loose:
            return None
        fix = (f"Change the type to `{signature.returns}`", signature.returns, "safe")
        shown = f"{signature.returns} {ctx.unit.name}(...)" if java else f"-> {signature.returns}"
        evidence = (ctx.evidence(ctx.unit.qualname, _declared_return_at(signature), shown),)
        said = f"it is declared `{shown}`" if java else f"it is annotated `{shown}`"
        return said, fix, evidence
    values = list(ctx.unit.return_values)
    if ctx.unit.has_bare_return:
        values.append("None")
    if not values:
        return None
    types = [t for t in map(type_of_expression, values) if t is not None]
    if len(types) < len(values) or not all(contradicts(documented, t) for t in types):
        return None
    if _result_remade(ctx):
        return None  # callers get what the decorator's wrapper returns, not the body's value
    displays = [t for t, v in zip(types, values) if not v.startswith("tuple(")]
    if loose_claim and _loosely_true(documented, displays):
        return None
    if members and {t.name for t in types} <= _UNPACKED:
        return None  # what the caller unpacks: ``return tuple(...)``, ``return (... for ...)``
    shown = ", ".join(f"`{v}` ({describe(t)})" for v, t in zip(values[:3], types))
    more = " and more" if len(values) > 3 else ""
    evidence = (ctx.evidence(ctx.unit.qualname, ctx.unit.name_span.start, f"returns {shown}"),)
    return f"it returns {shown}{more}", None, evidence


def _result_remade(ctx: CheckContext) -> bool:
    """Whether a decorator of the module wraps the function in one that returns something
    else than the function's result: pvlib's ``@_unwrap_single_value`` gives the one item
    of a tuple of one (``return x[0]``), so the body's ``tuple(...)`` is not what a caller
    gets. A wrapper that returns ``func(...)`` itself leaves the result alone."""
    named = {d for d in ctx.unit.decorators if d.isidentifier()}
    if not named:
        return False
    for decorator in ctx.module.units:
        if decorator.qualname not in named or decorator.kind != "function":
            continue
        if decorator.signature is None or not decorator.signature.parameters:
            continue
        wrapped = decorator.signature.parameters[0].name
        wrappers = [
            u
            for u in ctx.module.units
            if u.qualname.startswith(decorator.qualname + ".") and u.kind == "function"
        ]
        if any(not value.startswith(f"{wrapped}(") for w in wrappers for value in w.return_values):
            return True
    return False


def _declared_return_at(signature: Signature) -> int:
    """Where the declared return type starts (the parsers set it with ``returns``)."""
    assert signature.returns_span is not None
    return signature.returns_span.start


def _loosely_true(claimed: TypeExpr, actual_types: Iterable[TypeExpr | None]) -> bool:
    """Whether prose claiming ``claimed`` is fair of these returned types."""
    names = {t.name for t in actual_types if t is not None}
    if not names:
        return False
    if claimed.name == "set" and names <= {"set", "frozenset"}:
        return True  # "Returns a new set" of a frozenset
    if claimed.name == "bool" and names <= {"int", "bool", "None"}:
        return True  # "Return True if ..." of a function returning 1 / 0
    if names == {"type"}:
        return True  # "Return a float dtype" of a function returning a class: it names the class
    # "Return a list of X and a size" of ``return items, size`` describes a member.
    return claimed.name != "tuple" and names == {"tuple"}


def _iterator_like(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in ("iter", "generator", "yield"))


def _entry_bounds(entry: DocEntry) -> tuple[int, int]:
    fields = [f for f in (entry.name, entry.type, entry.description) if f is not None]
    return min(f.start for f in fields), max(f.end for f in fields)


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


@rule(
    "DF207",
    "returns-documented-for-void",
    "type",
    "A documented return value (@return) on a method declared void, or on a constructor.",
)
def returns_documented_for_void(ctx: CheckContext) -> Iterator[Finding]:
    signature = ctx.unit.signature
    if signature is None or signature.returns != "void":
        return
    value = ctx.docstring.text.value
    for entry in ctx.docstring.entries:
        if entry.kind != "returns" or entry.description is None:
            continue
        tag = value.rfind(entry.section, 0, entry.description.start)  # "@return"
        start = tag if tag >= 0 else entry.description.start
        owner = ctx.unit.qualname.rpartition(".")[0].rpartition(".")[2]
        what = "a constructor" if ctx.unit.name == owner else "declared `void`"
        message = f"documents a return value, but `{ctx.unit.name}` is {what}: it returns nothing"
        evidence = (ctx.evidence(ctx.unit.qualname, _declared_return_at(signature), "void"),)
        yield ctx.finding(
            "DF207", message, start, entry.description.end, entry=entry, evidence=evidence
        )
