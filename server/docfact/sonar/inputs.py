"""What to feed a function under differential testing: one strategy spec per parameter,
from its annotation, its default value and how the body uses it.

A spec is plain JSON (it crosses into the sandbox, where ``_driver.py`` turns it into a
hypothesis strategy): {"t": "int"}, {"t": "list", "of": spec}, {"t": "dict", "k": spec,
"v": spec}, {"t": "tuple", "items": [spec, ...]}, {"t": "one_of", "of": [spec, ...]},
{"t": "literal", "src": "repr of a default"}; leaf kinds are int, float, number, bool, str,
bytes, none, sized, any.
"""

from __future__ import annotations

import ast

INT, FLOAT, NUMBER, BOOL, STR = ({"t": t} for t in ("int", "float", "number", "bool", "str"))
BYTES, NONE, SIZED, ANY = ({"t": t} for t in ("bytes", "none", "sized", "any"))

_NAMED = {
    "int": INT,
    "float": FLOAT,
    "complex": NUMBER,
    "bool": BOOL,
    "str": STR,
    "bytes": BYTES,
    "None": NONE,
    "NoneType": NONE,
    "Any": ANY,
    "object": ANY,
}
_SEQUENCES = {
    "list",
    "List",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Iterator",
    "Collection",
    "Reversible",
}
_MAPPINGS = {"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict", "Counter"}
_SETS = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"}
_STR_METHODS = {
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "splitlines",
    "startswith",
    "endswith",
    "replace",
    "find",
    "rfind",
    "join",
    "format",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "title",
    "capitalize",
    "casefold",
    "encode",
    "partition",
    "zfill",
    "center",
    "ljust",
    "rjust",
    "removeprefix",
    "removesuffix",
    "swapcase",
    "expandtabs",
}
_LIST_METHODS = {"append", "extend", "insert", "pop", "sort", "reverse", "remove", "clear"}
_DICT_METHODS = {"items", "keys", "values", "get", "setdefault", "update", "popitem"}
_NUMERIC_CALLS = {"abs", "round", "divmod", "pow", "float", "int", "hex", "bin", "oct", "chr"}
_SIZED_CALLS = {
    "len",
    "sorted",
    "reversed",
    "sum",
    "min",
    "max",
    "list",
    "tuple",
    "set",
    "enumerate",
    "any",
    "all",
    "zip",
    "map",
    "filter",
    "iter",
}


def annotation_spec(node: ast.expr | None) -> dict | None:
    """The spec for an annotation, or None when it names no type we can build."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE
        if isinstance(node.value, str):  # a string annotation
            try:
                return annotation_spec(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return None
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _one_of([annotation_spec(node.left), annotation_spec(node.right)])
    name = _tail(node.value if isinstance(node, ast.Subscript) else node)
    args = _subscript_args(node) if isinstance(node, ast.Subscript) else []
    if name in _NAMED and not args:
        return _NAMED[name]
    if name in ("Optional",):
        return _one_of([NONE, annotation_spec(args[0]) if args else ANY])
    if name == "Union":
        return _one_of([annotation_spec(a) for a in args])
    if name in _SEQUENCES or (name == "tuple" and len(args) == 2 and _is_ellipsis(args[1])):
        kind = "tuple" if name == "tuple" else "list"
        return {"t": kind, "of": _or_int(annotation_spec(args[0]) if args else None)}
    if name in ("tuple", "Tuple"):
        if not args:
            return {"t": "tuple", "of": INT}
        return {"t": "tuple", "items": [_or_int(annotation_spec(a)) for a in args]}
    if name in _MAPPINGS:
        key = annotation_spec(args[0]) if args else STR
        value = annotation_spec(args[1]) if len(args) > 1 else INT
        return {"t": "dict", "k": _hashable(key), "v": _or_int(value)}
    if name in _SETS:
        return {"t": "set", "of": _hashable(annotation_spec(args[0]) if args else INT)}
    return None


def names_only_known_types(node: ast.expr) -> bool:
    """Whether every type an annotation names is one ``annotation_spec`` builds exactly
    (else an unknown element type became an int, and the sandbox should resolve it)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return False
    known = set(_NAMED) | _SEQUENCES | _MAPPINGS | _SETS | {"Optional", "Union", "tuple", "Tuple"}
    for part in ast.walk(node):
        if isinstance(part, ast.Attribute) and _tail(part) not in known:
            return False
        if isinstance(part, ast.Name) and part.id not in known and part.id != "typing":
            return False
    return True


def default_spec(node: ast.expr | None) -> dict | None:
    """The default value itself, when it is a literal (it is also tried as a case)."""
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return {"t": "literal", "src": repr(value), "kind": _value_spec(value)}


def _value_spec(value: object) -> dict:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STR
    if isinstance(value, bytes):
        return BYTES
    if isinstance(value, (list, tuple)):
        of = _value_spec(value[0]) if value else INT
        return {"t": "tuple" if isinstance(value, tuple) else "list", "of": of}
    if isinstance(value, dict):
        return {"t": "dict", "k": STR, "v": INT}
    return ANY  # None: the default says nothing of the type


