"""Dotted references written in docstrings (cross-reference targets, names used in
doctests), resolved in the project as a documentation tool would.

From the documented symbol, a target is tried in the enclosing class and module, as an
absolute name, and through the module's imports (Sphinx itself ignores imports; docfact
accepts them, since a reader follows them). The longest part that names something of
the project decides: a member it lacks is missing; a part outside the project (a
library, a base class from elsewhere, an object made at run time) is unknown, and an
unknown never makes a finding.
"""

from __future__ import annotations

import collections.abc
import difflib
import re
import sys
import types
import typing
from collections.abc import Callable, Collection, Iterable, KeysView
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ..source.pynames import UNIVERSAL_NAMES
from .documentation import Documentation
from .external import _module_source, class_members_outside, stdlib_module_names

T = TypeVar("T")


class Project(Protocol):
    """What the references are judged against (``build.ProjectGraph``)."""

    def kind(self, name: str) -> str | None: ...

    def bases_of(self, cls: str) -> list[str]: ...

    def ancestors(self, cls: str) -> set[str]: ...

    def parameters(self, callable_: str) -> list[str] | None: ...

    def named_parameters(self, callable_: str) -> list[str]: ...

    def class_members(
        self, cls: str, outside: Callable[[str], Iterable[str] | None] | None = None
    ) -> set[str] | None: ...

    def members(self, owner: str) -> set[str]: ...

    def binds(self, name: str) -> bool: ...

    def defines(self, name: str) -> bool: ...

    def modules(self) -> KeysView[str]: ...

    def module_names(self, module: str) -> frozenset[str] | None: ...

    def resolve_from(self, symbol: str, dotted: str) -> list[str] | None: ...

    def named(self, simple: str) -> set[str]: ...

    def simple_names(self) -> set[str]: ...

    def has_suffix(self, suffix: str) -> bool: ...

    def imported_modules(self) -> frozenset[str]: ...

    def cached(self, key: str, make: Callable[[Project], T]) -> T: ...

    @property
    def documentation(self) -> Documentation: ...


@dataclass(frozen=True)
class Missing:
    """What a reference lacks: ``name`` in ``owner`` (None: nowhere in the project)."""

    owner: str | None
    name: str
    resolved: str  # the part of the reference that resolved, as written ("" for none)
    closest: str | None

    def message(self, written: str, module: bool = False) -> str:
        if module:
            where = (
                f"the modules of `{self.owner}`"
                if self.owner
                else ("the modules of the project, the standard library or the installed packages")
            )
        else:
            where = f"`{self.owner}`" if self.owner else "the project, its imports or the libraries"
        text = f"`{written}` does not resolve: `{self.name}` is not in {where}"
        if self.closest:
            text += f"; did you mean `{self.closest}`?"
        return text

    def replacement(self, written: str) -> str | None:
        """``written`` with the missing part replaced by the closest real name."""
        if self.closest is None:
            return None
        prefix = written[: len(self.resolved)]
        rest = written[len(self.resolved) :].lstrip(".")
        fixed = self.closest + rest[len(self.name) :]
        return f"{prefix}.{fixed}" if prefix else fixed


# The conditions of findings this module settles (see ``Finding.condition``):
#   ("reference", "a.b.c"): a cross-reference target or a doctest's dotted name; a prefix
#       before "|" is what a doctest's import stands for, not written at the finding;
#   ("module", "a.b"): a :mod: target; ("import", "a.b"): a doctest's import;
#   ("keyword", "a.f:name"): a doctest passes ``name=`` to the project's callable ``a.f``.
#   ("typename", "a.B"): a type written in an entry, reported only when misspelt;
#   ("forwarded", "f,g:name"): a documented keyword that a function passes on with
#       ``**kwargs`` to ``f`` and ``g``;
#   ("forwarded by name", "f,g:name"): the same, cancelled only when a callee (a
#       constructor: or one of its project bases') has a parameter so named;
#   ("constructor keyword", "name"): a parameter documented on a class without a
#       constructor of its own, judged against the one it inherits from the project.
#   ("module member", "util.name"): a dotted name in code markup whose head the file does
#       not bind, read as a project module by its last name (``util`` for
#       ``pkg.python.util``); it stands only as a near miss of such a module's name.
KINDS = frozenset(
    {
        "module member",
        "reference",
        "module",
        "import",
        "keyword",
        "forwarded",
        "forwarded by name",
        "constructor keyword",
        "typename",
    }
)


