"""Recall and precision of docfact on real code, measured by mutation.

Corpus: this Python's standard library and, from the running interpreter's
site-packages, networkx, click, nltk, attrs (attr/ + attrs/), pygls and hypothesis.
Each library is copied once (its .py/.pyi files only) into a temporary folder, which
docfact then checks as one project, so names resolve as they would for a user.

Recall. Documented functions are found with ``ast`` and their docstrings read with a
small parser of our own (independent of docfact's). Five kinds of mutation, each
applicable only where it makes sense, inject one error into one function's docstring,
always without moving any line:

  param_entry_renamed  a documented parameter entry renamed        -> name (DF101)
  prose_name_renamed   a parameter quoted as code in prose renamed -> name (DF102)
  param_type_swapped   a documented parameter type swapped         -> type (DF201)
  return_type_swapped  a documented return type swapped            -> type (DF202)
  nonexistent_call     a sentence calling an invented function     -> name (DF103)
                       (written as code: ``f()``; the same in plain text, f(), is
                       reported as nonexistent_call_plain, outside the overall recall)

Per library and kind, up to --per-kind mutations are drawn (fixed seed). Mutations of
different functions are independent, so one docfact run checks a whole round of them
(at most one mutation per function per round). A mutation is detected when a finding
of the expected criterion covers the mutated line; mutations on a line where the
unmutated code already has a finding are not counted.

Precision. The findings of the unmutated run (criteria name, type, function, context),
per 100 docstrings (docfact's units_checked), each one listed for review.

Usage: .venv/bin/python bench/mutation_recall.py [--per-kind N] [--seed S] [--library L ...]
The full report goes to bench/results/mutation_recall.txt (and .json).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import keyword
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DOCFACT = Path(sys.executable).parent / "docfact"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
SITE = Path(sysconfig.get_paths()["purelib"])

# Library -> (folder holding it, the folders that make it up; () = the folder itself).
LIBRARIES = {
    "stdlib": (STDLIB, ()),
    "networkx": (SITE, ("networkx",)),
    "click": (SITE, ("click",)),
    "nltk": (SITE, ("nltk",)),
    "attrs": (SITE, ("attr", "attrs")),
    "pygls": (SITE, ("pygls",)),
    "hypothesis": (SITE, ("hypothesis",)),
}
KINDS = {  # kind -> the criterion of the finding it should produce
    "param_entry_renamed": "name",
    "prose_name_renamed": "name",
    "param_type_swapped": "type",
    "return_type_swapped": "type",
    "nonexistent_call": "name",
    "nonexistent_call_plain": "name",
}
# Reported, but not part of the overall recall: docfact leaves an unknown call written
# as plain text (not as code) alone on purpose, as most likely something external.
INFORMATIONAL = frozenset({"nonexistent_call_plain"})
FACTUAL = frozenset({"name", "type", "function", "context"})
TARGET_RECALL = 0.9
TARGET_PER_100 = 1.0


# --- docstring lines -------------------------------------------------------------------


@dataclass(frozen=True)
class DocLine:
    """One source line of a docstring: file line ``lineno``, content ``source[start:end]``."""

    lineno: int  # 1-based
    start: int
    end: int
    text: str  # the content (for the first line: after the opening quotes)
    indent: int  # the first line gets the indentation of its statement

    @property
    def blank(self) -> bool:
        return not self.text.strip()


@dataclass
class Function:
    rel: str  # path relative to the project folder
    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    doc: list[DocLine]
    code_lines: set[int]  # indices into doc of doctest / literal-block lines


_OPENING = re.compile(r"[ \t]*[rRuU]?(\"\"\"|''')")


def docstring_lines(node, lines: list[str]) -> list[DocLine] | None:
    """The docstring of ``node`` as source lines, or None if it is not a plain
    triple-quoted string starting its own line."""
    if not node.body or not isinstance(node.body[0], ast.Expr):
        return None
    value = node.body[0].value
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return None
    first, last = value.lineno, value.end_lineno
    opening = _OPENING.match(lines[first - 1])
    if opening is None:
        return None
    quote = opening.group(1)
    closing = lines[last - 1].rfind(quote)
    if closing < 0 or (first == last and closing < opening.end()):
        return None
    doc = []
    for lineno in range(first, last + 1):
        source = lines[lineno - 1]
        start = opening.end() if lineno == first else 0
        end = closing if lineno == last else len(source)
        text = source[start:end]
        indent = _indent(source) if lineno == first else _indent(text)
        doc.append(DocLine(lineno, start, end, text, indent))
    return doc


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


_CODE_DIRECTIVE = re.compile(
    r"\.\.\s+(code-block|code|sourcecode|doctest|testcode|ipython|math|plot)::"
)


def code_line_indices(doc: list[DocLine]) -> set[int]:
    """Lines of doctests, literal blocks (after ``::``) and code directives."""
    code, block = set(), None
    for i, line in enumerate(doc):
        stripped = line.text.strip()
        if block is not None:
            if not stripped or line.indent > block:
                code.add(i)
                continue
            block = None
        if stripped.startswith((">>>", "...")):
            code.add(i)
        elif stripped.endswith("::") or _CODE_DIRECTIVE.match(stripped):
            block = line.indent
    return code


# --- docstring sections ----------------------------------------------------------------

PARAM_HEADS = {
    "args",
    "arguments",
    "parameters",
    "params",
    "keyword args",
    "keyword arguments",
    "other parameters",
    "other arguments",
}
RETURN_HEADS = {"returns", "return"}
_GOOGLE_HEAD = re.compile(r"\s*([A-Za-z][A-Za-z ]*?)\s*:\s*")
_UNDERLINE = re.compile(r"\s*-{3,}\s*")


@dataclass
class Section:
    kind: str  # "param" or "returns"
    style: str  # "google" or "numpy"
    heading: int  # index into doc
    body: list[int]


def sections(doc: list[DocLine]) -> list[Section]:
    """Google (``Args:`` + indented body) and NumPy (heading + dashes) sections."""
    found = []
    for i in range(1, len(doc)):
        text = doc[i].text
        google = _GOOGLE_HEAD.fullmatch(text)
        numpy = i + 1 < len(doc) and _UNDERLINE.fullmatch(doc[i + 1].text)
        name = (google.group(1) if google else text).strip().lower()
        kind = "param" if name in PARAM_HEADS else "returns" if name in RETURN_HEADS else None
        if kind and numpy and not google:
            found.append(Section(kind, "numpy", i, _numpy_body(doc, i)))
        elif kind and google:
            found.append(Section(kind, "google", i, _google_body(doc, i)))
    return found


def _google_body(doc: list[DocLine], heading: int) -> list[int]:
    body = []
    for j in range(heading + 1, len(doc)):
        if not doc[j].blank and doc[j].indent <= doc[heading].indent:
            break
        body.append(j)
    return body


def _numpy_body(doc: list[DocLine], heading: int) -> list[int]:
    body = []
    for j in range(heading + 2, len(doc)):
        next_is_rule = j + 1 < len(doc) and _UNDERLINE.fullmatch(doc[j + 1].text)
        if not doc[j].blank and (next_is_rule or doc[j].indent < doc[heading].indent):
            break
        body.append(j)
    return body


def entry_lines(doc: list[DocLine], section: Section) -> list[int]:
    """Body lines at the indentation of the section's entries."""
    nonblank = [j for j in section.body if not doc[j].blank]
    if not nonblank:
        return []
    indent = doc[section.heading].indent if section.style == "numpy" else doc[nonblank[0]].indent
    return [j for j in nonblank if doc[j].indent == indent]


