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
  documented function, in an earlier commit and is gone now (``history.py`` reads git).

A finding with neither is *unknown*: it is kept as a preview finding, shown only when the
user asks for preview behaviour (``--preview``, ``preview = true``), as ruff does.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from ..model import Evidence, Finding
from .referents import one_typo_apart

# The rules whose findings say that a name does not exist.
NAME_EXISTENCE_RULES = frozenset({"DF102", "DF103", "DF107", "DF108", "DF109"})
# Evidence.kind of the two kinds of evidence.
NEAR_MISS = "near miss"
HISTORY = "history"

# Endings English adds to a word: a name that differs from a real one only by these is
# that word inflected (``label``/``labels``, ``restart``/``restarted``), not a typo.
_INFLECTIONS = ("s", "es", "d", "ed", "r", "er", "ing", "ly")
# One edit in a name shorter than this is as likely another name as a typo (``x``, ``id``).
_SHORTEST_TYPO = 4
_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))
# A misspelling of a name of any file of the project (not of the unit's own scope).
_SHORTEST_PROJECT_TYPO = 6
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def near_miss(written: str, meant: str) -> str | None:
    """How ``written`` misspells ``meant`` (a few words for the message), or None when
    the two are not one small edit apart. Dotted names must differ in one part only."""
    written_parts, meant_parts = written.split("."), meant.split(".")
    if len(written_parts) != len(meant_parts):
        return None
    differing = [(w, m) for w, m in zip(written_parts, meant_parts) if w != m]
    if len(differing) != 1:
        return None
    return _one_edit(*differing[0])


def _one_edit(written: str, meant: str) -> str | None:
    if written.lower() == meant.lower():
        # ``count`` and ``COUNT``, ``s3`` and ``S3``: by convention another kind of thing
        # (a function or module, a constant), not a typo.
        return None if _lower_and_upper(written, meant) else "the same name in another case"
    if written.replace("_", "") == meant.replace("_", ""):
        return "the same name but for `_`"
    if _words(written) == _words(meant) and len(_words(written)) > 1:
        return "the same words in another order"
    if (
        min(len(written), len(meant)) >= _SHORTEST_TYPO
        and one_typo_apart(written, meant)
        and not _inflected(written, meant)
        and not _numbered(written, meant)
    ):
        return "one letter apart"
    if _abbreviated(written, meant):
        return "the same words, one of them shortened"
    return None


def _lower_and_upper(a: str, b: str) -> bool:
    return (a.islower() and b.isupper()) or (a.isupper() and b.islower())


def _abbreviated(a: str, b: str) -> bool:
    """Whether two names of several words differ in one word only, one the other's
    abbreviation: its first letter, then letters of it in order (``type_or_iface``,
    ``type_or_interface``)."""
    words_a, words_b = a.lower().split("_"), b.lower().split("_")
    if len(words_a) != len(words_b) or len(words_a) < 2:
        return False
    differing = [(x, y) for x, y in zip(words_a, words_b) if x != y]
    if len(differing) != 1:
        return False
    short, long = sorted(differing[0], key=len)
    return len(short) >= 2 and short[0] == long[0] and _subsequence(short, long)


def _subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(letter in letters for letter in short)


def _words(name: str) -> list[str]:
    return sorted(word.lower() for word in _WORDS.findall(name))


def _inflected(a: str, b: str) -> bool:
    """Whether one name is the other, a plain lowercase word, with an English ending (or
    its ``e`` dropped first: ``parse``/``parsing``). A name made of words (``max_values``,
    ``RaisesGroups``) names code: one letter more is a typo or a stale name."""
    if not (a.isalpha() and a.islower() and b.isalpha() and b.islower()):
        return False
    short, long = sorted((a, b), key=len)
    stems = {short, short[:-1] if short.endswith("e") else short}
    return any(long == stem + ending for stem in stems for ending in _INFLECTIONS)


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
    how = near_miss(finding.subject, meant)
    if how is None:
        return None
    # A parameter or a local has no definition of its own: the unit's is where it is.
    path, line = (
        where_defined(meant, finding.symbol)
        or where_defined(finding.symbol, finding.symbol)
        or ("", 0)
    )
    return Evidence(meant, path, line, f"`{finding.subject}` and `{meant}`: {how}", NEAR_MISS)


def project_near_miss(finding: Finding, candidates: Iterable[str]) -> str | None:
    """The one name of the project (``candidates``, from anywhere in it) that the name a
    finding flags misspells. Names from any file are many: only a name long enough that
    one edit seldom turns another name into it counts (``fseek`` is no ``seek``)."""
    if len(finding.subject) < _SHORTEST_PROJECT_TYPO or not finding.subject.isidentifier():
        return None
    near = {c for c in candidates if near_miss(finding.subject, c) is not None}
    return near.pop() if len(near) == 1 else None


def builtin_near_miss(finding: Finding) -> str | None:
    """The one builtin name (in scope everywhere) that the name a finding flags misspells
    (twisted's C-markup "tupple" for the builtin tuple)."""
    if len(finding.subject) < _SHORTEST_TYPO or not finding.subject.isidentifier():
        return None
    near = {b for b in _BUILTINS if near_miss(finding.subject, b) is not None}
    return near.pop() if len(near) == 1 else None


def unverified(finding: Finding) -> Finding:
    """A name-existence finding with no evidence: unknown, so shown only in preview."""
    return replace(finding, preview=True)