@dataclass(frozen=True)
class Judgement:
    message: str
    replacement: str | None  # for the text the finding covers


def judge(project: Project, symbol: str, condition: tuple[str, str]) -> Judgement | None:
    """Why a finding with ``condition`` stands, or None when the project cancels it."""
    kind, value = condition
    if kind == "keyword":
        return _judge_keyword(project, symbol, value)
    if kind == "forwarded":
        return _judge_forwarded(project, symbol, value)
    if kind == "forwarded by name":
        return _judge_forwarded_by_name(project, symbol, value)
    if kind == "constructor keyword":
        return _judge_constructor_keyword(project, symbol, value)
    if kind == "module member":
        return _judge_module_member(project, value)
    prefix, _, shown = value.rpartition("|")
    target = prefix + shown
    if kind == "import":
        if project.kind(target.split(".")[0]) != "module":
            return None  # a library's: judged by its own project
        missing = missing_reference(project, symbol, target)
    elif kind == "module":
        missing = missing_module(project, symbol, target)
    else:
        # A class name in an entry's type may be a word for a kind of thing ("Outer/Basic
        # Indexer"): one the project's text uses anywhere is taken as meant.
        missing = missing_reference(project, symbol, target, loosely=kind == "typename")
    if missing is None or (kind == "typename" and not _misspelt_type(missing)):
        return None
    replacement = missing.replacement(target.lstrip("."))
    if replacement is not None:
        replacement = replacement[len(prefix) :] if replacement.startswith(prefix) else None
    return Judgement(missing.message(shown.lstrip("."), module=kind == "module"), replacement)


def _judge_module_member(project: Project, written: str) -> Judgement | None:
    """A dotted name whose head is the last name of project modules (``util.switchuid``,
    ``util`` being ``pkg.python.util`` and ``pkg.trial.util``): it stands when none of
    those modules has the member and one has a name it misspells (``switchUID``); a
    module that may have any name, or no near miss, leaves it unknown (the head may be
    another package's module of the same name)."""
    head, _, rest = written.partition(".")
    member = rest.partition(".")[0]
    candidates = sorted(m for m in project.modules() if m.rpartition(".")[2] == head)
    found: set[tuple[str, str]] = set()
    for module in candidates:
        names = project.module_names(module)
        if names is None or member in names or project.kind(f"{module}.{member}") is not None:
            return None
        closest = nearest(member, Names(names | project.members(module)), in_scope=True)
        if closest is not None:
            found.add((module, closest))
    if len(found) != 1:
        return None
    module, closest = found.pop()
    missing = Missing(module, member, head, closest)
    return Judgement(missing.message(written), missing.replacement(written))


def _judge_forwarded(project: Project, symbol: str, value: str) -> Judgement | None:
    """A documented keyword of a function that passes its ``**kwargs`` on to callees:
    it stands when every callee is a project callable that does not accept it."""
    callees, _, keyword = value.rpartition(":")
    for callee in callees.split(","):
        entity = _callee(project, symbol, callee)
        parameters = project.parameters(entity) if entity is not None else None
        if parameters is None or keyword in parameters:
            return None
    shown = ", ".join(f"`{c}`" for c in callees.split(","))
    return Judgement(
        f"`{keyword}` is not a parameter of `{symbol.rpartition('.')[2]}`, and the "
        f"keyword arguments it passes on ({shown}) do not accept it either",
        None,
    )


def _judge_forwarded_by_name(project: Project, symbol: str, value: str) -> Judgement | None:
    """A documented keyword, beside an entry for the ``**kwargs`` as a whole, that the
    function passes on: it stands unless a callee, or for a constructor one of its class's
    project bases' constructors, has a parameter of that name (``**`` ones aside)."""
    callees, _, keyword = value.rpartition(":")
    for callee in callees.split(","):
        entity = _callee(project, symbol, callee)
        if entity is None or keyword in _named_parameters(project, entity):
            return None
    return Judgement(
        f"`{keyword}` is not a parameter of `{symbol.rpartition('.')[2]}`, nor a "
        f"keyword its callees name",
        None,
    )