# A type as docstrings write it: "int", "list of str", "dict[str, int] or None", ...
_TYPE_WORD = r"~?[A-Za-z_][\w.]*(?:\[[^\]]*\])?"
_TYPE_TEXT = re.compile(rf"{_TYPE_WORD}(?:(?:\s+(?:or|of)\s+|\s*\|\s*|\s*,\s*){_TYPE_WORD})*")
_TYPE_SUFFIX = re.compile(r",\s*(?:optional|default\b.*|keyword.*)$")
_VALUES = {"True", "False", "None"}  # values, not types, on a Returns line


def split_type(text: str) -> tuple[str, str] | None:
    """(the type, a ", optional"-like suffix) if ``text`` reads as a type, else None."""
    suffix = _TYPE_SUFFIX.search(text)
    main = text[: suffix.start()] if suffix else text
    if not _TYPE_TEXT.fullmatch(main) or main.lower() in ("optional", "default"):
        return None
    return main, text[len(main) :]


@dataclass(frozen=True)
class Spot:
    """Where a docstring names a parameter or a type: doc index and content columns."""

    index: int
    start: int
    end: int
    what: str  # e.g. "google entry"


_GOOGLE_PARAM = re.compile(
    r"\s*(\*{0,2})([A-Za-z_]\w*)\s*(?:\(((?:[^()]|\([^()]*\))*)\))?\s*:(?:\s|$)"
)
_NUMPY_PARAM = re.compile(r"\s*([A-Za-z_]\w*)\s*(?::\s*(.*?))?\s*")
_NUMPY_NAMES = re.compile(r"\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*(?::\s*(.*?))?\s*")
_EPYTEXT_PARAM = re.compile(r"\s*@param\s+(\*{0,2})([A-Za-z_]\w*)\s*:")
_EPYTEXT_TYPE = re.compile(r"\s*@type\s+(\*{0,2})([A-Za-z_]\w*)\s*:\s*(.*?)\s*")
_EPYTEXT_RTYPE = re.compile(r"\s*@rtype:\s*(.*?)\s*")
_SPHINX_PARAM = re.compile(r"\s*:param\s+(?:([^:]+?)\s+)?(\*{0,2})([A-Za-z_]\w*)\s*:")
_SPHINX_TYPE = re.compile(r"\s*:type\s+(\*{0,2})([A-Za-z_]\w*)\s*:\s*(.*?)\s*")
_SPHINX_RTYPE = re.compile(r"\s*:rtype:\s*(.*?)\s*")
_GOOGLE_RETURN = re.compile(r"\s*(.+?)\s*:(?:\s|$)")