def usage_spec(name: str, function: ast.AST, depth: int = 0) -> dict | None:
    """A spec guessed from how the body uses ``name``: ``x[i]`` a sequence, ``x.items()``
    a dict, ``x + 1`` a number, ``len(x)`` something sized, ``for e in x`` a list."""
    votes: set[str] = set()
    element: dict | None = None
    parents = {
        child: parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)
    }
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute):
            attribute = parent.attr
            votes.add(
                "str"
                if attribute in _STR_METHODS
                else "list"
                if attribute in _LIST_METHODS
                else "dict"
                if attribute in _DICT_METHODS
                else ""
            )
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            index = parent.slice
            is_text_key = isinstance(index, ast.Constant) and isinstance(index.value, str)
            votes.add("dict" if is_text_key else "sequence")
        elif isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            continue  # truthiness says nothing of the type
        elif isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.AugAssign)):
            other = (
                parent.right
                if isinstance(parent, ast.BinOp) and parent.left is node
                else getattr(parent, "left", None)
            )
            if isinstance(other, ast.Constant) and isinstance(other.value, str):
                votes.add("str")
            elif isinstance(other, (ast.List, ast.ListComp)):
                votes.add("list")
            else:
                votes.add("number")
        elif isinstance(parent, ast.Compare):
            constants = [
                c for c in [parent.left, *parent.comparators] if isinstance(c, ast.Constant)
            ]
            if any(
                isinstance(c.value, (int, float)) and not isinstance(c.value, bool)
                for c in constants
            ):
                votes.add("number")
            elif any(isinstance(c.value, str) for c in constants):
                votes.add("str")
            elif (
                any(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
                and node in parent.comparators
            ):
                votes.add("sized")
        elif isinstance(parent, ast.Call) and node in parent.args:
            callee = _tail(parent.func)
            if callee == "range":
                votes.add("int")
            elif callee in _NUMERIC_CALLS or (
                isinstance(parent.func, ast.Attribute) and _tail(parent.func.value) == "math"
            ):
                votes.add("number")
            elif callee in _SIZED_CALLS:
                votes.add("sized")
        elif isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            votes.add("sized")
            target = parent.target
            if isinstance(target, ast.Name) and depth == 0:
                element = usage_spec(target.id, function, depth + 1)
    votes.discard("")
    return _from_votes(votes, element)


def _from_votes(votes: set[str], element: dict | None) -> dict | None:
    if not votes:
        return None
    if "dict" in votes:
        return {"t": "dict", "k": STR, "v": _or_int(element)}
    if "list" in votes:
        return {"t": "list", "of": _or_int(element)}
    if "str" in votes:
        return STR
    if "sequence" in votes or "sized" in votes:
        if element is not None and element != STR:
            return {"t": "list", "of": element}
        return {"t": "one_of", "of": [{"t": "list", "of": _or_int(element)}, STR]}
    if "int" in votes:
        return INT
    return NUMBER


def parameter_specs(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict]:
    """[{"name", "keyword": bool, "spec", "hint"}] for every parameter the caller must or
    may pass (``*args`` and ``**kwargs`` are left empty; so are the private parameters
    with a default, ``_w=WHITESPACE.match``, which only the function itself sets);
    ``hint`` is true when the annotation names a type the spec cannot build (the sandbox
    resolves it, when it runs the function in its module)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(
        args.defaults
    )
    params = [(a, d, False) for a, d in zip(positional, defaults)]
    params += [(a, d, True) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    found = []
    skipped = False
    for arg, default, keyword in params:
        if default is not None and arg.arg.startswith("_"):
            skipped = True  # ``_w=WHITESPACE.match``: the implementation's, not the caller's
            continue
        keyword = keyword or skipped  # after a skipped one, passed by name
        spec = annotation_spec(arg.annotation) or usage_spec(arg.arg, function)
        literal = default_spec(default)
        if literal is not None:
            spec = _one_of([literal, spec or literal["kind"]])
        hint = arg.annotation is not None and not names_only_known_types(arg.annotation)
        found.append({"name": arg.arg, "keyword": keyword, "spec": spec or ANY, "hint": hint})
    return found


# --- helpers ------------------------------------------------------------------------------


def _one_of(specs: list[dict | None]) -> dict | None:
    kept = []
    for spec in specs:
        if spec is None:
            return None  # a part we cannot build: the whole annotation is unknown
        for part in spec["of"] if spec["t"] == "one_of" else [spec]:
            if part not in kept:
                kept.append(part)
    return kept[0] if len(kept) == 1 else {"t": "one_of", "of": kept}


def _or_int(spec: dict | None) -> dict:
    return spec if spec is not None else INT


def _hashable(spec: dict | None) -> dict:
    """Set members and dict keys must hash: lists become tuples, anything unknown a str."""
    if spec is None or spec["t"] in ("dict", "set", "any", "sized"):
        return STR
    if spec["t"] == "list":
        return {"t": "tuple", "of": _hashable(spec["of"])}
    return spec


def _tail(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _subscript_args(node: ast.Subscript) -> list[ast.expr]:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis
