"""What a name written in a docstring refers to.

Every rule that reads names in a docstring asks the same question: this dotted name, as
the docstring writes it, what does it name? ``Referents(ctx).resolve(name)`` answers with
a ``Referent``, looking, in this order, at

1. the unit: its parameters (a class's: its constructor's) and every name of its code;
2. the docstring itself: names its examples bind (doctests, literal blocks, ``> `` lines,
   an ``Example:``/``Usage:`` section that is code), names it gives to returned values or
   to the members of a tuple it describes, names inside its URLs;
3. the unit's class, for ``self.x`` and ``cls.x`` (a class with ``__getattr__`` makes its
   attributes at run time: any attribute is unknown, not wrong);
4. the file: every name of its code, its imports, the builtins, keywords and standard
   library modules;
5. what one file cannot see: a name found nowhere above is "unresolved" and carries the
   condition ``("defined", name)``, which ``ProjectGraph.cancels`` settles once every file
   is known: another file of the project, the standard library or a package the project
   imports may define it (``graph/external.py`` reads those statically).

``nearest(name)`` is the other half: the name a misspelt one most likely meant, among
names of the right kind only (the unit's parameters for a parameter-like name, else the
names the file binds: definitions, assignments, imports, attributes), and only when one
candidate is clearly the closest.

``version_notes(docstring)`` are the parts of a docstring that record history
(``.. versionchanged::``, "Deprecated since ..."): names there may be gone on purpose.

Names found in the module record what was asked (``checks.lookups``), so a unit's
findings are reused while the code around it answers alike.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain
from typing import Protocol

from ..model import Docstring, Module, Signature, Unit

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_INLINE_CODE = re.compile(r"``?([^`]+)``?")
_PLAIN_NAME = re.compile(r"[\w.]+(?:\(\))?")
_CALL_HEAD = re.compile(r"([^\W\d]\w*(?:\.[^\W\d]\w*)*)\(")
# reST line blocks ("|   f(x) = ...") set out formulas and pseudo-code.
_LINE_BLOCK = re.compile(r"^[ \t]*\|[ \t].*$", re.MULTILINE)
# An example quoted like a shell or a Markdown quote: "> helper(x)".
_QUOTED_EXAMPLE = re.compile(r"^[ \t]*>[ \t].*$", re.MULTILINE)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s`<>]+")
# A doctest's line anywhere, also nested in an entry's description (gymnasium's
# ``keys_to_action:`` entry shows ``>>> key_to_action = {...}``), which the sections'
# parser does not take for a code block.
_DOCTEST_LINE = re.compile(r"^[ \t]*(?:>>>|\.\.\.)[ \t](.*)$", re.MULTILINE)
# How a Returns entry names its value: "(is_planar, certificate) : tuple", "``lesk_sense`` The ...".
_RESULT_NAMES = re.compile(r"[(\w, )]+(?=\s:\s)|``?\w+``?")
# A parenthesised tuple of code spans names its members: "(`start`, `count`, `buffer`)".
_TUPLE_OF_CODE = re.compile(r"\(\s*``?\w+``?(?:\s*,\s*``?\w+``?)+\s*\)")
# A Google-style section whose body may be code rather than prose.
_EXAMPLE_HEADING = re.compile(
    r"^([ \t]*)(?:Examples?|Usage)[ \t]*:[ \t]*\n", re.MULTILINE | re.IGNORECASE
)
# Sphinx's history directives, and the sentences Sphinx renders them as.
_VERSION_DIRECTIVE = re.compile(
    r"^([ \t]*)\.\.[ \t]+(?:versionadded|versionchanged|versionremoved|deprecated)[ \t]*::",
    re.MULTILINE,
)
_VERSION_SENTENCE = re.compile(
    r"^([ \t]*)(?:(?:New|Added|Changed|Removed|Deprecated) in version\b|Deprecated since\b"
    r"|Deprecated[ \t]*:)",
    re.MULTILINE | re.IGNORECASE,
)
_SELF = ("self", "cls", "this")


@dataclass(frozen=True)
class Referent:
    """What a name refers to. ``kind``:

    "parameter"  a parameter of the unit (of its constructor, for a class);
    "code"       a name of the unit's code, its class, its file, or its imports;
    "universal"  a builtin, keyword or standard-library module (Java: java.lang);
    "docstring"  a name the docstring binds itself (examples, results, tuple members);
    "dynamic"    an attribute of a class that makes attributes at run time;
    "unresolved" none of the above: ``condition`` says what would settle it project-wide.

    ``name`` is the part that was looked up: the head of a dotted name, or the attribute
    after ``self.``."""

    kind: str
    name: str
    condition: tuple[str, str] | None = None

    @property
    def resolved(self) -> bool:
        return self.kind != "unresolved"


class Names(Protocol):
    """Names asked one at a time (``lookups`` records what is asked)."""

    def __contains__(self, name: str) -> bool: ...


class RecordedNames(Names, Protocol):
    def whole(self) -> frozenset[str]: ...


class ModuleNames(Protocol):
    @property
    def defined_names(self) -> Names: ...


class UnitContext(Protocol):
    """What resolution reads of a unit's check context (``context.CheckContext``)."""

    @property
    def unit(self) -> Unit: ...
    @property
    def docstring(self) -> Docstring: ...
    @property
    def signature(self) -> Signature | None: ...
    @property
    def class_names(self) -> Names: ...
    @property
    def module(self) -> ModuleNames: ...
    @property
    def bound_names(self) -> RecordedNames: ...
    @property
    def known_names(self) -> Names: ...
    @property
    def universal_names(self) -> frozenset[str]: ...
    @property
    def example_names(self) -> frozenset[str]: ...
    @property
    def result_names(self) -> frozenset[str]: ...