def param_spots(fn: Function) -> list[tuple[str, Spot, Spot | None]]:
    """(parameter name, where its name is, where its documented type is) per entry."""
    doc, spots = fn.doc, []
    for section in sections(doc):
        if section.kind != "param":
            continue
        for j in entry_lines(doc, section):
            text = doc[j].text
            if section.style == "google":
                m = _GOOGLE_PARAM.match(text)
                if m and not m.group(1):
                    kind = "google"
                    spots.append(
                        (
                            m.group(2),
                            Spot(j, m.start(2), m.end(2), f"{kind} entry"),
                            _type_spot(j, m, 3, kind),
                        )
                    )
            elif m := _NUMPY_PARAM.fullmatch(text):
                spots.append(
                    (
                        m.group(1),
                        Spot(j, m.start(1), m.end(1), "numpy entry"),
                        _type_spot(j, m, 2, "numpy"),
                    )
                )
            elif m := _NUMPY_NAMES.fullmatch(text):  # "x, y : int": names only
                for name in re.finditer(r"[A-Za-z_]\w*", m.group(1)):
                    start = m.start(1) + name.start()
                    spots.append(
                        (
                            name.group(),
                            Spot(j, start, start + len(name.group()), "numpy multi-name entry"),
                            None,
                        )
                    )
    for j, line in enumerate(doc):
        spots += _field_spots(j, line.text)
    return spots


def _field_spots(j: int, text: str) -> list[tuple[str, Spot | None, Spot | None]]:
    """Sphinx ``:param [type] x:`` / ``:type x: T`` and Epytext ``@param x:`` / ``@type x: T``."""
    if m := _SPHINX_PARAM.match(text):
        if not m.group(2):
            return [
                (
                    m.group(3),
                    Spot(j, m.start(3), m.end(3), "sphinx :param:"),
                    _type_spot(j, m, 1, "sphinx :param type"),
                )
            ]
    elif m := _SPHINX_TYPE.fullmatch(text):
        if not m.group(1):
            return [(m.group(2), None, _type_spot(j, m, 3, "sphinx :type:"))]
    elif m := _EPYTEXT_PARAM.match(text):
        if not m.group(1):
            return [(m.group(2), Spot(j, m.start(2), m.end(2), "epytext @param"), None)]
    elif (m := _EPYTEXT_TYPE.fullmatch(text)) and not m.group(1):
        return [(m.group(2), None, _type_spot(j, m, 3, "epytext @type"))]
    return []


def _type_spot(j: int, match: re.Match, group: int, kind: str) -> Spot | None:
    if match.group(group) is None or split_type(match.group(group)) is None:
        return None
    return Spot(j, match.start(group), match.end(group), f"{kind} type")


def return_type_spot(fn: Function) -> Spot | None:
    """Where the docstring writes the (single) return type, if it writes one."""
    doc = fn.doc
    for section in sections(doc):
        if section.kind != "returns":
            continue
        entries = entry_lines(doc, section)
        if section.style == "google" and entries:
            text = doc[entries[0]].text
            m = _GOOGLE_RETURN.match(text)
            if m and split_type(m.group(1)):
                return Spot(entries[0], m.start(1), m.end(1), "google Returns type")
            m = re.fullmatch(r"\s*(.+?)\s*", text)  # "Returns:\n    int" on a line of its own
            if len(entries) == 1 and split_type(m.group(1)) and m.group(1) not in _VALUES:
                return Spot(entries[0], m.start(1), m.end(1), "google Returns bare type")
        if section.style == "numpy" and len(entries) == 1:
            text = doc[entries[0]].text
            m = re.fullmatch(r"\s*(?:\w+\s+:\s+)?(.+?)\s*", text)
            if m and split_type(m.group(1)):
                return Spot(entries[0], m.start(1), m.end(1), "numpy Returns type")
    for j, line in enumerate(doc):
        for pattern, what in (
            (_SPHINX_RTYPE, "sphinx :rtype:"),
            (_EPYTEXT_RTYPE, "epytext @rtype"),
        ):
            m = pattern.fullmatch(line.text)
            if m and split_type(m.group(1)):
                return Spot(j, m.start(1), m.end(1), what)
    return None


