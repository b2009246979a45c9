"""Names Python 3 removed from Python 2: evidence of what a docstring meant.

A docstring that names ``types.ClassType`` or ``re.RegexObject`` was written for Python 2
and kept when the code was ported (twisted wrote both for years after). The language's
history is as positive as the project's own: the name existed, it is gone, and Python 3
says what took its place (the renames 2to3's fixers make). Only names that are no English
word and no common name of a project are listed: ``unicode``, ``long`` and ``file`` are
also words of prose.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..model import Evidence, Finding, Fix
from .evidence import HISTORY

_MEMBER_WORDS = r"(?:method|attribute|property|member|field)s?\b"
# Python 2's name -> what Python 3 has in its place.
_RENAMED = {
    "re.RegexObject": "re.Pattern",
    "re.MatchObject": "re.Match",
    "types.ClassType": "type",
    "types.TypeType": "type",
    "types.InstanceType": "object",
    "types.ObjectType": "object",
    "types.StringType": "str",
    "types.UnicodeType": "str",
    "types.StringTypes": "str",
    "types.IntType": "int",
    "types.LongType": "int",
    "types.FloatType": "float",
    "types.BooleanType": "bool",
    "types.ComplexType": "complex",
    "types.TupleType": "tuple",
    "types.ListType": "list",
    "types.DictType": "dict",
    "types.DictionaryType": "dict",
    "types.FileType": "io.IOBase",
    "types.XRangeType": "range",
    "types.SliceType": "slice",
    "types.BufferType": "memoryview",
    "types.UnboundMethodType": "types.FunctionType",
    "types.DictProxyType": "types.MappingProxyType",
    "string.letters": "string.ascii_letters",
    "string.lowercase": "string.ascii_lowercase",
    "string.uppercase": "string.ascii_uppercase",
    "string.maketrans": "str.maketrans",
    "itertools.izip": "zip",
    "itertools.imap": "map",
    "itertools.ifilter": "filter",
    "itertools.ifilterfalse": "itertools.filterfalse",
    "itertools.izip_longest": "itertools.zip_longest",
    "sys.maxint": "sys.maxsize",
    "os.getcwdu": "os.getcwd",
    "dict.iteritems": "dict.items",
    "dict.iterkeys": "dict.keys",
    "dict.itervalues": "dict.values",
    "basestring": "str",
    "unichr": "chr",
    "raw_input": "input",
    "xrange": "range",
    "StandardError": "Exception",
}


def _said_to_be_a_member(finding: Finding) -> bool:
    """Whether the sentence makes the name a member of something ("the `raw_input` method
    of `.vt100_input`"): then it is not Python 2's builtin."""
    written = re.escape(finding.subject)
    return re.search(rf"{written}\W{{0,3}}\s+{_MEMBER_WORDS}", finding.sentence) is not None


def compared_with_successor(finding: Finding) -> bool:
    """Whether the finding flags Python 2's name in a sentence that names Python 3's as
    code too ("In the spirit of :func:`range` and :func:`xrange`"): the text compares the
    two on purpose, and the one a letter away is no typo either."""
    meant = _RENAMED.get(finding.subject)
    written = rf"`~?{re.escape(meant)}(?:\(\))?`" if meant else None
    return written is not None and re.search(written, finding.sentence) is not None


def python2_evidence(finding: Finding) -> Finding | None:
    """The finding told as a Python 2 name, with Python 3's in its place as the fix, when
    it flags one; else None."""
    meant = _RENAMED.get(finding.subject)
    if meant is None or _said_to_be_a_member(finding):
        return None
    said = f"Python 2's name; Python 3 has `{meant}`"
    proof = Evidence(meant, "", 0, said, HISTORY)
    return replace(
        finding,
        message=f"{finding.message.split('; did you mean', 1)[0]}: {said}",
        evidence=(*finding.evidence, proof),
        fix=Fix(f"Replace with `{meant}`", meant, finding.span, "unsafe"),
    )
