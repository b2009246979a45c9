"""What to feed a function under differential testing: one strategy spec per parameter,
from its annotation, its default value and how the body uses it.

A spec is plain JSON (it crosses into the sandbox, where ``_driver.py`` turns it into a
hypothesis strategy): {"t": "int"}, {"t": "list", "of": spec}, {"t": "dict", "k": spec,
"v": spec}, {"t": "tuple", "items": [spec, ...]}, {"t": "one_of", "of": [spec, ...]},
{"t": "half", "of": [spec, spec]} (the first half the time: the types an ``isinstance``
test names, an object having the attributes the body reads), {"t": "literal", "src": "repr
of a default"}, {"t": "choice", "src": "repr of a tuple of values"} (the literals the body
compares the parameter with: a ``method`` that must be one of three names gets those
names, not only random text); leaf kinds are int, float, number, bool, str, bytes, none,
sized, any, callable (a few functions: for a parameter the body calls or tests with
``callable``), shaped (text of the shapes the body looks for, ``shapes.py``).
"""

from __future__ import annotations

import ast

INT, FLOAT, NUMBER, BOOL, STR = ({"t": t} for t in ("int", "float", "number", "bool", "str"))
BYTES, NONE, SIZED, ANY = ({"t": t} for t in ("bytes", "none", "sized", "any"))
CALLABLE = {"t": "callable"}
SHAPED = {"t": "shaped"}  # text of the shapes the body looks for (``shapes.py``), else any

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
# ``pattern.sub("", text)``, ``WORDS.split(text)``: what a compiled pattern reads is text.
_REGEX_METHODS = {"match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
# Untyped parameters the body says nothing about: their names usually do.
_TEXT_NAMES = {"text", "string", "s", "line", "word", "name", "prefix", "suffix", "sep", "path"}
_TEXT_NAMES |= {"char", "pattern", "source", "value_str", "label", "title", "key", "fmt", "url"}
_INT_NAMES = {"n", "count", "width", "size", "index", "i", "j", "k", "num", "length", "start"}
_INT_NAMES |= {"end", "stop", "level", "depth", "offset", "pos", "year", "month", "day"}
_TEXT_LIST_NAMES = {"words", "lines", "chunks", "names", "strings", "parts", "tokens", "args"}
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
            if not is_text_key and element is None and _read_as_text(parent, parents):
                element = STR  # ``chunks[-1].strip()``: a sequence of text
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
            if _read_as_text(node, parents):
                votes.add("str")
            elif callee == "range":
                votes.add("int")
            elif callee in _NUMERIC_CALLS or (
                isinstance(parent.func, ast.Attribute) and _tail(parent.func.value) == "math"
            ):
                votes.add("number")
            elif callee in ("min", "max") and len(parent.args) > 1:
                votes.add("number")  # ``min(value, high)``: compared with its peers
            elif callee in _SIZED_CALLS:
                votes.add("sized")
        elif isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            votes.add("sized")
            target = parent.target
            if isinstance(target, ast.Name) and depth == 0:
                element = usage_spec(target.id, function, depth + 1)
    votes.discard("")
    return _from_votes(votes, element)


def _read_as_text(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the body treats the value of ``node`` as text: calls a str method on it,
    compares it with a string, or hands it to a pattern's method (``re.sub``, ``WORD.split``)."""
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return parent.attr in _STR_METHODS
    if isinstance(parent, ast.Compare):
        others = [parent.left, *parent.comparators]
        return any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in others)
    return (
        isinstance(parent, ast.Call)
        and node in parent.args
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr in _REGEX_METHODS
    )


def name_spec(name: str) -> dict | None:
    """A spec from the parameter's name alone (``text``, ``width``, ``lines``), for one
    the annotation and the body say nothing about."""
    bare = name.lstrip("_").lower()
    if bare in _TEXT_NAMES or bare.endswith(("_text", "_name", "_str", "_prefix")):
        return STR
    if bare in _INT_NAMES or bare.endswith(("len", "count", "_index", "size", "width")):
        return INT
    if bare in _TEXT_LIST_NAMES or bare.endswith(("_lines", "_words", "_chunks", "_names")):
        return {"t": "list", "of": STR}
    return None


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


MAX_CHOICES = 24  # literal values kept per parameter


def compared_values(name: str, function: ast.AST) -> list[object]:
    """The literal values the body compares ``name`` with (``name == "fast"``, ``name in
    ("a", "b")``, ``{"low": 1}[name]``), numbers with their neighbours (``n > 10``: 9, 10,
    11), so inputs reach the branches those comparisons guard."""
    found: list[object] = []

    def add(node: ast.expr) -> None:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for element in node.elts:
                add(element)
            return
        if isinstance(node, ast.Constant) and _plain(node.value) and node.value not in found:
            found.append(node.value)
            if isinstance(node.value, int) and not isinstance(node.value, bool):
                found.extend(v for v in (node.value - 1, node.value + 1) if v not in found)

    def is_name(node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    for node in ast.walk(function):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(is_name(side) for side in sides):
                for side in sides:
                    add(side)
        elif (
            isinstance(node, ast.Subscript)
            and is_name(node.slice)
            and isinstance(node.value, ast.Dict)
        ):
            for key in node.value.keys:
                if key is not None:
                    add(key)
    return found[:MAX_CHOICES]


def compared_attributes(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
) -> list[tuple[ast.Compare, str, str]]:
    """(comparison, attribute, name of ``self``) for each attribute of ``self`` a method's
    comparisons read (``self.debug >= 1``, ``self.max_lines is None``)."""
    positional = [*function.args.posonlyargs, *function.args.args]
    if not positional:
        return []
    owner = positional[0].arg
    return [
        (node, side.attr, owner)
        for node in ast.walk(function)
        if isinstance(node, ast.Compare)
        for side in [node.left, *node.comparators]
        if isinstance(side, ast.Attribute)
        and isinstance(side.value, ast.Name)
        and side.value.id == owner
    ]


def state_values(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[list]:
    """[attribute, repr of a value] pairs for the attributes of ``self`` a method compares with
    literals (``self.debug >= 1``: 0, 1, 2), so that instances are also tried in the states
    those comparisons guard, which the constructor may never set."""
    found: list[list] = []
    for node, attribute, owner in compared_attributes(function):
        for value in compared_values(attribute, _as_names(node, owner)):
            if [attribute, repr(value)] not in found:
                found.append([attribute, repr(value)])
    return found[:MAX_CHOICES]


def _as_names(compare: ast.Compare, owner: str) -> ast.Compare:
    """``compare`` with each ``owner.attr`` read as the bare name ``attr``."""

    class Bare(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if isinstance(node.value, ast.Name) and node.value.id == owner:
                return ast.copy_location(ast.Name(id=node.attr, ctx=ast.Load()), node)
            return self.generic_visit(node)

    copied = ast.parse(ast.unparse(compare), mode="eval").body
    result = Bare().visit(copied)
    assert isinstance(result, ast.Compare)
    return result


def isinstance_types(name: str, function: ast.AST) -> list[str]:
    """The types the body tests ``name`` against (``isinstance(value, dt.timedelta)``,
    ``isinstance(b, (int, Fraction))``), as source text: the branch each guards is reached
    only by a value of that type, which nothing else would draw."""
    return [t for t in _tested_types(name, function) if t not in _NAMED][:MAX_CHOICES]


def isinstance_leaves(name: str, function: ast.AST) -> list[dict]:
    """The specs of the built-in types the body tests ``name`` against
    (``isinstance(numerator, str)`` in a constructor that otherwise takes numbers: text,
    which its parser's branch needs)."""
    found: list[dict] = []
    for text in _tested_types(name, function):
        spec = _NAMED.get(text)
        if spec is not None and spec != ANY and spec not in found:
            found.append(spec)
    return found


def _tested_types(name: str, function: ast.AST) -> list[str]:
    """The types ``isinstance(name, ...)`` tests in the body, as source text."""
    found: list[str] = []
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and _tail(node.func) == "isinstance"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == name
        ):
            kinds = node.args[1]
            for kind in kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]:
                if isinstance(kind, (ast.Name, ast.Attribute)):
                    text = ast.unparse(kind)
                    if text not in found:
                        found.append(text)
    return found


def is_called(name: str, function: ast.AST) -> bool:
    """Whether the body calls ``name`` or tests it with ``callable(name)`` (a decorator used
    bare, ``@lru_cache``, gets the function as its ``maxsize``)."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id == name:
            return True
        if (
            _tail(node.func) == "callable"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == name
        ):
            return True
    return False


def is_matched(name: str, function: ast.AST) -> bool:
    """Whether the body matches ``name`` against a regular expression
    (``_RATIONAL_FORMAT.match(numerator)``, ``re.sub(p, "", text)``): it is text of the
    pattern's shape the body is written for, which random text seldom is."""
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _REGEX_METHODS
            and any(isinstance(a, ast.Name) and a.id == name for a in node.args)
            and _tail(node.func.value) not in ("str", "bytes")
        ):
            return True
    return False


def attributes_read(name: str, function: ast.AST) -> list[str]:
    """The data attributes the body reads from ``name`` (``a._numerator``, ``b.denominator``;
    not the methods of text, lists and dicts, nor what it calls): the sandbox draws
    instances of the module's classes that have them all."""
    common = _STR_METHODS | _LIST_METHODS | _DICT_METHODS | _REGEX_METHODS
    called = {id(node.func) for node in ast.walk(function) if isinstance(node, ast.Call)}
    found: list[str] = []
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and isinstance(node.ctx, ast.Load)
            and id(node) not in called
            and node.attr not in common
            and not node.attr.startswith("__")
            and node.attr not in found
        ):
            found.append(node.attr)
    return found[:MAX_CHOICES]