def _judge_constructor_keyword(project: Project, cls: str, keyword: str) -> Judgement | None:
    """A parameter documented on a class that inherits its constructor: it stands when
    every base is the project's (none outside may bring its own constructor) and the
    constructor found takes no ``**kwargs`` and no parameter so named."""
    if project.kind(cls) != "class" or project.class_members(cls) is None:
        return None
    parameters = project.parameters(cls)
    if parameters is None or keyword in parameters:
        return None
    shown = ", ".join(f"`{p}`" for p in parameters if p not in ("self", "cls")) or "none"
    message = (
        f"`{keyword}` is not a parameter of the constructor `{cls.rpartition('.')[2]}` "
        f"inherits (its parameters: {shown})"
    )
    closest = nearest(keyword, [p for p in parameters if p not in ("self", "cls")])
    if closest:
        message += f"; did you mean `{closest}`?"
    return Judgement(message, closest)


def _named_parameters(project: Project, callable_: str) -> set[str]:
    owner, _, name = callable_.rpartition(".")
    owners = (
        [owner, *project.ancestors(owner)]
        if name == "__init__" and project.kind(owner) == "class"
        else []
    )
    found = set(project.named_parameters(callable_))
    for cls in owners:
        found.update(project.named_parameters(f"{cls}.__init__"))
    return found


def _callee(project: Project, symbol: str, callee: str) -> str | None:
    """The project callable ``callee`` names in ``symbol`` (``super().__init__`` too)."""
    if callee.startswith("super."):
        owner = symbol
        while owner and project.kind(owner) != "class":
            owner = owner.rpartition(".")[0]
        name = callee.partition(".")[2]
        for base in project.bases_of(owner) if owner else ():
            for cls in [base, *project.bases_of(base)]:
                if project.kind(f"{cls}.{name}") is not None:
                    return f"{cls}.{name}"
        return None
    return _entity(project, symbol, callee)


def _judge_keyword(project: Project, symbol: str, value: str) -> Judgement | None:
    callee, _, keyword = value.rpartition(":")
    entity = _entity(project, symbol, callee)
    parameters = project.parameters(entity) if entity is not None else None
    if parameters is None or keyword in parameters:
        return None  # unknown, or takes **kwargs, or accepts it
    closest = nearest(keyword, parameters)
    shown = ", ".join(f"`{p}`" for p in parameters if p not in ("self", "cls")) or "none"
    message = (
        f"`{callee.rpartition('.')[2]}` takes no keyword `{keyword}` (its parameters: {shown})"
    )
    if closest:
        message += f"; did you mean `{closest}`?"
    return Judgement(message, closest)


def missing_reference(
    project: Project, symbol: str, written: str, loosely: bool = False
) -> Missing | None:
    """What ``written`` (a dotted target in the docstring of ``symbol``; a leading ``.``
    searches every module) lacks, or None when it resolves or cannot be judged. A name
    resolves when a file binds it, or ``loosely`` when any file's code uses it."""
    relative = written.startswith(".")
    parts = written.lstrip(".").split(".")
    if project.documentation.documents(written):
        return None  # a page of the project's documentation defines it
    if relative:
        return _missing_relative(project, parts)
    for cut in range(len(parts), 0, -1):
        entity = _entity(project, symbol, ".".join(parts[:cut]))
        if entity is not None:
            if cut == len(parts):
                return None
            if _outside_by_absolute_name(project, parts, entity):
                return None
            return _missing_member(project, entity, parts[cut], ".".join(parts[:cut]))
    head = parts[0]
    if head.startswith("__") and head.endswith("__"):
        return None  # the data model's (``__cause__`` of an exception, ``__init__``)
    if len(parts) > 1 and head in sys.stdlib_module_names:
        return _missing_in_stdlib(parts)
    if (
        head in UNIVERSAL_NAMES
        or project.binds(head)
        or _importable(head)
        or (loosely and project.defines(head))
    ):
        return None  # a builtin, a name some file of the project binds, a library
    closest = nearest(head, _project_names(project))
    if closest is not None and not _reachable(project, symbol, closest):
        # A bare target never names a member of another class (Sphinx looks in the
        # docstring's class and module, then at top-level names): jinja's filter ``safe``
        # is no typo of some class's ``save``, boltons' ``file`` none of a ``_file``.
        closest = None
    if closest is None and len(parts) > 1:
        return None  # ``clickpkg.Command``: a package this interpreter lacks, or a placeholder
    return Missing(None, head, "", closest)


