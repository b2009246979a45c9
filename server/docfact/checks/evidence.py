"""Evidence for the findings that say a name does not exist.

"This name is defined nowhere" is an argument from absence, and absence is weak: the name
may be a library's that is not installed where docfact runs, a target of the project's
Sphinx docs, a key of a REST API, a word. So a name-existence finding (DF102, DF103, DF107,
DF108, DF109) stands only with positive evidence that the text meant something of this
project that is now different:

- a *near miss*: the name is one small edit from the real name the finding proposes (a
  typo, a transposition, another case, a missing or extra ``_``, the same words in
  another order), and not an English inflection of it (``labels``, ``restarting``);
- its *history*: the name was a definition of the project, or a parameter of the
  documented function, in an earlier commit and is gone now (``history.py`` reads git);
- a *move*: a dotted reference from the project's own top package to a definition the
  project has, once, at another path (``pymongo.asynchronous.operations.UpdateMany`` for
  ``pymongo.operations.UpdateMany``);
- a *former name*: a doctest calls it where the documented function's own name belongs
  (the examples never call the function itself, the two names share a word, and the
  module has no such name: the example would fail with a NameError).

A finding with neither is *unknown*: it is kept as a preview finding, shown only when the
user asks for preview behaviour (``--preview``, ``preview = true``), as ruff does.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from ..graph.references import is_exception_name, other_exception_name
from ..model import Evidence, Finding, Fix
from .referents import one_typo_apart

# The rules whose findings say that a name does not exist.
NAME_EXISTENCE_RULES = frozenset({"DF102", "DF103", "DF107", "DF108", "DF109"})
# Evidence.kind of the kinds of evidence.
NEAR_MISS = "near miss"
HISTORY = "history"
FORMER_NAME = "former name"
MOVED = "moved"
# Kinds a check attaches when it makes the finding (history is found later, in git).
_FOUND_BY_CHECKS = frozenset({NEAR_MISS, FORMER_NAME})

# Endings English adds to a word: a name that differs from a real one only by these is
# that word inflected (``label``/``labels``, ``restart``/``restarted``), not a typo.
_INFLECTIONS = ("s", "es", "d", "ed", "r", "er", "ing", "ly")
# One edit in a name shorter than this is as likely another name as a typo (``x``, ``id``).
_SHORTEST_TYPO = 4
_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))
# A misspelling of a name of any file of the project (not of the unit's own scope).
_SHORTEST_PROJECT_TYPO = 6
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# A word added at the end of a name: ``_config``, ``Path``, ``Protocol``.
_ADDED_WORD = re.compile(r"_[a-z0-9]+|_?[A-Z][a-z0-9]+|_[A-Z0-9]+")
# Two letters apart counts only for names this long, where few real names are so alike.
_SHORTEST_TWO_TYPOS = 9


def near_miss(written: str, meant: str, scoped: bool = True) -> str | None:
    """How ``written`` misspells ``meant`` (a few words for the message), or None when
    the two are not one small edit apart. Dotted names must differ in one part only.
    ``scoped``: ``meant`` is one of the few names in scope where the text stands (a
    parameter, a member of the class named, a name of the module), so that a looser
    likeness still points at it: a word more or less at the end of a name of words, two
    letters in a long name. Against the names of a whole project or the builtins, only
    one small edit counts."""
    written_parts, meant_parts = written.split("."), meant.split(".")
    if len(written_parts) != len(meant_parts):
        return None
    differing = [(w, m) for w, m in zip(written_parts, meant_parts) if w != m]
    if len(differing) != 1:
        return None
    found = _one_edit(*differing[0])
    if found is None and scoped:
        found = alike_in_scope(*differing[0])
    return found


def alike_in_scope(written: str, meant: str) -> str | None:
    """The looser likeness that points at a name in scope (see ``near_miss``), or None.
    The two are names of one style: a plain word (`preferences`) is no misspelling of a
    class (``Reference``)."""
    if _style(written) != _style(meant):
        return None
    if is_exception_name(written) != is_exception_name(meant):
        return None  # ``PubSub`` is no ``PubSubError``: another kind of thing
    if _one_word_more(written, meant) or _one_word_more(meant, written):
        return "the same name but for its last word"
    if other_exception_name(written) == meant:
        return "the same exception, named with `Error` and with `Exception`"
    if (
        _edits(written.lower(), meant.lower()) == 2
        and _long_enough_for_two(written, meant)
        and not _inflected(written, meant)
        and not _numbered(written, meant)
    ):
        return "two letters apart"
    return None


def _long_enough_for_two(written: str, meant: str) -> bool:
    """Whether two letters apart is still a typo: the names are long, and no short word of
    them takes both letters (``n_slab_cols`` and ``n_slab_rows`` are other words)."""
    if min(len(written), len(meant)) < _SHORTEST_TWO_TYPOS:
        return False
    words_written, words_meant = _ordered_words(written), _ordered_words(meant)
    if len(words_written) != len(words_meant):
        return False
    return all(
        _edits(a, b) < 2 or min(len(a), len(b)) >= _SHORTEST_TWO_TYPOS
        for a, b in zip(words_written, words_meant)
    )


def _one_word_more(short: str, long: str) -> bool:
    """Whether ``long`` is ``short``, a name of two words or more, with one word added
    at its end (``pidFile``/``pidFilePath``, ``image_store``/``image_store_config``)."""
    words = [word for word in _WORDS.findall(short) if not word.isdigit()]
    if len(words) < 2 or not long.startswith(short):  # ``MD5`` is one word, ``MD5_HEX`` two
        return False
    rest = long[len(short) :]
    return bool(_ADDED_WORD.fullmatch(rest))


def _edits(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count one)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            cost = 0 if char_a == char_b else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                best = min(best, previous2[j - 2] + 1)
            current.append(best)
        previous2, previous = previous, current
    return previous[-1]


def _one_edit(written: str, meant: str) -> str | None:
    if written.lower() == meant.lower():
        # ``count`` and ``COUNT``, ``s3`` and ``S3``, ``MetaData`` and ``metadata``: by
        # convention another kind of thing (a function, module or variable; a constant; a
        # class), not a typo. A library's class in a cross-reference is often one case away
        # from a parameter that holds an instance of it.
        if _lower_and_upper(written, meant) or _class_and_plain(written, meant):
            return None
        return "the same name in another case"
    if written.replace("_", "") == meant.replace("_", ""):
        if _protocol_named(written, meant) or _protocol_named(meant, written):
            return None  # "implements the `geo_interface`": ``__geo_interface__``'s protocol
        return "the same name but for `_`"
    if (
        _words(written) == _words(meant)
        and len(_words(written)) > 1
        and _ordered_words(written) != _ordered_words(meant)  # not ``IMAGE_STORE_``
    ):
        return "the same words in another order"
    if (
        min(len(written), len(meant)) >= _SHORTEST_TYPO
        and one_typo_apart(written, meant)
        and not _inflected(written, meant)
        and not _numbered(written, meant)
        and not _another_short_word(written, meant)
    ):
        return "one letter apart"
    if _abbreviated(written, meant):
        return "the same words, one of them shortened"
    return None


# A short name whose first letter alone differs is another word (`bash` and `hash`,
# `load` and `road`): typing seldom misses the first letter of a short name.
_SHORT_WORD = 5


def _another_short_word(written: str, meant: str) -> bool:
    return (
        len(written) == len(meant) <= _SHORT_WORD
        and written[0] != meant[0]
        and written[1:] == meant[1:]
    )


def _protocol_named(plain: str, dunder: str) -> bool:
    return dunder == f"__{plain}__"


def _lower_and_upper(a: str, b: str) -> bool:
    return (a.islower() and b.isupper()) or (a.isupper() and b.islower())


def _class_and_plain(a: str, b: str) -> bool:
    """Whether one is written as a class (a capital first letter) and the other in
    lowercase only (a variable, a function, a module): ``Table`` and ``table``."""
    return (a[:1].isupper() and b.islower()) or (b[:1].isupper() and a.islower())


def _abbreviated(a: str, b: str) -> bool:
    """Whether two names of several words differ in one word only, one the other's
    abbreviation: its first letter, then letters of it in order (``type_or_iface``,
    ``type_or_interface``)."""
    if _style(a) != _style(b):
        return False  # ``DataDict`` and ``_dt_dict`` are other kinds of names
    words_a, words_b = _ordered_words(a), _ordered_words(b)
    if len(words_a) != len(words_b) or len(words_a) < 2:
        return False
    differing = [(x, y) for x, y in zip(words_a, words_b) if x != y]
    if len(differing) != 1:
        return False
    short, long = sorted(differing[0], key=len)
    return len(short) >= 2 and short[0] == long[0] and _subsequence(short, long)


def _style(name: str) -> tuple[bool, bool]:
    """How a name is written: with a capital first letter (a class), with ``_`` between
    words (a function or a variable)."""
    bare = name.strip("_")
    return bare[:1].isupper(), "_" in bare


def _ordered_words(name: str) -> list[str]:
    """The words of a snake_case or CamelCase name, lowercase, in order."""
    return [word.lower() for word in _WORDS.findall(name)]


def _subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(letter in letters for letter in short)


def _words(name: str) -> list[str]:
    return sorted(word.lower() for word in _WORDS.findall(name))


def _inflected(a: str, b: str) -> bool:
    """Whether the two names are one plain lowercase word with different English endings
    (``label``/``labels``, ``parse``/``parsing``, ``processes``/``processed``). A name made
    of words (``max_values``, ``RaisesGroups``) names code: one letter more is a typo or a
    stale name."""
    if not (a.isalpha() and a.islower() and b.isalpha() and b.islower()):
        return False
    return bool(_stems(a) & _stems(b))


def _stems(word: str) -> set[str]:
    """The word itself and what it is without an English ending (or its final ``e``)."""
    found = {word, word[:-1]} if word.endswith("e") else {word}
    found |= {word[: -len(ending)] for ending in _INFLECTIONS if word.endswith(ending)}
    return found


def _numbered(a: str, b: str) -> bool:
    """Whether the two differ only in a digit (``toolkit``/``toolkit2``, ``v1``/``v2``):
    numbered names are siblings, not typos."""
    return any(c.isdigit() for c in set(a) ^ set(b))


def near_miss_evidence(
    finding: Finding, where_defined: Callable[[str, str], tuple[str, int] | None]
) -> Evidence | None:
    """Near-miss evidence for ``finding`` when its fix proposes a name one small edit
    from the one it flags, pointing at that name's definition (``where_defined(name,
    symbol)``: path and line, or None when the project has none, as for a parameter)."""
    if finding.fix is None or not finding.subject:
        return None
    meant = finding.fix.replacement
    if _twins_side_by_side(finding.subject, meant, finding.sentence):
        return None  # "every `key` has a mask `_key`": both on purpose, side by side
    defined, own = (
        where_defined(meant, finding.symbol),
        where_defined(finding.symbol, finding.symbol),
    )
    # In scope: a member of the object the dotted name starts from, a name of the unit
    # (a parameter, a local, what its examples bind: no definition of its own), or of
    # the docstring's own file; not a name from anywhere in the project.
    scoped = "." in finding.subject or defined is None or (own is not None and defined[0] == own[0])
    how = near_miss(finding.subject, meant, scoped)
    if how is None:
        return None
    # A parameter or a local has no definition of its own: the unit's is where it is.
    path, line = defined or own or ("", 0)
    return Evidence(meant, path, line, f"`{finding.subject}` and `{meant}`: {how}", NEAR_MISS)


def _twins_side_by_side(written: str, meant: str, sentence: str) -> bool:
    """Whether ``written`` is ``meant`` with a leading or trailing ``_`` more or less and
    ``sentence`` names ``meant`` too: a name and its private twin set side by side on
    purpose. A typo beside the name it misspells (``next_records_identifer``) is no twin."""
    if written == meant or written.strip("_") != meant.strip("_"):
        return False
    return re.search(rf"(?<![\w.]){re.escape(meant)}(?![\w])", sentence) is not None


def project_near_miss(finding: Finding, candidates: Iterable[str]) -> str | None:
    """The one name of the project (``candidates``, from anywhere in it) that the name a
    finding flags misspells. Names from any file are many: only a name long enough that
    one edit seldom turns another name into it counts (``fseek`` is no ``seek``)."""
    if len(finding.subject) < _SHORTEST_PROJECT_TYPO or not finding.subject.isidentifier():
        return None
    near = {c for c in candidates if near_miss(finding.subject, c, scoped=False) is not None}
    return near.pop() if len(near) == 1 else None


def builtin_near_miss(finding: Finding) -> str | None:
    """The one builtin name (in scope everywhere) that the name a finding flags misspells
    (twisted's C-markup "tupple" for the builtin tuple)."""
    near = _builtins_near(finding)
    return near[0] if len(near) == 1 else None


def builtins_misspelt(finding: Finding) -> Finding | None:
    """The finding with near-miss evidence when its name misspells several builtins at
    once (twisted's C{typle}: `tuple` or `type`): a typo for sure, of which the text does
    not tell, so with no fix; else None."""
    near = _builtins_near(finding)
    if len(near) < 2:
        return None
    said = " or ".join(f"`{name}`" for name in near)
    proof = Evidence(near[0], "", 0, f"`{finding.subject}` and the builtins {said}", NEAR_MISS)
    return replace(
        finding,
        message=f"{finding.message}; did you mean {said}?",
        evidence=(*finding.evidence, proof),
    )


def _builtins_near(finding: Finding) -> list[str]:
    if len(finding.subject) < _SHORTEST_TYPO or not finding.subject.isidentifier():
        return []
    return sorted(b for b in _BUILTINS if near_miss(finding.subject, b, scoped=False) is not None)


def has_evidence(finding: Finding) -> bool:
    """Whether the check that made ``finding`` already showed what was meant."""
    return any(e.kind in _FOUND_BY_CHECKS for e in finding.evidence)


def moved_evidence(
    finding: Finding,
    is_project_module: Callable[[str], bool],
    definitions_named: Callable[[str], list[str]],
    where_defined: Callable[[str, str], tuple[str, int] | None],
) -> Finding | None:
    """The finding with the path it meant, when it names, from the project's own top
    package, a class or function the project defines once at another path; else None."""
    parts = finding.subject.split(".")
    if len(parts) < 3 or not is_project_module(parts[0]):
        return None
    found = [q for q in definitions_named(parts[-1]) if q != finding.subject]
    if len(found) != 1:
        return None
    [meant] = found
    path, line = where_defined(meant, finding.symbol) or ("", 0)
    said = f"`{parts[-1]}` is defined as `{meant}`"
    fix = Fix(f"Replace with `{meant}`", meant, finding.span, "unsafe")
    proof = Evidence(meant, path, line, said, MOVED)
    return replace(
        finding, message=f"{finding.message}: {said}", evidence=(*finding.evidence, proof), fix=fix
    )


def unverified(finding: Finding) -> Finding:
    """A name-existence finding with no evidence: unknown, so shown only in preview."""
    return replace(finding, preview=True)