def _names_a_function(default: ast.expr | None) -> bool:
    """Whether a default names what is most likely a function: a lowercase name or dotted
    name (``time.monotonic``, ``keys.hashkey``), not a constant (``DEFAULT_SIZE``)."""
    if not isinstance(default, (ast.Name, ast.Attribute)):
        return False
    name = _tail(default)
    return name.islower() and not name.startswith("__")


def _plain(value: object) -> bool:
    """A value whose repr reads back as itself (it crosses into the sandbox as text)."""
    return value is None or (
        isinstance(value, (bool, int, float, str, bytes))
        and not (isinstance(value, float) and value != value)
    )


def parameter_specs(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict]:
    """[{"name", "keyword": bool, "optional": bool, "spec", "hint"}] for every parameter
    the caller must or may pass (``*args`` and ``**kwargs`` are left empty; so are the
    private parameters with a default, ``_w=WHITESPACE.match``, which only the function
    itself sets); ``optional`` ones have a default and may be passed by name, so the
    driver leaves them out at times (a changed default is a changed behaviour); ``hint``
    is true when the annotation names a type the spec cannot build (the sandbox resolves
    it, when it runs the function in its module)."""
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
        optional = default is not None and arg not in args.posonlyargs
        keyword = keyword or skipped or optional  # after a skipped one, passed by name
        spec = annotation_spec(arg.annotation) or usage_spec(arg.arg, function)
        named = name_spec(arg.arg) if arg.annotation is None and default is None else None
        if named is not None and (
            spec is None
            or (named["t"] == "list" and _is_listish(spec))
            or (named == STR and spec == NUMBER)
        ):
            spec = named  # a list the body indexes, ``prefix + line``: the name says what
        if _names_a_function(default):  # ``timer=time.monotonic``: another function too
            spec = _one_of([CALLABLE, spec or ANY])
        literal = default_spec(default)
        if literal is not None:
            spec = _one_of([literal, spec or literal["kind"]])
        values = compared_values(arg.arg, function)
        if values:
            spec = _one_of([{"t": "choice", "src": repr(tuple(values))}, spec or ANY])
        tested = isinstance_types(arg.arg, function)
        tested_specs: list[dict | None] = [{"t": "types", "src": tested}] if tested else []
        tested_specs += isinstance_leaves(arg.arg, function)
        tested_spec = _one_of(tested_specs) if tested_specs else None
        if tested_spec is not None:  # each type tested is a branch: half the values are one
            spec = {"t": "half", "of": [tested_spec, spec or ANY]}
        if is_called(arg.arg, function):
            spec = _one_of([CALLABLE, spec or ANY])
        read = attributes_read(arg.arg, function)
        if read:  # half the time an object having them: the body is written for one
            spec = {"t": "half", "of": [{"t": "attrs", "names": read}, spec or ANY]}
        if is_matched(arg.arg, function):  # ``_RATIONAL_FORMAT.match(numerator)``
            spec = {"t": "half", "of": [SHAPED, spec or STR]}
        hint = arg.annotation is not None and not names_only_known_types(arg.annotation)
        found.append(
            {
                "name": arg.arg,
                "keyword": keyword,
                "optional": optional,
                "spec": spec or ANY,
                "hint": hint,
            }
        )
    return found


