"""Normalised types read from annotations, docstrings and expressions, and when they clash.

Three readers produce the same ``TypeExpr``: ``parse_annotation`` (Python annotation
source), ``parse_doc_type`` (the type a docstring writes, prose included) and
``type_of_expression`` (the type of a value, when the syntax alone shows it).
``contradicts`` then answers one question conservatively: can a value described by the
docs never have the actual type? Only builtins, ``typing``, ``collections`` /
``collections.abc`` and ``numbers`` names are understood; every other name is opaque and
never contradicts anything, since its class hierarchy is unknown.
"""

from __future__ import annotations

import ast
import builtins
import collections
import collections.abc
import numbers
import re
import types
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

__all__ = [
    "TypeExpr",
    "contradicts",
    "describe",
    "parse_annotation",
    "parse_doc_type",
    "type_of_expression",
]

_CACHE_SIZE = 16384


@dataclass(frozen=True, slots=True)
class TypeExpr:
    """A normalised type: a canonical class name with type arguments.

    ``name`` is "Union" for unions (members in ``args``), "Any" for anything, "None" for
    ``None``, a canonical known name ("int", "list", "Sequence", ...) otherwise, or, when
    ``opaque``, the name as written. Two argument-only forms exist: "..." (an ellipsis)
    and "[]" (a Callable's parameter list, members in ``args``).
    """

    name: str
    args: tuple[TypeExpr, ...] = ()
    opaque: bool = False


ANY = TypeExpr("Any")
NONE = TypeExpr("None")
_ELLIPSIS = TypeExpr("...")
_PARAMS = "[]"
_UNION = "Union"


def _opaque(name: str, args: tuple[TypeExpr, ...] = ()) -> TypeExpr:
    return TypeExpr(name, args, opaque=True)


def _union(members: Iterable[TypeExpr]) -> TypeExpr:
    """Flattened, de-duplicated union; a single member stands for itself."""
    flat: list[TypeExpr] = []
    for member in members:
        for part in member.args if member.name == _UNION else (member,):
            if part not in flat:
                flat.append(part)
    if ANY in flat:
        return ANY
    if not flat:
        return _opaque("Never")
    return flat[0] if len(flat) == 1 else TypeExpr(_UNION, tuple(flat))


# --- known names ----------------------------------------------------------------------

_ABC_NAMES = [name for name in collections.abc.__all__ if name != "ByteString"]
_COLLECTIONS_NAMES = ["OrderedDict", "defaultdict", "deque", "Counter", "ChainMap"]
_NUMBERS_NAMES = ["Number", "Complex", "Real", "Rational", "Integral"]

# Canonical name -> runtime class, used for subclass questions.
_BUILTIN_CLASSES = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type) and not name.startswith("_") and value is not object
}
_CLASSES: dict[str, type] = dict(_BUILTIN_CLASSES)
_CLASSES["None"] = type(None)
_CLASSES.update({name: getattr(collections, name) for name in _COLLECTIONS_NAMES})
_CLASSES.update({name: getattr(collections.abc, name) for name in _ABC_NAMES if name != "Set"})
_CLASSES["AbstractSet"] = collections.abc.Set
_CLASSES.update({name: getattr(numbers, name) for name in _NUMBERS_NAMES})

# typing forms that are not classes; handled by the converter.
_SPECIAL_FORMS = {"Any", "Optional", "Union", "Literal", "AnyStr"}
# Qualifiers that wrap the real type in their first argument.
_WRAPPERS = {"ClassVar", "Final", "Required", "NotRequired", "ReadOnly", "Annotated"}

_TYPING_NAMES = {name: name for name in _ABC_NAMES if name != "Set"}
_TYPING_NAMES.update({name: name for name in _SPECIAL_FORMS | _WRAPPERS})
_TYPING_NAMES.update(
    {
        "List": "list",
        "Dict": "dict",
        "Set": "set",
        "FrozenSet": "frozenset",
        "Tuple": "tuple",
        "Type": "type",
        "Text": "str",
        "LiteralString": "str",
        "DefaultDict": "defaultdict",
        "Deque": "deque",
        "AbstractSet": "AbstractSet",
        "OrderedDict": "OrderedDict",
        "Counter": "Counter",
        "ChainMap": "ChainMap",
    }
)
_ABC_MODULE_NAMES = {name: name for name in _ABC_NAMES} | {"Set": "AbstractSet"}
_BUILTIN_NAMES = {name: name for name in _BUILTIN_CLASSES} | {"object": "Any"}
_COLLECTIONS_MODULE_NAMES = {name: name for name in _COLLECTIONS_NAMES}