def _reachable(project: Project, symbol: str, simple: str) -> bool:
    """Whether a bare ``simple`` in ``symbol``'s docstring can be the name of a project
    entity: a module or a name a module binds, or a member of the class the docstring
    stands in (a class's own docstring, or a method's) or of one of its bases."""
    if _top_level(project, simple):
        return True
    classes = {c for c in (symbol, symbol.rpartition(".")[0]) if project.kind(c) == "class"}
    classes |= {base for cls in classes for base in project.ancestors(cls)}
    return any(q.rpartition(".")[0] in classes for q in project.named(simple))


def _top_level(project: Project, simple: str) -> bool:
    """Whether some module of the project, or a name a module binds, is called ``simple``."""
    if any(m.rpartition(".")[2] == simple for m in project.modules()):
        return True
    return any(project.kind(q.rpartition(".")[0]) == "module" for q in project.named(simple))


def _outside_by_absolute_name(project: Project, parts: list[str], entity: str) -> bool:
    """Whether a reference whose head the file's import makes a project module (``from
    sphinx.util import docutils``) is, read as an absolute name as Sphinx reads it, one of
    a package the project imports from outside (``docutils.transforms.Transform``): then
    it is unknown, not missing."""
    head = parts[0]
    if len(parts) < 2 or entity.split(".")[0] == head or project.kind(head) is not None:
        return False  # written from the project's top, or a top-level name of it
    return any(
        target == head or target.startswith(head + ".") for target in project.imported_modules()
    )


def _missing_in_stdlib(parts: list[str]) -> Missing | None:
    """What a dotted name of the standard library lacks (``re.RegexObject``,
    ``itertools.izip``), from the names of its longest module; None when that module's
    names cannot be told or include it."""
    for cut in range(len(parts) - 1, 0, -1):
        module = tuple(parts[:cut])
        names = stdlib_module_names(module)
        if names is None and _module_source(module) is None:
            continue  # not a module: ``os.path`` is an attribute of ``os``
        if names is None or parts[cut] in names or _module_source(tuple(parts[: cut + 1])):
            return None
        owner = ".".join(module)
        public = {n for n in names if not n.startswith("_")}
        return Missing(owner, parts[cut], owner, nearest(parts[cut], public, in_scope=True))
    return None


def missing_module(project: Project, symbol: str, written: str) -> Missing | None:
    """What a ``:mod:`` target lacks: a module of the project, the standard library or
    an installed package."""
    parts = written.lstrip(".").split(".")
    if project.kind(".".join(parts)) == "module" or _module_source(tuple(parts)) is not None:
        return None
    if len(parts) > 1 and missing_reference(project, symbol, written) is None:
        return None  # a module a package makes an attribute (``networkx.community``)
    for cut in range(len(parts) - 1, 0, -1):
        owner = ".".join(parts[:cut])
        if project.kind(owner) == "module":
            siblings = {
                m.rpartition(".")[2] for m in project.modules() if m.startswith(owner + ".")
            }
            return Missing(owner, parts[cut], owner, nearest(parts[cut], siblings))
        if _module_source(tuple(parts[:cut])) is not None:
            return None  # a library's submodule that this interpreter lacks: unknown
    head = parts[0]
    if project.kind(head) is not None or (
        project.defines(head) and not _is_module_like(project, head)
    ):
        return None
    known = set(sys.stdlib_module_names) | {m.partition(".")[0] for m in project.modules()}
    return Missing(None, head, "", nearest(head, known))


def _is_module_like(project: Project, name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in project.modules())


def _entity(project: Project, symbol: str, dotted: str) -> str | None:
    """The project entity ``dotted`` names from ``symbol``: in an enclosing scope up to
    its module (``json`` in ``falcon/media/json.py`` is the standard library's, not the
    module itself), as an absolute name, or through the imports of ``symbol``'s module."""
    scope = symbol
    while scope:
        candidate = f"{scope}.{dotted}"
        if project.kind(candidate) is not None:
            return candidate
        if project.kind(scope) == "module":
            break  # a module sees its own names and imports, not its package's siblings
        scope = scope.rpartition(".")[0]
    if project.kind(dotted) is not None:
        return dotted
    last = dotted.rpartition(".")[2]
    for target in project.resolve_from(symbol, dotted) or ():
        # An import resolves a dotted name to the nearest entity it knows (the class of
        # ``Cart.missing``): only the whole name counts.
        if project.kind(target) is not None and ("." not in dotted or target.endswith("." + last)):
            return target
    # Documentation is read from the package's top (``.. module:: flask``): a class the
    # module does not import still resolves when the project has one class so named.
    head, _, rest = dotted.partition(".")
    classes = [q for q in project.named(head) if project.kind(q) == "class"]
    if len(classes) == 1 and head[:1].isupper() and head not in sys.stdlib_module_names:
        candidate = f"{classes[0]}.{rest}" if rest else classes[0]
        if project.kind(candidate) is not None:
            return candidate
    return None