def summary_end(fn: Function) -> int | None:
    """Index of the last line of the summary paragraph, if it is plain prose."""
    doc = fn.doc
    first = next((i for i, line in enumerate(doc) if not line.blank), None)
    if first is None or first in fn.code_lines:
        return None
    last = first
    for i in range(first + 1, len(doc)):
        if doc[i].blank or i in fn.code_lines or _GOOGLE_HEAD.fullmatch(doc[i].text):
            break
        if i + 1 < len(doc) and _UNDERLINE.fullmatch(doc[i + 1].text):
            break
        last = i
    text = doc[last].text.rstrip()
    if text.endswith("\\") or text.lstrip().startswith((":", "@", "..")):
        return None
    return last


# --- what the code says ----------------------------------------------------------------

BUILTIN_TYPES = {
    "int",
    "str",
    "float",
    "bool",
    "bytes",
    "bytearray",
    "complex",
    "list",
    "dict",
    "tuple",
    "set",
    "frozenset",
}
TYPING_ALIASES = {
    "List": "list",
    "Dict": "dict",
    "Tuple": "tuple",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Text": "str",
    "DefaultDict": "dict",
    "OrderedDict": "dict",
    "defaultdict": "dict",
    "Counter": "dict",
}
ABSTRACT = {
    "Sequence": {"list", "tuple", "str", "bytes"},
    "MutableSequence": {"list"},
    "Mapping": {"dict"},
    "MutableMapping": {"dict"},
    "AbstractSet": {"set", "frozenset"},
    "MutableSet": {"set"},
}
NUMERIC = {"int", "float", "complex", "bool"}
SWAP = {
    "str": "int",
    "int": "str",
    "float": "str",
    "bool": "str",
    "complex": "str",
    "list": "dict",
    "tuple": "dict",
    "set": "dict",
    "frozenset": "dict",
    "dict": "list",
    "bytes": "int",
    "bytearray": "int",
}


def type_set(node: ast.expr | None) -> frozenset[str] | None:
    """The builtin classes an annotation allows, or None if it is not that simple."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return frozenset({"None"})
        if isinstance(node.value, str):  # a forward reference: "int"
            try:
                return type_set(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return None
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = type_set(node.left), type_set(node.right)
        return left | right if left is not None and right is not None else None
    if isinstance(node, ast.Subscript):
        return _subscript_types(node)
    name = _last_name(node)
    if name in BUILTIN_TYPES:
        return frozenset({name})
    if name in TYPING_ALIASES:
        return frozenset({TYPING_ALIASES[name]})
    if name in ABSTRACT:
        return frozenset(ABSTRACT[name])
    return None


def _subscript_types(node: ast.Subscript) -> frozenset[str] | None:
    base = _last_name(node.value)
    members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base == "Optional":
        inner = type_set(members[0])
        return inner | {"None"} if inner is not None else None
    if base == "Union":
        sets = [type_set(m) for m in members]
        return frozenset().union(*sets) if all(s is not None for s in sets) else None
    if base == "Annotated":
        return type_set(members[0])
    if base == "Literal":
        kinds = {literal_type(m) for m in members}
        return frozenset(kinds) if None not in kinds else None
    return type_set(node.value)


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def literal_type(node: ast.expr) -> str | None:
    """The class of a literal value (``0``, ``'x'``, ``[]``, ``-1.5``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
        if not (isinstance(node, ast.Constant) and type(node.value) in (int, float, complex)):
            return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return "None"
        kind = type(node.value).__name__
        return kind if kind in BUILTIN_TYPES else None
    displays = {ast.List: "list", ast.Tuple: "tuple", ast.Dict: "dict", ast.Set: "set"}
    return displays.get(type(node))


def swapped_type(actual: frozenset[str] | None) -> str | None:
    """A builtin type that no value of the ``actual`` classes has."""
    real = sorted(actual - {"None"}) if actual else []
    if not real:
        return None
    for candidate in (SWAP[real[0]], "str", "int", "dict", "list"):
        if not any(_compatible(candidate, a) for a in actual):
            return candidate
    return None


def _compatible(doc: str, actual: str) -> bool:
    return (
        doc == actual
        or (doc in NUMERIC and actual in NUMERIC)
        or ({doc, actual} <= {"bytes", "bytearray"})
    )


def parameters(node) -> dict[str, frozenset[str] | None]:
    """Parameter name -> the classes its annotation, else its literal default, allows."""
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = dict(
        zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults)
    )
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d})
    found = {}
    for arg in positional + args.kwonlyargs:
        if arg.annotation is not None:
            found[arg.arg] = type_set(arg.annotation)
        elif arg.arg in defaults and literal_type(defaults[arg.arg]) not in (None, "None"):
            found[arg.arg] = frozenset({literal_type(defaults[arg.arg])})
        else:
            found[arg.arg] = None
    for arg in (args.vararg, args.kwarg):
        if arg is not None:
            found[arg.arg] = None
    return found