# Module prefix as written -> the names it provides, mapped to canonical names.
_NAMESPACES: dict[str, dict[str, str]] = {
    "": _BUILTIN_NAMES | _COLLECTIONS_MODULE_NAMES | _TYPING_NAMES,
    "builtins": _BUILTIN_NAMES,
    "typing": _TYPING_NAMES,
    "typing_extensions": _TYPING_NAMES,
    "t": _TYPING_NAMES,
    "collections": _COLLECTIONS_MODULE_NAMES,
    "collections.abc": _ABC_MODULE_NAMES,
    "abc": _ABC_MODULE_NAMES,
    "numbers": {name: name for name in _NUMBERS_NAMES},
}


def _canonical(dotted: str) -> str | None:
    module, _, name = dotted.rpartition(".")
    return _NAMESPACES.get(module, {}).get(name)


# --- annotations ----------------------------------------------------------------------


def _parse_eval(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


@lru_cache(maxsize=_CACHE_SIZE)
def parse_annotation(text: str) -> TypeExpr | None:
    """The type an annotation's source denotes, or None if it is not a type expression."""
    return _parse_type_source(text, prose=False)


def _parse_type_source(text: str, prose: bool) -> TypeExpr | None:
    node = _parse_eval(text)
    if node is None:
        return None
    try:
        return _convert(node, prose)
    except RecursionError:
        return None


def _convert(node: ast.expr, prose: bool) -> TypeExpr | None:
    """Type of an annotation node; in prose mode plain words ("string") count too."""
    match node:
        case ast.Constant(value=None):
            return NONE
        case ast.Constant(value=str(inner)):  # a forward reference
            return _parse_type_source(inner, prose)
        case ast.Name() | ast.Attribute():
            dotted = _dotted(node)
            return _named(dotted, prose) if dotted else None
        case ast.BinOp(op=ast.BitOr()):
            left, right = _convert(node.left, prose), _convert(node.right, prose)
            return _union([left, right]) if left and right else None
        case ast.Subscript(value=base, slice=index):
            dotted = _dotted(base)
            args = index.elts if isinstance(index, ast.Tuple) else [index]
            return _generic(dotted, args, prose) if dotted else None
    return None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else None
    return None


def _named(dotted: str, prose: bool) -> TypeExpr:
    canonical = _canonical(dotted)
    if canonical == "Any":
        return ANY
    if canonical == "AnyStr":
        return _union([TypeExpr("str"), TypeExpr("bytes")])
    if canonical in _CLASSES:
        return TypeExpr(canonical)
    word = _prose_word(dotted) if prose else None
    return word or _opaque(dotted)


def _generic(dotted: str, arg_nodes: list[ast.expr], prose: bool) -> TypeExpr:
    canonical = _canonical(dotted)
    if canonical == "Literal":
        return _union(_literal_type(arg) for arg in arg_nodes)
    args = tuple(_convert_arg(arg, prose) for arg in arg_nodes)
    if canonical in _WRAPPERS:
        return args[0] if args else _opaque(dotted)
    if canonical == "Optional":
        return _union([*args, NONE])
    if canonical == "Union":
        return _union(args)
    if prose and canonical == "tuple" and len(args) == 1 and args[0] != _ELLIPSIS:
        # Docs write ``tuple[str]`` for a tuple of strings, seldom for a 1-tuple.
        return TypeExpr(canonical, (args[0], _ELLIPSIS))
    if canonical in _CLASSES:
        return TypeExpr(canonical, args)
    return _opaque(dotted, args)


def _convert_arg(node: ast.expr, prose: bool) -> TypeExpr:
    """A type argument; forms only valid as arguments are allowed, the rest is opaque."""
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return _ELLIPSIS
    if isinstance(node, ast.List):
        return TypeExpr(_PARAMS, tuple(_convert_arg(elt, prose) for elt in node.elts))
    return _convert(node, prose) or _opaque(ast.unparse(node))


def _literal_type(node: ast.expr) -> TypeExpr:
    if isinstance(node, ast.Constant):
        return _constant_type(node.value) or _opaque(ast.unparse(node))
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return _expr_type(node) or _opaque(ast.unparse(node))
    if isinstance(node, ast.Subscript):  # Literal[Literal[...]]
        return _convert(node, prose=False) or _opaque(ast.unparse(node))
    return _opaque(ast.unparse(node))  # e.g. an enum member


def _constant_type(value: object) -> TypeExpr | None:
    if value is None:
        return NONE
    for cls in (bool, int, float, complex, str, bytes):
        if type(value) is cls:
            return TypeExpr(cls.__name__)
    return None


# --- docstring types ------------------------------------------------------------------

_WORDS: dict[str, TypeExpr] = {
    word: TypeExpr(name)
    for name, words in {
        "str": ("str", "string", "text"),
        "int": ("int", "integer"),
        "bool": ("bool", "boolean"),
        "float": ("float",),
        "complex": ("complex",),
        "Number": ("number", "numeric"),
        "bytes": ("bytes", "bytestring"),
        "bytearray": ("bytearray",),
        "list": ("list",),
        "tuple": ("tuple",),
        "dict": ("dict", "dictionary"),
        "Mapping": ("mapping",),
        "set": ("set",),
        "frozenset": ("frozenset",),
        "type": ("type", "class"),
        "Callable": ("callable", "function", "func"),
        "Iterable": ("iterable",),
        "Iterator": ("iterator",),
        "Generator": ("generator",),
        "Sequence": ("sequence",),
        "Collection": ("collection",),
    }.items()
    for word in words
}
_WORDS.update({"none": NONE, "any": ANY, "object": ANY, "anything": ANY})
_WORDS.update(dict.fromkeys(("array-like", "array_like", "arraylike"), _opaque("array-like")))

_ROLE = re.compile(r":(?:[\w-]+:)*[\w-]+:(?=`)")  # :class:, :py:obj:, ...
_OPTIONAL_NOTE = re.compile(r"\(\s*optional\s*\)", re.IGNORECASE)
_DEFAULT_NOTE = re.compile(r"\(\s*default\b[^)]*\)", re.IGNORECASE)
_DEFAULT = re.compile(r"(?:by\s+)?defaults?\b", re.IGNORECASE)
_IGNORED_CHUNK = re.compile(r"(?:keyword|positional)[- ]only", re.IGNORECASE)
# Words before a type that do not change which class it is.
_PREFIX = re.compile(
    r"((?:(?:a|an|the|either|optional|positive|negative|non-?negative|non-?positive"
    r"|non-?zero|non-?empty|strictly)\s+)+)(?=\S)",
    re.IGNORECASE,
)
_CONTAINER = re.compile(r"([A-Za-z_][\w-]*)\s+(?:of|from|mapping)\s+(\S.*)", re.IGNORECASE)
_OR = r"\s+or\s+|\|"
_KEY_VALUE = r"\s+(?:to|->)\s+|\s*:\s*"

_ITEM_CONTAINERS = {
    "list", "set", "frozenset", "deque", "Iterable", "Iterator", "Generator", "Collection",
    "Container", "Reversible", "Sequence", "MutableSequence", "AbstractSet", "MutableSet",
    "KeysView", "ValuesView", "AsyncIterable", "AsyncIterator", "AsyncGenerator",
}  # fmt: skip
_MAPPINGS = {"dict", "defaultdict", "OrderedDict", "ChainMap", "Mapping", "MutableMapping"}


@lru_cache(maxsize=_CACHE_SIZE)
def parse_doc_type(text: str) -> TypeExpr | None:
    """The type a docstring writes: annotation syntax or NumPy/Google/Sphinx prose."""
    try:
        return _parse_doc(text)
    except RecursionError:
        return None


def _parse_doc(text: str) -> TypeExpr | None:
    text = _ROLE.sub("", text).replace("`", "").replace("~", "")
    text = _DEFAULT_NOTE.sub("", _OPTIONAL_NOTE.sub(", optional", text))
    text = " ".join(text.split()).strip(" .")
    optional, alternatives, chunks = False, [], []
    # NumPy style: "int, optional", "bool, default True", and "int, str" for a union.
    for chunk in _split_top(text, ","):
        if _DEFAULT.match(chunk):
            break  # the default's value follows; it is not a type
        if chunk.lower() == "optional":
            optional = True
        elif chunk and not _IGNORED_CHUNK.fullmatch(chunk):
            chunks.append(chunk)
            alternatives.extend(_split_top(re.sub(r"^or\s+", "", chunk, flags=re.I), _OR))
    if len(set(alternatives)) < len(alternatives) and any(
        len(_split_top(chunk, _OR)) > 1 for chunk in chunks
    ):
        # "int, int or None, None": tuples as alternatives, or alternatives as members? A
        # type named twice is no union, and commas and "or" do not tell which binds first.
        return None
    if len(set(chunks)) < len(chunks):
        # "str, str" cannot mean a union of one type twice: it lists a tuple's members.
        return TypeExpr("tuple", tuple(_parse_doc(chunk) or _opaque(chunk) for chunk in chunks))
    result = _parse_alternatives(alternatives)
    if result is not None and optional:
        return _union([result, NONE])
    return result


def _parse_alternatives(parts: list[str]) -> TypeExpr | None:
    """Union of "A or B or C"; a container's element also takes the later alternatives,
    since "list of int or None" may mean either list[int | None] or list[int] | None."""
    parsed = [_parse_part(part, parts[i + 1 :]) for i, part in enumerate(parts)]
    found = [t for t in parsed if t is not None]
    return _union(found) if found else None


def _parse_part(text: str, later: list[str]) -> TypeExpr | None:
    text = text.strip()
    if not text:
        return None
    if prefix := _PREFIX.match(text):
        inner = _parse_part(text[prefix.end() :], later)
        if inner is not None and "optional" in prefix.group(1).lower():
            return _union([inner, NONE])
        return inner
    if text.startswith("{"):
        return _choices(text)
    if text.startswith("(") and text.endswith(")"):
        return _parenthesised(text[1:-1])
    if container := _CONTAINER.fullmatch(text):
        return _container(container.group(1), container.group(2), later, text)
    return _prose_word(text) or _parse_type_source(text, prose=True) or _opaque(text)


def _prose_word(word: str) -> TypeExpr | None:
    word = word.lower()
    for candidate in (word, *_singulars(word)):
        if candidate in _WORDS:
            return _WORDS[candidate]
    return None


def _singulars(word: str) -> list[str]:
    forms = []
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    return forms


def _container(word: str, rest: str, later: list[str], text: str) -> TypeExpr:
    """ "list of str", "tuple of int", "dict of str to int"; "array of ..." is opaque."""
    outer = _prose_word(word) or _parse_type_source(word, prose=True)
    if outer is None or outer.opaque or outer.name == "type":
        return _opaque(text)  # "type of the input": the same type as something, not a class
    if outer.name == "tuple":
        if rest.startswith("("):  # "tuple of (int, int)": pairs or the pair itself?
            return outer
        return TypeExpr("tuple", (_element(rest, later), _ELLIPSIS))
    if outer.name in _ITEM_CONTAINERS:
        return TypeExpr(outer.name, (_element(rest, later),))
    if outer.name in _MAPPINGS:
        key_value = _split_top(rest, _KEY_VALUE)
        if len(key_value) == 2:
            key = _parse_part(key_value[0], []) or _opaque(key_value[0])
            return TypeExpr(outer.name, (key, _element(key_value[1], later)))
    return outer


def _element(text: str, later: list[str]) -> TypeExpr:
    return _parse_alternatives([text, *later]) or _opaque(text)


def _choices(text: str) -> TypeExpr:
    """ "{'fast', 'slow'}": the values' types."""
    node = _parse_eval(text)
    if not isinstance(node, ast.Set):
        return _opaque(text)
    return _union(_literal_type(elt) for elt in node.elts)


def _parenthesised(inner: str) -> TypeExpr | None:
    """ "(int, str)" is a tuple; "(int or None)" only groups."""
    items = _split_top(inner, ",")
    if len(items) == 1:
        return _parse_doc(inner)
    found = [_parse_doc(item) or _opaque(item) for item in items if item]
    return TypeExpr("tuple", tuple(found))


def _split_top(text: str, separator: str) -> list[str]:
    """Split at separator matches outside brackets and quotes."""
    top = _top_level_positions(text)
    pieces, start = [], 0
    for match in re.finditer(separator, text, re.IGNORECASE):
        if match.start() in top and match.start() >= start:
            pieces.append(text[start : match.start()].strip())
            start = match.end()
    pieces.append(text[start:].strip())
    return pieces


def _top_level_positions(text: str) -> set[int]:
    top, depth, quote = set(), 0, ""
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            top.add(i)
    return top


# --- expressions ----------------------------------------------------------------------


def _by_name(*groups: tuple[str, str]) -> dict[str, TypeExpr]:
    return {name: TypeExpr(result) for result, names in groups for name in names.split()}


_CALL_RESULTS = _by_name(
    ("bool", "bool isinstance issubclass callable hasattr all any"),
    ("int", "int len ord hash id"),
    ("str", "str repr chr ascii format hex oct bin"),
    ("float", "float"),
    ("complex", "complex"),
    ("list", "list sorted"),
    ("dict", "dict"),
    ("set", "set"),
    ("tuple", "tuple"),
    ("frozenset", "frozenset"),
    ("bytes", "bytes"),
    ("bytearray", "bytearray"),
    ("range", "range"),
)
# Methods that return their receiver's type.
_SAME_TYPE_METHODS = {
    "str": set("join format lower upper strip lstrip rstrip replace title capitalize".split()),
    "bytes": {"join", "lower", "upper", "strip", "lstrip", "rstrip", "replace"},
}
_NUMERIC_RANK = {"bool": 0, "int": 1, "float": 2, "complex": 3}
_SEQUENCES = {"str", "bytes", "list", "tuple"}


@lru_cache(maxsize=_CACHE_SIZE)
def type_of_expression(source: str) -> TypeExpr | None:
    """The type of an expression's value when the syntax alone makes it obvious."""
    node = _parse_eval(source)
    if node is None:
        return None
    try:
        return _expr_type(node)
    except RecursionError:
        return None


def _expr_type(node: ast.expr) -> TypeExpr | None:
    match node:
        case ast.Constant(value=value):
            return _constant_type(value)
        case ast.JoinedStr():
            return TypeExpr("str")
        case ast.List(elts=elts) | ast.Set(elts=elts):
            return _collection("list" if isinstance(node, ast.List) else "set", elts)
        case ast.Tuple(elts=elts):
            return _tuple(elts)
        case ast.Dict(keys=keys, values=values):
            return _dict(keys, values)
        case ast.ListComp():
            return TypeExpr("list")
        case ast.SetComp():
            return TypeExpr("set")
        case ast.DictComp():
            return TypeExpr("dict")
        case ast.GeneratorExp():
            return TypeExpr("Generator")
        case ast.Lambda():
            return TypeExpr("Callable")
        case ast.Compare() | ast.UnaryOp(op=ast.Not()):
            return TypeExpr("bool")
        case ast.UnaryOp(op=op, operand=operand):
            return _unary(op, _expr_type(operand))
        case ast.BoolOp(values=values):
            return _same([_expr_type(value) for value in values])
        case ast.IfExp(body=body, orelse=orelse):
            return _same([_expr_type(body), _expr_type(orelse)])
        case ast.BinOp(left=left, op=op, right=right):
            return _binary(op, _expr_type(left), _expr_type(right))
        case ast.Call(func=ast.Name(id=name)):
            return _CALL_RESULTS.get(name)
        case ast.Call(func=ast.Attribute(value=receiver, attr=method)):
            return _method(_expr_type(receiver), method)
    return None


def _same(found: list[TypeExpr | None]) -> TypeExpr | None:
    """The common type when every value has the same known one."""
    first = found[0]
    return first if first is not None and all(t == first for t in found) else None


def _collection(name: str, elts: list[ast.expr]) -> TypeExpr:
    if not elts or any(isinstance(elt, ast.Starred) for elt in elts):
        return TypeExpr(name)
    element = _same([_expr_type(elt) for elt in elts])
    return TypeExpr(name, (element,)) if element else TypeExpr(name)


def _tuple(elts: list[ast.expr]) -> TypeExpr:
    found = [t for t in map(_expr_type, elts) if t is not None]
    if not elts or len(found) < len(elts) or any(isinstance(elt, ast.Starred) for elt in elts):
        return TypeExpr("tuple")
    return TypeExpr("tuple", tuple(found))


def _dict(keys: list[ast.expr | None], values: list[ast.expr]) -> TypeExpr:
    if not keys or None in keys:  # empty, or has ** unpacking
        return TypeExpr("dict")
    key = _same([_expr_type(k) for k in keys if k is not None])
    value = _same([_expr_type(v) for v in values])
    return TypeExpr("dict", (key, value)) if key and value else TypeExpr("dict")


def _unary(op: ast.unaryop, operand: TypeExpr | None) -> TypeExpr | None:
    rank = _NUMERIC_RANK.get(operand.name) if operand else None
    if rank is None:
        return None
    if isinstance(op, ast.Invert):
        return TypeExpr("int") if rank <= 1 else None
    return TypeExpr(("int", "int", "float", "complex")[rank])  # +True is an int


def _binary(op: ast.operator, left: TypeExpr | None, right: TypeExpr | None) -> TypeExpr | None:
    if left is not None and left.name in ("str", "bytes") and isinstance(op, ast.Mod):
        return TypeExpr(left.name)  # %-formatting, whatever the right side is
    if left is None or right is None:
        return None
    if left.name in _NUMERIC_RANK and right.name in _NUMERIC_RANK:
        both_bool = left.name == right.name == "bool"
        return _numeric(op, max(_NUMERIC_RANK[left.name], _NUMERIC_RANK[right.name]), both_bool)
    if isinstance(op, ast.Add) and left.name == right.name and left.name in _SEQUENCES:
        return left if left == right else TypeExpr(left.name)
    if isinstance(op, ast.Mult):
        for seq, count in ((left, right), (right, left)):
            if seq.name in _SEQUENCES and count.name in ("int", "bool"):
                return TypeExpr(seq.name)
    return None


def _numeric(op: ast.operator, rank: int, both_bool: bool) -> TypeExpr | None:
    """Result of a numeric operator; ** is left out (2 ** -1 is a float)."""
    widest = TypeExpr(("int", "int", "float", "complex")[rank])
    if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and rank <= 1:
        return TypeExpr("bool") if both_bool else widest
    if isinstance(op, (ast.LShift, ast.RShift)) and rank <= 1:
        return widest
    if isinstance(op, (ast.Add, ast.Sub, ast.Mult)):
        return widest
    if isinstance(op, ast.Div):
        return TypeExpr("float") if rank <= 2 else widest
    if isinstance(op, (ast.FloorDiv, ast.Mod)) and rank <= 2:
        return widest
    return None


def _method(receiver: TypeExpr | None, method: str) -> TypeExpr | None:
    if receiver is not None and method in _SAME_TYPE_METHODS.get(receiver.name, ()):
        return TypeExpr(receiver.name)
    return None


# --- compatibility --------------------------------------------------------------------

# The annotation is the exact set of values: a value of these classes is of that class.
_CONCRETE = {
    name
    for name, cls in _CLASSES.items()
    if cls.__module__ in ("builtins", "collections") and not issubclass(cls, BaseException)
}
# Classes whose subclasses the docs may not name instead: documenting ``bool`` for an
# ``int`` is a mistake. A container's subclass is still that container (an ``OrderedDict``
# is a ``dict``), so containers are not closed.
_CLOSED = {
    name
    for name in _CONCRETE
    if not issubclass(_CLASSES[name], collections.abc.Container)
    or issubclass(_CLASSES[name], (str, bytes, bytearray))
}
_ABSTRACT = {
    name for name, cls in _CLASSES.items() if cls.__module__ in ("collections.abc", "numbers")
}
# Accepted where the key is expected although not subclasses (PEP 484 promotions).
_PROMOTIONS = {float: (int,), complex: (int, float), bytes: (bytearray, memoryview)}
_PROMOTED_NAMES = {
    key.__name__: tuple(c.__name__ for c in promoted) for key, promoted in _PROMOTIONS.items()
}
# Concrete classes that show two abstract classes can describe the same value.
_WITNESSES = [_CLASSES[name] for name in sorted(_CONCRETE)] + [
    types.GeneratorType,
    types.FunctionType,
    type({}.keys()),
    type({}.values()),
    type({}.items()),
    type(iter([])),
]


def contradicts(
    documented: TypeExpr | None, actual: TypeExpr | None, annotated: bool = False
) -> bool:
    """True only when no value described by ``documented`` can be of the ``actual`` type.
    An ``annotated`` type also admits what PEP 484 promotes to it: an ``int`` documented
    for a parameter annotated ``float`` is one of the values it takes (a value's own type,
    ``128e6``'s ``float``, admits no ``int``)."""
    if documented is None or actual is None:
        return False
    return not _compatible(documented, _admitted(actual) if annotated else actual)


def _admitted(annotation: TypeExpr) -> TypeExpr:
    """``annotation`` with each promoted class widened to the classes promoted to it."""
    admitted = TypeExpr(annotation.name, tuple(map(_admitted, annotation.args)), annotation.opaque)
    promoted = () if annotation.opaque else _PROMOTED_NAMES.get(annotation.name, ())
    return _union((admitted, *map(TypeExpr, promoted))) if promoted else admitted


def _compatible(doc: TypeExpr, actual: TypeExpr) -> bool:
    if _unknown(doc) or _unknown(actual):
        return True
    # Any member pair fitting is enough: docs often leave out None, annotations widen.
    if actual.name == _UNION:
        return any(_compatible(doc, member) for member in actual.args)
    if doc.name == _UNION:
        return any(_compatible(member, actual) for member in doc.args)
    return _classes_compatible(doc.name, actual.name) and _arguments_compatible(doc, actual)


def _unknown(t: TypeExpr) -> bool:
    return t.opaque or (t.name not in _CLASSES and t.name != _UNION)


@cache  # keyed by pairs of the few hundred known names
def _classes_compatible(doc_name: str, actual_name: str) -> bool:
    doc, actual = _CLASSES[doc_name], _CLASSES[actual_name]
    if issubclass(actual, doc) or any(issubclass(actual, p) for p in _PROMOTIONS.get(doc, ())):
        return True
    if actual_name in _CLOSED:
        return False
    if issubclass(doc, actual):  # the annotation is looser than the docs
        return True
    if doc_name in _ABSTRACT and actual_name in _ABSTRACT:
        return any(issubclass(w, doc) and issubclass(w, actual) for w in _WITNESSES)
    return False


def _arguments_compatible(doc: TypeExpr, actual: TypeExpr) -> bool:
    """Element types, compared only when both sides give them in the same shape."""
    doc_view, actual_view = _element_view(doc), _element_view(actual)
    if doc_view is None or actual_view is None or doc_view[0] != actual_view[0]:
        return True
    if len(doc_view[1]) != len(actual_view[1]):
        return doc_view[0] != "tuple"  # fixed tuples of different lengths never match
    return all(_compatible(d, a) for d, a in zip(doc_view[1], actual_view[1]))


def _element_view(t: TypeExpr) -> tuple[str, tuple[TypeExpr, ...]] | None:
    """(shape, element types): "items" for one element type, "mapping" for key and
    value, "tuple" for a fixed-length tuple, "type" for type[X]."""
    if not t.args:
        return None
    if t.name == "tuple":
        if len(t.args) == 2 and t.args[1] == _ELLIPSIS:
            return "items", t.args[:1]
        return None if _ELLIPSIS in t.args else ("tuple", t.args)
    if t.name in _ITEM_CONTAINERS:
        return "items", t.args[:1]  # a Generator's first argument is what it yields
    if t.name == "Counter":
        return "mapping", (t.args[0], TypeExpr("int"))
    if t.name in _MAPPINGS and len(t.args) == 2:
        return "mapping", t.args
    if t.name == "type":
        return "type", t.args
    return None


# --- rendering ------------------------------------------------------------------------


def describe(t: TypeExpr) -> str:
    """Short rendering for messages: "int | None", "list[str]", "Callable[[int], str]"."""
    if t.name == _UNION:
        return " | ".join(describe(member) for member in t.args)
    inner = ", ".join(describe(arg) for arg in t.args)
    if t.name == _PARAMS:
        return f"[{inner}]"
    return f"{t.name}[{inner}]" if t.args else t.name
