"""SONAR's comparison of outcomes, done here, outside the sandbox: code under test never
sees it, so no candidate can give itself a score (``_driver.py`` only reports outcomes).

An outcome is {"k": "returned" | "raised" | "timeout" | "unsteady", "v": the value as a tree
(``_driver._tree``) or the error, "p": what the call printed, "d": how it reads}. Trees are
JSON lists whose first item is their kind: "b" None or a bool, "i" an int (hex), "q" a
rational (its numerator and denominator, hex), "f" a float (repr), "c" a complex, "s" text,
"y" bytes, "l" a list or tuple (its type, items), "d" a dict (its type, sorted key-value
pairs), "set", "t" a class or a nested function (its name), "o" an object by its attributes,
"e" what an object with an equality of its own pickles to, "r" its text, "fn" a function
returned, by what it does on fixed inputs (["ret", tree] or ["exc", error type] each, then
["attr", name, the same] for each of its own public attributes, called when callable), "h" a
long tree's hash.

SONAR's rules: floats equal within relative tolerance 1e-9, NaN equals NaN, infinities
exactly; two rationals exactly, numerator and denominator as each holds them (a fraction
left unreduced, -4/4, is not -1/1: its own ``==`` says so; as floats they were alike); the
original returns and the candidate raises -> mismatch. A case where the original raises is
not counted (``raised``, with the first such error): generated inputs often make it raise on
every case, and "both raise" would give a body that always raises a perfect score. A case
where the original runs out of time, or gives another outcome when called again (it reads
the clock, a counter, ...), is discarded: it says nothing of the behaviour. A candidate that
prints where the original prints nothing is not faulted.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

NUMBERS = ("i", "q", "f", "c")
AFTER = "<None; arguments after>"  # _driver.AFTER: the arguments of a function returning None
DEPTH = 200
BROKEN = (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError)


def same(a: object, b: object, depth: int = 0) -> bool:
    """Whether two trees are equal by SONAR's rules (False for anything malformed)."""
    try:
        return _same(a, b, depth)
    except (*BROKEN, RecursionError):
        return False


def _same(a: object, b: object, depth: int) -> bool:
    if depth > DEPTH or not isinstance(a, list) or not isinstance(b, list) or not a or not b:
        return False
    if a[0] in NUMBERS and b[0] in NUMBERS:
        return _same_number(a, b)
    if a[0] != b[0] or len(a) != len(b):
        return False
    kind = a[0]
    if kind in ("l", "set"):
        return a[1] == b[1] and _same_items(a[2], b[2], depth)
    if kind == "d":
        if a[1] != b[1] or len(a[2]) != len(b[2]):
            return False
        ours, theirs = (
            sorted(pairs, key=lambda pair: json.dumps(pair[0])) for pairs in (a[2], b[2])
        )
        return all(
            x[0] == y[0] and _same(x[1], y[1], depth + 1) for x, y in zip(ours, theirs, strict=True)
        )
    if kind in ("o", "e"):
        return a[1] == b[1] and _same(a[2], b[2], depth + 1)
    if kind == "fn":
        return _same_items(a[1], b[1], depth)
    if kind == "ret":
        return _same(a[1], b[1], depth + 1)
    if kind == "attr":
        return a[1] == b[1] and _same(a[2], b[2], depth + 1)
    if kind == AFTER:
        return _same(a[1], b[1], depth + 1) and _same(a[2], b[2], depth + 1)
    return a == b


def _same_items(a: object, b: object, depth: int) -> bool:
    if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
        return False
    return all(_same(x, y, depth + 1) for x, y in zip(a, b, strict=True))


def _same_number(a: list, b: list) -> bool:
    if a[0] == b[0] and a[0] in ("i", "q"):
        return bool([int(x, 16) for x in a[1:]] == [int(y, 16) for y in b[1:]])
    x, y = _number(a), _number(b)
    if isinstance(x, complex) or isinstance(y, complex):
        x, y = complex(x), complex(y)
        return _same_real(x.real, y.real) and _same_real(x.imag, y.imag)
    return _same_real(float(x), float(y))


def _number(tree: list) -> int | float | complex:
    if tree[0] == "i":
        return int(tree[1], 16)
    if tree[0] == "f":
        return float(tree[1])
    if tree[0] == "q":
        return int(tree[1], 16) / int(tree[2], 16)
    return complex(float(tree[1]), float(tree[2]))


def _same_real(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0)