def returned_types(node) -> frozenset[str] | None:
    """Classes of what the function returns: its annotation, else its literal returns."""
    returns, generator = [], False
    stack = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            generator = True
        if isinstance(child, ast.Return):
            returns.append(child.value)
        stack.extend(ast.iter_child_nodes(child))
    if generator:
        return None
    if node.returns is not None:
        return type_set(node.returns)
    kinds = {"None" if value is None else literal_type(value) for value in returns}
    if None in kinds or not kinds - {"None"}:
        return None
    return frozenset(kinds)


# --- mutations -------------------------------------------------------------------------


@dataclass
class Mutation:
    library: str
    kind: str
    rel: str
    qualname: str
    line: int
    old_line: str
    new_line: str
    how: str  # which docstring form was mutated
    doc_lines: tuple[int, int]  # first and last line of the docstring
    round: int = 0
    status: str = "pending"  # detected | missed | already-flagged | invalid
    nearby: list[str] = field(default_factory=list)  # docfact findings in the docstring

    @property
    def expected(self) -> str:
        return KINDS[self.kind]


def _edit(fn: Function, source: list[str], spot: Spot, new: str) -> tuple[int, str, str]:
    """(line number, old line, new line) for value[spot] replaced by ``new``."""
    line = fn.doc[spot.index]
    old = source[line.lineno - 1]
    begin, end = line.start + spot.start, line.start + spot.end
    return line.lineno, old, old[:begin] + new + old[end:]


def mutate_param_entry(fn: Function, source: list[str], project: Project, rng: random.Random):
    names = parameters(fn.node)
    if fn.node.args.kwarg is not None:
        return []  # **kwargs accepts any documented name
    options = []
    for name, spot, _ in param_spots(fn):
        if spot is None or name not in names or name in ("self", "cls"):
            continue
        if rng.random() < 0.5:  # a suffix ("_count") or another parameter name of the project
            new = next(
                n for n in (f"{name}_count", f"{name}_total", f"{name}_list") if n not in names
            )
            how = "suffix"
        else:
            new = rng.choice([n for n in project.parameter_names[:200] if n not in names])
            how = "other word"
        options.append((_edit(fn, source, spot, new), f"{spot.what}, {how}"))
    return options


def mutate_prose_name(fn: Function, source: list[str], project: Project, rng: random.Random):
    names = set(parameters(fn.node)) - {"self", "cls"}
    options = []
    for i, line in enumerate(fn.doc):
        if i in fn.code_lines or line.text.lstrip().startswith((":param", ":type", "@param")):
            continue
        for m in re.finditer(r"(?<![:\w`])(``?)([A-Za-z_]\w*)\1(?![`\w])", line.text):
            if m.group(2) in names:
                new = project.fresh_name(
                    [
                        f"{m.group(2)}_list",
                        f"num_{m.group(2)}",
                        f"old_{m.group(2)}",
                        f"{m.group(2)}_zq",
                    ]
                )
                spot = Spot(
                    i, m.start(2), m.end(2), f"{'``x``' if len(m.group(1)) == 2 else '`x`'}"
                )
                options.append((_edit(fn, source, spot, new), spot.what))
    return options


def mutate_param_type(fn: Function, source: list[str], project: Project, rng: random.Random):
    actual = parameters(fn.node)
    options = []
    for name, _, spot in param_spots(fn):
        new_type = swapped_type(actual.get(name)) if spot else None
        if new_type is None or name in ("self", "cls"):
            continue
        _, suffix = split_type(fn.doc[spot.index].text[spot.start : spot.end])
        options.append((_edit(fn, source, spot, new_type + suffix), spot.what))
    return options


def mutate_return_type(fn: Function, source: list[str], project: Project, rng: random.Random):
    spot = return_type_spot(fn)
    new_type = swapped_type(returned_types(fn.node)) if spot else None
    if new_type is None:
        return []
    _, suffix = split_type(fn.doc[spot.index].text[spot.start : spot.end])
    return [(_edit(fn, source, spot, new_type + suffix), spot.what)]


CALL_SENTENCES = ("It calls ``{}()`` first.", "This relies on ``{}()``.")
PLAIN_CALL_SENTENCES = ("Internally it uses {}() to do the work.",)
VERBS = ("frobnicate", "recalibrate", "defragment", "rehydrate", "untangle", "reticulate")
NOUNS = ("widgets", "splines", "flux", "gizmos", "sprockets", "doohickeys")