class Referents:
    """Resolution of the names one unit's docstring writes (see the module docstring)."""

    def __init__(self, ctx: UnitContext) -> None:
        self._ctx = ctx

    def resolve(self, dotted: str) -> Referent:
        ctx = self._ctx
        parts = dotted.split(".")
        head = parts[0]
        if head in _SELF and len(parts) > 1:
            attribute = parts[1]
            if attribute in ctx.class_names or attribute in ctx.module.defined_names:
                return Referent("code", attribute)
            if "__getattr__" in ctx.class_names:
                return Referent("dynamic", attribute)
            return Referent("unresolved", attribute, self._condition(attribute))
        if head in self.parameters:
            return Referent("parameter", head)
        if head in self.docstring_names and not self._stale_example_name(head):
            return Referent("docstring", head)
        if head in ctx.universal_names:
            return Referent("universal", head)
        if head in ctx.known_names:
            return Referent("code", head)
        return Referent("unresolved", head, self._condition(head))

    def _stale_example_name(self, name: str) -> bool:
        """Whether the docstring's examples only use ``name``, a typo away from a name of
        the code: renamed under both its examples and its prose (``RaisesGroups`` for the
        class ``RaisesGroup``), so the examples do not make it the docstring's own."""
        ctx = self._ctx
        if name in ctx.universal_names or name in ctx.known_names:
            return False
        closest = self.nearest(name)
        if closest is None or not one_typo_apart(name, closest):
            return False
        binding = rf"(?:\b(?:def|class|as|import|for)\s+{name}\b|\b{name}\s*(?::[^=\n]*)?=(?!=))"
        return re.search(binding, ctx.docstring.text.value) is None

    def _condition(self, name: str) -> tuple[str, str]:
        return ("visible" if self._ctx.docstring.style == "javadoc" else "defined", name)

    @cached_property
    def parameters(self) -> frozenset[str]:
        signature = self._ctx.signature
        return frozenset(p.name for p in signature.parameters) if signature else frozenset()

    @cached_property
    def docstring_names(self) -> frozenset[str]:
        """Names the docstring binds itself."""
        return self._ctx.example_names | self._ctx.result_names

    def nearest(self, name: str) -> str | None:
        """The name ``name`` most likely misspells, among the unit's parameters first, then
        the names of the unit's own code and those the file binds (not every word of the
        file: its comments and other functions' local variables are no API); None unless
        one candidate is clearly the closest. A public name is taken for a private one
        only of the unit's own code (``url_encode`` is no typo of a module's ``_urlencode``)."""
        found = closest_name(name, self.parameters)
        if found is not None:
            return found
        ctx = self._ctx
        # A function's own code; a module's or class's text holds every function's locals.
        own = ctx.unit.local_names if ctx.unit.kind in ("function", "method") else frozenset()
        bound = likely_misspelt(name, ctx.bound_names.whole())
        if not name.startswith("_"):
            bound = frozenset(c for c in bound if not c.startswith("_"))
        own = likely_misspelt(name, own)
        return closest_name(name, (own | bound) - ctx.universal_names - self.parameters)