def body_constants(function: ast.AST) -> dict[str, list]:
    """The text and integer literals of the function's body (its docstring left out) and of
    its defaults: the separators a parser splits on, the widths and limits it compares with.
    Text inputs are built from them too, as a fuzzer's dictionary is, integers tried beside
    them, and text and lists as long as each of them and its neighbours (``width=70``: a
    word of 70, 71 characters)."""
    texts: list[str] = []
    ints: list[int] = []
    body = getattr(function, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    arguments = getattr(function, "args", None)
    if arguments is not None:  # ``width=70``: a limit as much as one the body compares with
        body = [*arguments.defaults, *(d for d in arguments.kw_defaults if d), *body]
    for statement in body:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Constant):
                continue
            value = node.value
            if isinstance(value, str) and 0 < len(value) <= 40 and value not in texts:
                texts.append(value)
            elif isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**6:
                ints.extend(v for v in (value - 1, value, value + 1) if v not in ints)
    return {"str": texts[:MAX_CHOICES], "int": ints[: 3 * MAX_CHOICES]}


def varargs_spec(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict | None:
    """The spec of each extra positional argument, when the function takes ``*args`` and
    they can be given (no positional parameter before them has a default, which the
    driver passes by name)."""
    args = function.args
    if args.vararg is None or args.defaults:
        return None
    return annotation_spec(args.vararg.annotation) or ANY


def varkw_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Names to pass through ``**kwargs`` (none when the function takes no such thing):
    those the body reads from it (``kwargs["sep"]``, ``kwargs.get("sep")``), else two
    names nothing else uses, for a function that only forwards or keys on them."""
    if function.args.kwarg is None:
        return []
    name = function.args.kwarg.arg
    found: list[str] = []
    for node in ast.walk(function):
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript) and _tail(node.value) == name:
            key = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and _tail(node.func.value) == name
            and node.args
        ):
            key = node.args[0]
        text = key.value if isinstance(key, ast.Constant) else None
        if isinstance(text, str) and text.isidentifier() and text not in found:
            found.append(text)
    return found or ["docfact_a", "docfact_b"]


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


def _is_listish(spec: dict) -> bool:
    return spec["t"] == "list" or (
        spec["t"] == "one_of" and any(part["t"] == "list" for part in spec["of"])
    )


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