def mutate_call(
    fn: Function,
    source: list[str],
    project: Project,
    rng: random.Random,
    templates: tuple[str, ...] = CALL_SENTENCES,
):
    """Append a sentence calling an invented function to the summary paragraph."""
    last = summary_end(fn)
    if last is None:
        return []
    content = fn.doc[last].text.rstrip()
    name = project.fresh_name([f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"])
    template = rng.choice(templates)
    spot = Spot(last, len(content), len(content), f'"{template.format("f")}"')
    return [(_edit(fn, source, spot, " " + template.format(name)), spot.what)]


def mutate_plain_call(fn: Function, source: list[str], project: Project, rng: random.Random):
    return mutate_call(fn, source, project, rng, PLAIN_CALL_SENTENCES)


MUTATORS = {
    "param_entry_renamed": mutate_param_entry,
    "prose_name_renamed": mutate_prose_name,
    "param_type_swapped": mutate_param_type,
    "return_type_swapped": mutate_return_type,
    "nonexistent_call": mutate_call,
    "nonexistent_call_plain": mutate_plain_call,
}


# --- the project: a library copied to a temporary folder -------------------------------

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
UNIVERSAL = set(dir(builtins)) | set(keyword.kwlist) | set(sys.stdlib_module_names)


class Project:
    """A library's copy: its files, their documented functions and every identifier."""

    def __init__(self, name: str, root: Path):
        self.name, self.root = name, root
        self.sources: dict[str, bytes] = {}
        self.lines: dict[str, list[str]] = {}
        self.functions: list[Function] = []
        self.tokens: set[str] = set(UNIVERSAL)
        self.parse_failures = 0
        for path in checked_files(root):
            self._scan(path)
        # The project's most common parameter names: plausible replacements.
        counts = Counter(p for fn in self.functions for p in parameters(fn.node))
        self.parameter_names = [
            p
            for p, _ in counts.most_common()
            if len(p) > 2 and p not in ("self", "cls", "args", "kwargs")
        ]

    def _scan(self, path: Path) -> None:
        rel = path.relative_to(self.root).as_posix()
        data = path.read_bytes()
        try:
            text = data.decode("utf-8")
            tree = ast.parse(text)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            self.parse_failures += 1
            return
        self.tokens.update(_IDENTIFIER.findall(text))
        self.sources[rel] = data
        self.lines[rel] = split_lines(text)
        self._stripped = [line.rstrip("\r\n") for line in self.lines[rel]]
        self._collect(rel, tree, "")

    def _collect(self, rel: str, node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualname = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    self._add_function(rel, child, qualname)
                self._collect(rel, child, qualname + ".")
            elif isinstance(child, ast.stmt):
                self._collect(rel, child, prefix)

    def _add_function(self, rel: str, node, qualname: str) -> None:
        doc = docstring_lines(node, self._stripped)
        if doc:
            self.functions.append(Function(rel, qualname, node, doc, code_line_indices(doc)))

    def fresh_name(self, candidates: list[str]) -> str:
        """The first candidate that is no identifier of the project (suffixed if need be)."""
        for name in candidates:
            if name not in self.tokens:
                return name
        base, k = candidates[0], 2
        while f"{base}{k}" in self.tokens:
            k += 1
        return f"{base}{k}"

    def write(self, rel: str, lines: list[str]) -> None:
        (self.root / rel).write_text("".join(lines), encoding="utf-8", newline="")

    def restore(self, rel: str) -> None:
        (self.root / rel).write_bytes(self.sources[rel])


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where Python splits them (not at form feeds)."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)


def checked_files(root: Path) -> list[Path]:
    """The files `docfact check root` checks (its own discovery, so both see the same)."""
    from docfact.source.files import iter_python_files

    return [p for p in iter_python_files(root) if p.suffix == ".py"]


def copy_library(name: str, destination: Path) -> Path:
    """Copy the library's .py/.pyi files into destination/name; return that folder."""
    base, parts = LIBRARIES[name]
    root = destination / name

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [
            n
            for n in names
            if n in ("site-packages", "__pycache__")
            or (not os.path.isdir(os.path.join(folder, n)) and not n.endswith((".py", ".pyi")))
        ]

    if not parts:
        shutil.copytree(base, root, ignore=ignore)
    for part in parts:
        shutil.copytree(base / part, root / part, ignore=ignore)
    return root


def draw_mutations(project: Project, per_kind: int, seed: int) -> list[Mutation]:
    """Up to ``per_kind`` mutations of each kind, each in a different function."""
    chosen = []
    for kind, mutator in MUTATORS.items():
        rng = random.Random(f"{seed}:{project.name}:{kind}")
        functions = list(project.functions)
        rng.shuffle(functions)
        taken = 0
        for fn in functions:
            if taken == per_kind:
                break
            options = mutator(fn, project.lines[fn.rel], project, rng)
            if not options:
                continue
            (line, old, new), how = rng.choice(options)
            span = (fn.doc[0].lineno, fn.doc[-1].lineno)
            chosen.append(
                Mutation(
                    project.name,
                    kind,
                    fn.rel,
                    fn.qualname,
                    line,
                    old.rstrip("\r\n"),
                    new.rstrip("\r\n"),
                    how,
                    span,
                )
            )
            taken += 1
    return chosen


def schedule(mutations: list[Mutation]) -> int:
    """Give every mutation a round, at most one per function per round; the round count."""
    per_function: Counter = Counter()
    for m in mutations:
        key = (m.rel, m.doc_lines)
        m.round = per_function[key]
        per_function[key] += 1
    return max(per_function.values(), default=0)


# --- running docfact -------------------------------------------------------------------


def run_docfact(project: Project) -> dict:
    command = [str(DOCFACT), "check", str(project.root), "--format", "json", "--no-cache"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=project.root.parent)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"docfact failed ({done.returncode}): {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    for d in result["diagnostics"]:
        d["rel"] = Path(d["path"]).relative_to(project.root).as_posix()
    return result


def by_line(diagnostics: list[dict]) -> dict[tuple[str, int], list[dict]]:
    """(file, line) -> the findings whose span covers that line."""
    index = defaultdict(list)
    for d in diagnostics:
        for line in range(d["start"]["line"], d["end"]["line"] + 1):
            index[(d["rel"], line)].append(d)
    return index


def run_round(project: Project, batch: list[Mutation], baseline: dict) -> None:
    """Apply the batch, check the project once, record each mutation's outcome, restore."""
    per_file = defaultdict(list)
    for m in batch:
        per_file[m.rel].append(m)
    for rel, mutations in per_file.items():
        lines = list(project.lines[rel])
        for m in mutations:
            ending = lines[m.line - 1][len(m.old_line) :]
            lines[m.line - 1] = m.new_line + ending
        try:
            ast.parse("".join(lines))
        except SyntaxError:
            for m in mutations:
                m.status = "invalid"
            continue
        project.write(rel, lines)
    try:
        found = by_line(run_docfact(project)["diagnostics"])
    finally:
        for rel in per_file:
            project.restore(rel)
    for m in batch:
        if m.status == "invalid":
            continue
        hits = found.get((m.rel, m.line), [])
        m.status = "detected" if any(d["criterion"] == m.expected for d in hits) else "missed"
        m.nearby = _new_findings(found, baseline, m)


def _new_findings(found: dict, baseline: dict, m: Mutation) -> list[str]:
    """Findings in the mutated docstring that the unmutated code did not have."""
    seen, shown = set(), []
    for line in range(m.doc_lines[0], m.doc_lines[1] + 1):
        old = {(d["code"], d["message"]) for d in baseline.get((m.rel, line), [])}
        for d in found.get((m.rel, line), []):
            key = (d["code"], d["start"]["line"], d["message"])
            if key in seen or (d["code"], d["message"]) in old:
                continue
            seen.add(key)
            shown.append(f"line {d['start']['line']}: {d['code']} {d['message']}")
    return shown


# --- one library ---------------------------------------------------------------------


@dataclass
class LibraryResult:
    name: str
    files: int
    functions: int
    docstrings: int
    mutations: list[Mutation]
    findings: list[dict]  # factual findings of the unmutated code
    seconds: float


def evaluate_library(name: str, workdir: Path, per_kind: int, seed: int) -> LibraryResult:
    started = time.perf_counter()
    project = Project(name, copy_library(name, workdir))
    mutations = draw_mutations(project, per_kind, seed)
    baseline_run = run_docfact(project)
    baseline = by_line(baseline_run["diagnostics"])
    for m in mutations:
        if baseline.get((m.rel, m.line)):
            m.status = "already-flagged"
    live = [m for m in mutations if m.status == "pending"]
    rounds = schedule(live)
    for k in range(rounds):
        run_round(project, [m for m in live if m.round == k], baseline)
    findings = [d for d in baseline_run["diagnostics"] if d["criterion"] in FACTUAL]
    seconds = time.perf_counter() - started
    print(
        f"  {name}: {len(project.sources)} files, {len(project.functions)} documented "
        f"functions, {len(mutations)} mutations in {rounds} rounds, {seconds:.1f}s",
        file=sys.stderr,
    )
    return LibraryResult(
        name,
        baseline_run["files_checked"],
        len(project.functions),
        baseline_run["units_checked"],
        mutations,
        findings,
        seconds,
    )


# --- report ----------------------------------------------------------------------------


def _ratio(hit: int, total: int) -> str:
    return f"{hit / total:5.2f}" if total else "  -  "


def recall_table(results: list[LibraryResult]) -> list[str]:
    counted = [m for r in results for m in r.mutations if m.status in ("detected", "missed")]
    names = [r.name for r in results]
    lines = [
        "RECALL (detected / counted mutations; a finding of the expected criterion on "
        "the mutated line)",
        "",
        f"{'kind':<22}{'total':>13}" + "".join(f"{n:>13}" for n in names),
    ]
    for kind in [*KINDS, "ALL"]:
        cells = []
        for group in [counted] + [[m for m in counted if m.library == n] for n in names]:
            chosen = [
                m
                for m in group
                if m.kind == kind or (kind == "ALL" and m.kind not in INFORMATIONAL)
            ]
            hit = sum(m.status == "detected" for m in chosen)
            cells.append(f"{_ratio(hit, len(chosen))} {hit:>3}/{len(chosen):<3}")
        lines.append(f"{kind:<22}" + "".join(f"{c:>13}" for c in cells))
    scored = [m for m in counted if m.kind not in INFORMATIONAL]
    hit = sum(m.status == "detected" for m in scored)
    overall = hit / len(scored) if scored else 0
    verdict = "PASS" if overall >= TARGET_RECALL else "FAIL"
    lines += [
        "",
        f"overall recall {overall:.3f} (target >= {TARGET_RECALL}): {verdict}"
        f"   (ALL leaves out {', '.join(sorted(INFORMATIONAL))})",
    ]
    skipped = Counter(
        m.status for r in results for m in r.mutations if m.status not in ("detected", "missed")
    )
    if skipped:
        lines.append("not counted: " + ", ".join(f"{n} {s}" for s, n in sorted(skipped.items())))
    return lines


def precision_table(results: list[LibraryResult]) -> list[str]:
    lines = [
        "PRECISION (factual findings on the unmutated code)",
        "",
        f"{'library':<12}{'files':>7}{'docstrings':>12}{'findings':>10}{'per 100':>9}"
        f"  verdict  by code",
    ]
    total_docs = total_findings = 0
    for r in results:
        per_100 = 100 * len(r.findings) / r.docstrings if r.docstrings else 0
        codes = Counter(d["code"] for d in r.findings)
        verdict = "PASS" if per_100 <= TARGET_PER_100 else "FAIL"
        lines.append(
            f"{r.name:<12}{r.files:>7}{r.docstrings:>12}{len(r.findings):>10}"
            f"{per_100:>9.2f}  {verdict:<7}  "
            + ", ".join(f"{c} {n}" for c, n in sorted(codes.items()))
        )
        total_docs += r.docstrings
        total_findings += len(r.findings)
    per_100 = 100 * total_findings / total_docs if total_docs else 0
    lines.append(
        f"{'ALL':<12}{'':>7}{total_docs:>12}{total_findings:>10}{per_100:>9.2f}  "
        f"{'PASS' if per_100 <= TARGET_PER_100 else 'FAIL'}"
    )
    return lines


def missed_list(results: list[LibraryResult]) -> list[str]:
    lines = ["MISSED MUTATIONS", ""]
    for kind in KINDS:
        missed = [
            m for r in results for m in r.mutations if m.kind == kind and m.status == "missed"
        ]
        lines.append(f"== {kind}: {len(missed)} missed")
        for m in missed:
            lines += [
                f"{_shown_path(m.library, m.rel)}:{m.line}  {m.qualname}  [{m.how}]",
                f"    - {m.old_line.strip()}",
                f"    + {m.new_line.strip()}",
            ]
            lines += [f"    docfact: {n}" for n in m.nearby] or [
                "    docfact: nothing new in this docstring"
            ]
        lines.append("")
    return lines


def findings_list(results: list[LibraryResult]) -> list[str]:
    lines = ["FINDINGS ON UNMUTATED CODE (review each: true error or false positive?)", ""]
    for r in results:
        lines.append(f"== {r.name}: {len(r.findings)}")
        for d in sorted(r.findings, key=lambda d: (d["rel"], d["start"]["line"])):
            sentence = " ".join(d["sentence"].split())
            lines += [
                f"{_shown_path(r.name, d['rel'])}:{d['start']['line']}  {d['code']}  "
                f"{d['message']}",
                f"    sentence: {sentence[:300]}",
            ]
        lines.append("")
    return lines


def _shown_path(library: str, rel: str) -> str:
    base, _ = LIBRARIES[library]
    return str(base / rel)


def write_results(results: list[LibraryResult], summary: list[str], details: list[str]) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mutation_recall.txt").write_text("\n".join(summary + [""] + details) + "\n")
    data = {
        "mutations": [asdict(m) for r in results for m in r.mutations],
        "findings": [{"library": r.name, **d} for r in results for d in r.findings],
        "libraries": [
            {
                "name": r.name,
                "files": r.files,
                "functions": r.functions,
                "docstrings": r.docstrings,
                "seconds": r.seconds,
            }
            for r in results
        ],
    }
    (RESULTS / "mutation_recall.json").write_text(json.dumps(data, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--per-kind", type=int, default=30, help="mutations of each kind per library (default 30)"
    )
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument(
        "--library",
        action="append",
        choices=list(LIBRARIES),
        help="only these libraries (repeatable)",
    )
    arguments = parser.parse_args(argv)
    started = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory(prefix="docfact-mutants-") as tmp:
        for name in arguments.library or LIBRARIES:
            results.append(evaluate_library(name, Path(tmp), arguments.per_kind, arguments.seed))
    summary = recall_table(results) + [""] + precision_table(results)
    summary.append(
        f"\n(total {time.perf_counter() - started:.0f}s; seed {arguments.seed}; "
        f"up to {arguments.per_kind} mutations per kind and library)"
    )
    details = missed_list(results) + findings_list(results)
    print("\n".join(summary + [""] + details))
    write_results(results, summary, details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