def closest_name(name: str, candidates: Collection[str]) -> str | None:
    """The candidate ``name`` most likely misspells: close enough (difflib ratio 0.8) and
    strictly closer than any other candidate (of the likeliest ones, when there are many);
    but first the one candidate a single typo away, or made of the same words in another
    order, however alike difflib finds the two
    (``itme`` and ``item``; names of four letters or more: shorter ones are all one typo apart)."""
    if not candidates:
        return None
    typos = (
        [c for c in candidates if one_typo_apart(name, c) and c.lower() != name.lower()]
        if len(name) >= 4
        else []
    )
    if len(typos) == 1:
        return typos[0]
    words = sorted(name.split("_"))
    reordered = [
        c for c in candidates if c != name and len(words) > 1 and sorted(c.split("_")) == words
    ]
    if len(reordered) == 1:
        return reordered[0]  # ``interface_or_class`` for ``class_or_interface``
    if len(candidates) > 4 * _SCORED_AT_MOST:
        candidates = likely_misspelt(name, frozenset(candidates))
    matcher = difflib.SequenceMatcher(None, "", name)  # ``name`` is analysed once
    bounded = []
    for candidate in candidates:
        if candidate == name:
            continue
        matcher.set_seq1(candidate)
        # Upper bounds first, as difflib.get_close_matches does: most candidates stop there.
        if matcher.real_quick_ratio() >= 0.8 and (bound := matcher.quick_ratio()) >= 0.8:
            bounded.append((bound, candidate))
    # The ratio (quadratic in the names' lengths) only while a candidate may still reach
    # the best one: of many alike names (``helper1`` ... ``helper4000``) a few are scored.
    bounded.sort(reverse=True)
    best, closest, tied = 0.0, None, False
    for bound, candidate in bounded:
        if bound < best:
            break
        matcher.set_seq1(candidate)
        ratio = matcher.ratio()
        if ratio > best:
            best, closest, tied = ratio, candidate, False
        elif ratio == best:
            tied = True
    return closest if best >= 0.8 and not tied else None


# "Did you mean" compares a name with every candidate (difflib, quadratic in the name's
# length): with thousands of candidates and thousands of stale names that was minutes. Of
# many candidates only the few sharing the most of the name's rarest character pairs are
# compared, so each question costs about the same however many names the file binds.
_SCORED_AT_MOST = 64
_POSTINGS_READ = 2000


def likely_misspelt(name: str, candidates: frozenset[str]) -> frozenset[str]:
    """The ``_SCORED_AT_MOST`` candidates sharing the most character pairs with ``name``
    (all of them when there are no more), counting pairs rarest first."""
    if len(candidates) <= _SCORED_AT_MOST:
        return candidates
    index = _pair_index(candidates)
    pairs = sorted(
        {name[i : i + 2] for i in range(len(name) - 1)}, key=lambda p: len(index.get(p, ()))
    )
    read: list[tuple[str, ...]] = []
    postings = 0
    for pair in pairs:
        holders = index.get(pair, ())
        if postings and postings + len(holders) > _POSTINGS_READ:
            break
        postings += len(holders)
        read.append(holders)
    # One count in C, not one per pair. A name only the last list read holds has one vote
    # and comes after every name counted before it: once those fill the ranking, the last
    # list (often the longest by far) only adds to the votes of names already counted.
    votes = Counter(chain.from_iterable(read[:-1]))
    if len(votes) >= _SCORED_AT_MOST:
        votes.update(votes.keys() & set(read[-1]))
    elif read:
        votes.update(read[-1])
    # votes.most_common(n), which is this sort, but in C: a heap in Python cost more than
    # the rest of the question; sorting the names by their votes makes no (name, votes) pairs
    return frozenset(sorted(votes, key=votes.__getitem__, reverse=True)[:_SCORED_AT_MOST])