def _missing_member(project: Project, entity: str, name: str, resolved: str) -> Missing | None:
    if name.startswith("__") and name.endswith("__"):
        return None  # what every module or class has (``__file__``, ``__doc__``, ...)
    kind = project.kind(entity)
    if kind == "module":
        names = project.module_names(entity)
        if names is None or name in names or project.kind(f"{entity}.{name}") is not None:
            return None
        # What the module defines or imports (``from .edgedfs import *`` brings ``edge_dfs``).
        return Missing(
            entity,
            name,
            resolved,
            nearest(name, Names(names | project.members(entity)), in_scope=True),
        )
    if kind != "class":
        return None  # an attribute of a function or a variable: made at run time
    members = project.class_members(entity, outside=class_members_outside)
    if members is None or "__getattr__" in members:
        # A base that cannot be read, or ``__getattr__``, may give it, unless it is a near
        # miss of a member of the class itself (``pidFilePath`` of a class with
        # ``pidFile``, ``presentAttribues`` of one with ``presentAttributes``).
        own = project.members(entity) | (members or set())
        closest = nearest(name, own - {"__getattr__"}, in_scope=True) if name not in own else None
        return Missing(entity, name, resolved, closest) if closest else None
    if name in members:
        return None
    return Missing(entity, name, resolved, nearest(name, members, in_scope=True))


def _missing_relative(project: Project, parts: list[str]) -> Missing | None:
    suffix = "." + ".".join(parts)
    if project.has_suffix(suffix):
        return None
    if len(parts) > 1:  # ``.Flask.route``: a member the class may inherit
        owners = [q for q in project.named(parts[-2]) if q.endswith("." + ".".join(parts[:-1]))]
        for owner in owners:
            if _missing_member(project, owner, parts[-1], "") is None:
                return None
    if parts[0] in UNIVERSAL_NAMES or _importable(parts[0]):
        return None
    closest = nearest(parts[0], _project_names(project)) if len(parts) == 1 else None
    return Missing(None, parts[-1], "", closest)


def nearest(name: str, candidates: Names | Collection[str], in_scope: bool = False) -> str | None:
    """The real name ``name`` most likely means: one spelled very closely; else the same
    words in another order (``BACKOFF_MAX`` for ``MAX_BACKOFF``); else, ``in_scope`` (the
    candidates are the members of the module or class the text names), an exception's
    name with the other conventional word or a name a word longer or shorter at its end
    (``_GenericHTTPChannelProtocol`` for ``_GenericHTTPChannel``); else one spelled
    closely (a reference names one thing, so a looser match than in prose is safe)."""
    names = candidates if isinstance(candidates, Names) else Names(candidates)
    # The project's names are too many to compare each: only those that may be near. A
    # few (a function's parameters) are all compared.
    near = sorted(names.near(name) if isinstance(candidates, Names) else candidates)
    # The same letters in another case (``switchuid`` for ``switchUID``): Python's names
    # tell case apart, so this is a typo, however unlike difflib finds the two.
    same = [n for n in near if n.lower() == name.lower() and n != name]
    if len(same) > 1:  # ``Geoseries``: the class ``GeoSeries``, not the module ``geoseries``
        same = [n for n in same if n[:1].isupper() == name[:1].isupper()]
    if len(same) == 1:
        return same[0]
    close = difflib.get_close_matches(name, near, n=1, cutoff=0.75)
    if close and difflib.SequenceMatcher(None, name, close[0]).ratio() >= 0.85:
        return close[0]
    reordered = names.reordered(name)
    if reordered:
        return reordered[0]
    if in_scope:
        swapped = other_exception_name(name)
        if swapped is not None and swapped in names:
            return swapped
        apart = names.a_word_apart(name)
        if len(apart) == 1:
            return apart[0]
    return close[0] if close else None