def render(tree: object, limit: int = 40) -> str:
    """A short text of a tree, for a counterexample."""
    text = _render(tree, 0)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(tree: object, depth: int) -> str:
    if not isinstance(tree, list) or not tree or depth > 6:
        return "..."
    kind, rest = tree[0], tree[1:]
    try:
        if kind == "b":
            return repr(rest[0]) if rest[0] is not None else "None"
        if kind == "q":
            return f"{int(rest[0], 16)}/{int(rest[1], 16)}"
        if kind in NUMBERS:
            return repr(_number(tree)) if kind != "i" or len(rest[0]) < 40 else "<a large int>"
        if kind == "s":
            return repr(rest[0][:60])
        if kind == "l":
            inner = ", ".join(_render(item, depth + 1) for item in rest[1][:6])
            return f"({inner})" if rest[0] == "builtins.tuple" else f"[{inner}]"
        if kind == "d":
            inner = ", ".join(
                f"{_render(k, depth + 1)}: {_render(v, depth + 1)}" for k, v in rest[1][:6]
            )
            return "{" + inner + "}"
        if kind in ("o", "e", "r", "set", "y"):
            inside = rest[1][:40] if kind == "r" else _render(rest[1], depth + 1)
            return f"<{str(rest[0]).rpartition('.')[2]} {inside}>"
        if kind == "t":
            return str(rest[0])
        if kind == "fn":
            return "<function>"
    except (*BROKEN, RecursionError):
        pass
    return "..."


def first_difference(
    a: object, b: object, where: str = "value", depth: int = 0
) -> tuple[str | None, str, str]:
    """(where, a's part, b's part) of the first place two trees differ, the parts as text
    that differs whenever it can (the whole values may print alike when cut)."""
    if depth < 20 and isinstance(a, list) and isinstance(b, list) and a[:2] == b[:2] and a:
        if a[0] == "l" and isinstance(a[2], list) and isinstance(b[2], list):
            for index, (x, y) in enumerate(zip(a[2], b[2])):
                if not same(x, y):
                    return first_difference(x, y, f"{where}[{index}]", depth + 1)
            if len(a[2]) != len(b[2]):
                return f"len({where})", str(len(a[2])), str(len(b[2]))
            return None, "", ""
        if a[0] == "d":
            other = {json.dumps(k): v for k, v in b[2]}
            for key, value in a[2]:
                place = f"{where}[{render(key)}]"
                if json.dumps(key) not in other:
                    return place, render(value), "missing"
                if not same(value, other[json.dumps(key)]):
                    return first_difference(value, other[json.dumps(key)], place, depth + 1)
            keys = {json.dumps(k) for k, _ in a[2]}
            extra = next(((k, v) for k, v in b[2] if json.dumps(k) not in keys), None)
            if extra is not None:
                return f"{where}[{render(extra[0])}]", "missing", render(extra[1])
            return None, "", ""
        if a[0] == "o":
            return first_difference(a[2], b[2], where, depth + 1)
    ours, theirs = render(a), render(b)
    if ours == theirs:
        ours, theirs = render(a, 60), render(b, 60)
    if ours == theirs:
        ours, theirs = json.dumps(a)[:60], json.dumps(b)[:60]
    return where, ours, theirs


def tally(records: Sequence[dict], outs: Sequence[object]) -> dict:
    """One candidate's counts against the original's ``records`` ({"show", "o"} per case):
    matches, counted, discarded, raised (with the first such error) and the first
    counterexample."""
    result: dict = {"matches": 0, "counted": 0, "discarded": 0, "raised": 0}
    result["raised_example"] = result["counterexample"] = None
    for record, actual in zip(records, outs, strict=False):
        expected = record["o"]
        if expected["k"] in ("timeout", "unsteady"):
            result["discarded"] += 1
        elif expected["k"] == "raised":
            result["raised"] += 1
            if result["raised_example"] is None:
                result["raised_example"] = f"{record['show']}: {expected['v']}"[:200]
        elif isinstance(actual, dict):  # None: the time ran out before it was called
            result["counted"] += 1
            if _matches(expected, actual):
                result["matches"] += 1
            elif result["counterexample"] is None:
                result["counterexample"] = _counterexample(str(record["show"]), expected, actual)
    return result


def _matches(expected: dict, actual: dict) -> bool:
    return (
        actual.get("k") == "returned"
        and same(expected["v"], actual.get("v"))
        and (not expected["p"] or expected["p"] == actual.get("p"))
    )


def _counterexample(shown: str, expected: dict, actual: dict) -> dict:
    original, candidate = str(expected["d"])[:200], str(actual.get("d", ""))[:200]
    if actual.get("k") == "returned" and original == candidate:  # shortened alike: say where
        try:
            where, ours, theirs = first_difference(expected["v"], actual.get("v"))
        except (*BROKEN, RecursionError):  # a malformed tree from the candidate's side
            where, ours, theirs = None, "", ""
        if where is not None:
            original += f", {where} is {ours}"
            candidate += f", {where} is {theirs}"
        elif expected["p"] != actual.get("p"):
            original += f", printed {str(expected['p'])[-60:]!r}"
            candidate += f", printed {str(actual.get('p'))[-60:]!r}"
    return {"input": shown, "original": original, "candidate": candidate}