@lru_cache(maxsize=8)
def _pair_index(candidates: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Each pair of neighbouring characters -> the candidates containing it."""
    index: dict[str, list[str]] = {}
    for candidate in candidates:
        for pair in {candidate[i : i + 2] for i in range(len(candidate) - 1)}:
            index.setdefault(pair, []).append(candidate)
    return {pair: tuple(holders) for pair, holders in index.items()}


def one_typo_apart(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one letter inserted, deleted, replaced, or two
    neighbours swapped (Damerau's single error)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]


# --- names the docstring binds ---------------------------------------------------------


def example_names(docstring: Docstring) -> frozenset[str]:
    """Names bound or used in the docstring's own code: doctests, literal blocks, line
    blocks, ``> `` examples, an Example/Usage section that parses as Python, inline code
    that is more than a name (``@rule(value1=b1)``), Javadoc's {@code ...}, and URLs."""
    value = docstring.text.value
    code = [value[block.start : block.end] for block in docstring.code_blocks]
    code += _LINE_BLOCK.findall(value) + _QUOTED_EXAMPLE.findall(value) + _URL.findall(value)
    code += _DOCTEST_LINE.findall(value)
    code += _example_sections(value)
    inline = [
        m.group(1) for m in _INLINE_CODE.finditer(value) if not _PLAIN_NAME.fullmatch(m.group(1))
    ]
    inline += [
        t.body.text
        for t in docstring.inline
        if t.tag == "code" and t.body is not None and not _PLAIN_NAME.fullmatch(t.body.text)
    ]
    # What inline code calls is the code's, not the example's (``mkpipe(f, g)(x)``).
    code += [span[len(called_name(span) or "") :] for span in inline]
    return frozenset(_IDENTIFIER.findall("\n".join(code)))


def called_name(code: str) -> str | None:
    """The dotted name that inline code calls first, with arguments, when the code is one
    Python expression (``mkpipe`` of ``mkpipe(f, g)(x, y)``, ``Cart`` of
    ``Cart(items=[])``); else None."""
    match = _CALL_HEAD.match(code)
    if match is None or code == match.group() + ")":
        return None  # ``f()`` is a plain name called
    try:
        ast.parse(code, mode="eval")
    except (SyntaxError, ValueError):
        return None
    return match.group(1)


def _example_sections(value: str) -> list[str]:
    """The bodies of Example/Usage sections written as code without ``>>>``: most of
    their lines are code (comments, statements that parse on their own, block openers),
    one at least an assignment or a call."""
    found = []
    for heading in _EXAMPLE_HEADING.finditer(value):
        indent = len(heading.group(1).expandtabs())
        body = []
        for line in value[heading.end() :].split("\n"):
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            if line.strip():
                body.append(line.strip())
        kinds = [_code_line(line) for line in body]
        if body and kinds.count(None) * 2 <= len(body) and "statement" in kinds:
            found.append("\n".join(body))
    return found


def _code_line(line: str) -> str | None:
    """ "comment", "statement" (an assignment or a call), "code" (other code that parses
    alone, a block opener), or None for prose."""
    if line.startswith("#"):
        return "comment"
    if line.endswith(":"):
        line += " pass"
    try:
        tree = ast.parse(line)
    except (SyntaxError, ValueError):
        return None
    nodes = list(ast.walk(tree))
    if any(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)) for n in nodes):
        return "statement"
    simple = (
        len(tree.body) == 1
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, (ast.Name, ast.Constant, ast.Attribute))
    )
    return None if simple else "code"


def result_names(docstring: Docstring) -> frozenset[str]:
    """Names the docstring gives to what the function returns or yields, and to the
    members of a tuple it spells out as code: "(`start`, `count`, `buffer`)"."""
    names = set()
    for entry in docstring.entries:
        if entry.kind not in ("returns", "yields"):
            continue
        if entry.name is not None:
            names.add(entry.name.text)
        elif entry.description is not None:
            head = _RESULT_NAMES.match(entry.description.text)
            names.update(_IDENTIFIER.findall(head.group()) if head else ())
    for members in _TUPLE_OF_CODE.finditer(docstring.text.value):
        names.update(_IDENTIFIER.findall(members.group()))
    return frozenset(names)


def version_notes(docstring: Docstring) -> tuple[tuple[int, int], ...]:
    """(start, end) in the docstring's value of each note about history: a
    ``.. versionchanged::`` (versionadded, versionremoved, deprecated) directive with its
    indented body, or a paragraph that starts "Changed in version", "Deprecated since",
    "Deprecated:" and the like."""
    return _version_notes(docstring.text.value)


@lru_cache(maxsize=64)  # asked once per name of a docstring
def _version_notes(value: str) -> tuple[tuple[int, int], ...]:
    notes = []
    for match in _VERSION_DIRECTIVE.finditer(value):
        notes.append((match.start(), _indented_block_end(value, match.end(), len(match.group(1)))))
    for match in _VERSION_SENTENCE.finditer(value):
        blank = re.compile(r"\n[ \t]*\n").search(value, match.end())
        notes.append((match.start(), blank.start() if blank else len(value)))
    return tuple(notes)


def _indented_block_end(value: str, start: int, indent: int) -> int:
    """Where the lines after ``start`` stop being blank or indented deeper than ``indent``."""
    position = value.find("\n", start)
    while position != -1:
        line_end = value.find("\n", position + 1)
        line = value[position + 1 : line_end if line_end != -1 else len(value)]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            return position
        position = line_end
    return len(value)


# --- names the file binds --------------------------------------------------------------

_recent: dict[int, tuple[Module, frozenset[str]]] = {}


def bound_names(module: Module) -> frozenset[str]:
    """Names the file binds, which a docstring may mean to refer to: its definitions
    (functions, classes, methods, at any depth), module- and class-level assignments,
    imports and the attributes its methods assign through ``self``. Unlike every
    identifier of the code, these leave out words of comments and strings and other
    functions' local variables. Kept for the last module only (one analysis asks once
    per unit; more would keep a large pasted-then-undone text's module alive)."""
    hit = _recent.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1]
    names = {unit.name for unit in module.units if unit.name}
    names.update(name.rpartition(".")[2] for name, _ in module.variables)
    names.update(module.imported_names)
    names.update(attribute for unit in module.units for attribute, _ in unit.attribute_writes)
    found = frozenset(names)
    _recent.clear()
    _recent[id(module)] = (module, found)
    return found