_LONGEST_WORD = 16  # a word added at the end of a name is no longer than this
# The two words an exception class's name ends with by convention.
_EXCEPTION_WORDS = ("Error", "Exception")


def is_exception_name(name: str) -> bool:
    """Whether ``name`` is named as an exception is (``PubSubError``, not ``PubSub``)."""
    return name.endswith(_EXCEPTION_WORDS)


def other_exception_name(name: str) -> str | None:
    """``name`` ending in the other conventional word of exceptions (``StanzaError`` for
    ``StanzaException``), or None when it ends in neither or is only the word."""
    for word, other in (_EXCEPTION_WORDS, _EXCEPTION_WORDS[::-1]):
        stem = name.removesuffix(word)
        if stem and stem != name:
            return stem + other
    return None


# Names of types every module may write in a docstring without importing them.
_TYPE_NAMESPACES = frozenset(dir(typing)) | frozenset(dir(collections.abc)) | frozenset(dir(types))


def _misspelt_type(missing: Missing) -> bool:
    """Whether a type name of an entry (``Optional[VerticalAlginMethod]``), which may
    name a library's type, is a misspelling of a real name: only then is it reported."""
    return (
        missing.closest is not None
        and missing.name not in _TYPE_NAMESPACES
        and missing.closest.lstrip("_") != missing.name  # a private class by its public name
        # A type's plural is its instances ("collection of array-likes and/or Delayeds").
        and missing.name not in (missing.closest + "s", missing.closest + "es")
        and difflib.SequenceMatcher(None, missing.name, missing.closest).ratio() >= 0.85
    )


_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(name: str) -> tuple[str, ...]:
    """The words of a snake_case or CamelCase name, lowercase, sorted (``StackLocal`` and
    ``LocalStack`` have the same)."""
    return tuple(sorted(word.lower() for word in _WORD.findall(name)))


def _importable(name: str) -> bool:
    return name in sys.stdlib_module_names or _module_source((name,)) is not None


def names_near(project: Project, name: str) -> list[str]:
    """The project's definitions and modules a misspelling of ``name`` may have meant."""
    names = _project_names(project)
    return names.near(name) + names.reordered(name)


def _project_names(project: Project) -> Names:
    """Names a misspelt target may have meant: the project's definitions and modules."""
    return project.cached(
        "reference names",
        lambda p: Names(
            p.simple_names()
            | {m.rpartition(".")[2] for m in p.modules()}
            | p.documentation.last_names
        ),
    )


class Names:
    """Many names, indexed by length and letters for ``nearest``."""

    def __init__(self, names: Iterable[str]) -> None:
        self.by_start: dict[tuple[str, int], list[tuple[str, frozenset[str]]]] = {}
        self.by_words: dict[tuple[str, ...], list[str]] = {}
        for name in names:
            key = (name.lstrip("_")[:1].lower(), len(name))
            self.by_start.setdefault(key, []).append((name, frozenset(name.lower())))
            self.by_words.setdefault(_words(name), []).append(name)

    def __contains__(self, name: str) -> bool:
        return name in self.by_words.get(_words(name), ())

    def a_word_apart(self, name: str) -> list[str]:
        """The names that are ``name`` with a word more or less at the end, the shorter
        of two words or more (``pidFile`` and ``pidFilePath``)."""
        first, found = name.lstrip("_")[:1].lower(), []
        for length in range(1, len(name) + _LONGEST_WORD):
            for other, _ in self.by_start.get((first, length), ()):
                short, long = sorted((name, other), key=len)
                if (
                    short != long
                    and long.startswith(short)
                    and len(_words(short)) > 1
                    and is_exception_name(short) == is_exception_name(long)
                ):
                    found.append(other)
        return found

    def reordered(self, name: str) -> list[str]:
        """The names made of the same words as ``name`` in another order."""
        words = _words(name)
        return (
            sorted(n for n in self.by_words.get(words, ()) if n != name) if len(words) > 1 else []
        )

    def near(self, name: str) -> list[str]:
        """The names that start with the same letter, are about as long as ``name`` and
        share most of its letters: the only ones taken for a misspelling of it (a typo
        seldom changes the first letter)."""
        letters, slack = set(name.lower()), max(2, len(name) // 3)
        first = name.lstrip("_")[:1].lower()
        return [
            other
            for length in range(len(name) - slack, len(name) + slack + 1)
            for other, its in self.by_start.get((first, length), ())
            if len(letters - its) <= slack
        ]
