import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docfact.checks.typeexpr import (
    TypeExpr,
    contradicts,
    describe,
    parse_annotation,
    parse_doc_type,
    type_of_expression,
)


def _render(t):
    return None if t is None else describe(t)


# --- annotations ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, expected",
    [
        ("int", "int"),
        ("Optional[int]", "int | None"),
        ("int | None", "int | None"),
        ("None | int | None", "None | int"),
        ("list[str]", "list[str]"),
        ("typing.List[str]", "list[str]"),
        ("t.List[str]", "list[str]"),
        ("Dict[str, Any]", "dict[str, Any]"),
        ('"MyClass"', "MyClass"),
        ('List["int"]', "list[int]"),
        ("Union[int, str]", "int | str"),
        ("Union[int, Union[str, None]]", "int | str | None"),
        ("Union[int, Any]", "Any"),
        ("Callable[[int], str]", "Callable[[int], str]"),
        ("Callable[..., int]", "Callable[..., int]"),
        ('Literal["a", "b"]', "str"),
        ("Literal[1, -2, None]", "int | None"),
        ("Literal[True]", "bool"),
        ("Literal[Color.RED]", "Color.RED"),
        ("Tuple[int, ...]", "tuple[int, ...]"),
        ("Tuple[int, str]", "tuple[int, str]"),
        ("collections.abc.Sequence[int]", "Sequence[int]"),
        ("collections.abc.Set[int]", "AbstractSet[int]"),
        ("typing.Set[int]", "set[int]"),
        ("FrozenSet[int]", "frozenset[int]"),
        ("Type[int]", "type[int]"),
        ("Text", "str"),
        ("AnyStr", "str | bytes"),
        ("DefaultDict[str, int]", "defaultdict[str, int]"),
        ("collections.OrderedDict", "OrderedDict"),
        ("np.ndarray", "np.ndarray"),
        ("np.ndarray[Any, np.dtype[np.float64]]", "np.ndarray[Any, np.dtype[np.float64]]"),
        ("None", "None"),
        ("object", "Any"),
        ("Annotated[int, Field(gt=0)]", "int"),
        ("ClassVar[int]", "int"),
        ("Final[str]", "str"),
        ("T", "T"),
        ("Optional", "Optional"),
        ("builtins.int", "int"),
        ("numbers.Real", "Real"),
        ("Dict[\n    str, int]", "dict[str, int]"),
    ],
)
def test_parse_annotation(source, expected):
    assert _render(parse_annotation(source)) == expected


@pytest.mark.parametrize(
    "source", ["", "x +", "x + 1", "int or None", "int, str", "1", "f(x)", "lambda: 0", "[int]"]
)
def test_parse_annotation_rejects_non_types(source):
    assert parse_annotation(source) is None


def test_opaque_names_are_marked():
    assert parse_annotation("Path").opaque
    assert parse_annotation("T").opaque
    assert not parse_annotation("List[int]").opaque


def test_annotation_mode_does_not_read_prose_words():
    assert parse_annotation("string").opaque


def test_types_are_hashable_and_equal_by_value():
    assert parse_annotation("List[int]") == parse_annotation("list[int]")
    assert len({parse_annotation("Optional[int]"), parse_annotation("int | None")}) == 1
    assert isinstance(hash(parse_annotation("Dict[str, int]")), int)


# --- docstring types ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("int", "int"),
        ("Optional[int]", "int | None"),
        ("int or None", "int | None"),
        ("None or str", "None | str"),
        ("int | None", "int | None"),
        ("int, optional", "int | None"),
        ("int (optional)", "int | None"),
        ("optional int", "int | None"),
        ("int or None, optional", "int | None"),
        ("list of str", "list[str]"),
        ("list of strings", "list[str]"),
        ("list of int or None", "list[int | None] | None"),
        ("list of list of int", "list[list[int]]"),
        ("dict of str to int", "dict[str, int]"),
        ("dict mapping str to int", "dict[str, int]"),
        ("dictionary from str to list of int", "dict[str, list[int]]"),
        ("mapping of str to int", "Mapping[str, int]"),
        ("dict of str", "dict"),
        ("dict[str, int]", "dict[str, int]"),
        ("iterable of str", "Iterable[str]"),
        ("sequence of float", "Sequence[float]"),
        ("tuple of int", "tuple[int, ...]"),
        ("tuple of (int, int)", "tuple"),
        ("(int, str)", "tuple[int, str]"),
        ("(int or None)", "int | None"),
        ("set of str", "set[str]"),
        ("generator of int", "Generator[int]"),
        ("str or list of str", "str | list[str]"),
        ("str, or list of str", "str | list[str]"),
        ("either str or bytes", "str | bytes"),
        ("{'a', 'b'}", "str"),
        ('{"fast", "slow"}', "str"),
        ("{'a', None}", "str | None"),
        ("{1, 2}", "int"),
        ("{'a', 'b'}, default 'a'", "str"),
        ("bool, default True", "bool"),
        ("int, default: 0", "int"),
        ("float, default=1.0", "float"),
        ("int, defaults to 0", "int"),
        ("int (default: 0)", "int"),
        ("str, default 'a, b'", "str"),
        ("int, keyword-only", "int"),
        ("callable", "Callable"),
        ("function", "Callable"),
        ("array-like", "array-like"),
        ("array_like", "array-like"),
        ("string", "str"),
        ("str", "str"),
        ("strings", "str"),
        ("integer", "int"),
        ("boolean", "bool"),
        ("bool", "bool"),
        ("float", "float"),
        ("number", "Number"),
        ("dict", "dict"),
        ("dictionary", "dict"),
        ("mapping", "Mapping"),
        ("list", "list"),
        ("tuple", "tuple"),
        ("set", "set"),
        ("bytes", "bytes"),
        ("None", "None"),
        ("any", "Any"),
        ("object", "Any"),
        (":class:`int`", "int"),
        (":obj:`str`", "str"),
        (":py:class:`~pathlib.Path`", "pathlib.Path"),
        ("`int`", "int"),
        ("``int``", "int"),
        ("~typing.Optional[int]", "int | None"),
        ("list of :class:`str`", "list[str]"),
        ("int, str", "int | str"),
        ("positive int", "int"),
        ("non-negative integer", "int"),
        ("a list of str", "list[str]"),
        ("str.", "str"),
        ("list[string]", "list[str]"),
        ("List[int], optional", "list[int] | None"),
        ("Path", "Path"),
        ("array of float", "array of float"),
        ("file-like object", "file-like object"),
        ("str of length 1", "str"),
    ],
)
def test_parse_doc_type(text, expected):
    assert _render(parse_doc_type(text)) == expected


@pytest.mark.parametrize("text", ["", "   ", "optional", ", optional", "default 0"])
def test_parse_doc_type_without_a_type(text):
    assert parse_doc_type(text) is None


@pytest.mark.parametrize("text", ["frobnicator", "the name of the file", "np.ndarray", "T"])
def test_unknown_doc_words_are_opaque(text):
    assert parse_doc_type(text).opaque


# --- expressions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, expected",
    [
        ("1", "int"),
        ("-1", "int"),
        ("1.5", "float"),
        ("1j", "complex"),
        ("'x'", "str"),
        ("f'{x}'", "str"),
        ("b'x'", "bytes"),
        ("True", "bool"),
        ("False", "bool"),
        ("None", "None"),
        ("[1, 2]", "list[int]"),
        ("[1, 'a']", "list"),
        ("[x, y]", "list"),
        ("[]", "list"),
        ("[*xs]", "list"),
        ("(1, 'a')", "tuple[int, str]"),
        ("(x, 1)", "tuple"),
        ("()", "tuple"),
        ("{'a': 1}", "dict[str, int]"),
        ("{'a': 1, 'b': 'c'}", "dict"),
        ("{**d}", "dict"),
        ("{}", "dict"),
        ("{1, 2}", "set[int]"),
        ("[x for x in y]", "list"),
        ("{x for x in y}", "set"),
        ("{x: 1 for x in y}", "dict"),
        ("(x for x in y)", "Generator"),
        ("lambda: 0", "Callable"),
        ("not x", "bool"),
        ("a < b", "bool"),
        ("x is y", "bool"),
        ("x in y", "bool"),
        ("isinstance(x, int)", "bool"),
        ("callable(x)", "bool"),
        ("hasattr(x, 'a')", "bool"),
        ("all(xs)", "bool"),
        ("any(xs)", "bool"),
        ("bool(x)", "bool"),
        ("len(x)", "int"),
        ("int(x)", "int"),
        ("ord(c)", "int"),
        ("str(x)", "str"),
        ("repr(x)", "str"),
        ("', '.join(xs)", "str"),
        ("'{}'.format(x)", "str"),
        ("str(x).lower()", "str"),
        ("b''.join(xs)", "bytes"),
        ("chr(65)", "str"),
        ("float(x)", "float"),
        ("list(x)", "list"),
        ("dict(a=1)", "dict"),
        ("set(x)", "set"),
        ("tuple(x)", "tuple"),
        ("sorted(x)", "list"),
        ("frozenset(x)", "frozenset"),
        ("bytes(x)", "bytes"),
        ("1 + 2", "int"),
        ("len(x) - 1", "int"),
        ("1 / 2", "float"),
        ("1 // 2", "int"),
        ("1 + 2.0", "float"),
        ("1.0 + 1j", "complex"),
        ("True + True", "int"),
        ("True & False", "bool"),
        ("1 | 2", "int"),
        ("'a' + 'b'", "str"),
        ("'a' * 3", "str"),
        ("'%s' % x", "str"),
        ("[1] + [2]", "list[int]"),
        ("-x", None),
        ("~1", "int"),
        ("2 ** 3", None),
        ("x + 1", None),
        ("1 if x else 2", "int"),
        ("1 if x else 'a'", None),
        ("a and b", None),
        ("1 or 2", "int"),
        ("'' or 'x'", "str"),
        ("x", None),
        ("x.y", None),
        ("f(x)", None),
        ("x.lower()", None),
        ("...", None),
        ("", None),
        ("1 +", None),
    ],
)
def test_type_of_expression(source, expected):
    assert _render(type_of_expression(source)) == expected


# --- contradictions -------------------------------------------------------------------


def _doc_vs_annotation(doc, annotation):
    return contradicts(parse_doc_type(doc), parse_annotation(annotation), annotated=True)


@pytest.mark.parametrize(
    "doc, annotation",
    [
        ("str", "int"),
        ("list of str", "list[int]"),
        ("float", "str | bytes"),
        ("bool", "int"),
        ("str", "bytes"),
        ("callable", "int"),
        ("function", "str"),
        ("tuple", "list"),
        ("list", "tuple"),
        ("None", "int"),
        ("int or None", "str"),
        ("int, optional", "str"),
        ("list of str", "Optional[List[int]]"),
        ("dict of str to int", "Dict[str, str]"),
        ("dict of str to int", "Dict[int, int]"),
        ("iterable of str", "List[int]"),
        ("Sequence[str]", "Tuple[int, ...]"),
        ("dict", "list"),
        ("Mapping", "list"),
        ("Iterable", "int"),
        ("list", "Mapping[str, int]"),
        ("number", "str"),
        ("(int, int)", "Tuple[int, int, int]"),
        ("type", "int"),
        ("Type[int]", "Type[str]"),
        ("str", "Literal[1, 2]"),
        ("Sequence", "Mapping"),
        ("list of list of int", "list[list[str]]"),
        ("Counter[str]", "Dict[str, str]"),
        ("Exception", "int"),
    ],
)
def test_contradictions(doc, annotation):
    assert _doc_vs_annotation(doc, annotation)


def test_a_values_own_type_admits_no_promotion():
    # ``128e6`` is a float: an entry that says int is contradicted by such a default value,
    # though not by a ``float`` annotation (which admits ints).
    assert contradicts(parse_doc_type("int"), type_of_expression("128e6"))
    assert not contradicts(parse_doc_type("int"), parse_annotation("float"), annotated=True)


@pytest.mark.parametrize(
    "doc, annotation",
    [
        ("int", "int"),
        ("int", "Optional[int]"),
        ("int or None", "int"),
        ("int, optional", "int"),
        ("int, optional", "Optional[int]"),
        ("str", "Union[int, str]"),
        ("str or int", "bytes | int"),
        ("list", "list[int]"),
        ("list of int", "list"),
        ("Sequence", "list"),
        ("Sequence[int]", "List[int]"),
        ("sequence of float", "list[int]"),
        ("list", "Sequence[int]"),
        ("list of int", "Sequence[int]"),
        ("iterable of int", "list[int]"),
        ("Iterable", "list"),
        ("Iterable", "tuple"),
        ("Iterable", "set"),
        ("Iterable", "dict"),
        ("Iterable", "str"),
        ("Iterable", "Generator[int, None, None]"),
        ("iterable of int", "Iterator[int]"),
        ("iterable of str", "Dict[str, int]"),
        ("Mapping", "dict"),
        ("Mapping", "Mapping"),
        ("Mapping", "OrderedDict"),
        ("Mapping", "DefaultDict[str, int]"),
        ("dict", "dict"),
        ("dict", "Mapping[str, int]"),
        ("dict", "collections.OrderedDict"),
        ("dict", "defaultdict"),
        ("dict of str to int", "Counter[str]"),
        ("mapping", "MutableMapping[str, int]"),
        ("float", "int"),
        ("float", "bool"),
        ("int", "bool"),
        ("complex", "int"),
        ("complex", "float"),
        # An annotation admits what PEP 484 promotes to its class: ints where floats go.
        ("int", "float"),
        ("int, optional", "Optional[float]"),
        ("list of int", "list[float]"),
        ("float", "complex"),
        ("bytearray", "bytes"),
        ("number", "int"),
        ("number", "float"),
        ("bytes", "bytearray"),
        ("callable", "Callable[[int], str]"),
        ("function", "Callable[..., Any]"),
        ("callable", "type"),
        ("str", 'Literal["a", "b"]'),
        ("{'a', 'b'}", "str"),
        ("None", "Optional[int]"),
        ("None", "None"),
        ("str", "Text"),
        ("str", "AnyStr"),
        ("any", "int"),
        ("object", "int"),
        ("int", "Any"),
        ("int", "object"),
        ("str", "Path"),
        ("int", "np.ndarray"),
        ("Path", "int"),
        ("MyClass", "str"),
        ("int", "T"),
        ("array-like", "int"),
        ("array_like", "str"),
        ("frobnicator", "int"),
        ("int", "Annotated[int, 'meta']"),
        ("tuple of int", "tuple[int, int]"),
        ("tuple of int", "tuple[int, ...]"),
        ("tuple", "Tuple[int, str]"),
        ("Sized", "Iterable[int]"),
        ("Collection", "Sequence"),
        ("Exception", "BaseException"),
        ("ValueError", "Exception"),
        ("type", "Type[int]"),
        ("Callable[[int], str]", "Callable[[str], int]"),
        ("str, the file name", "int"),
        ("list of str or int", "list[int]"),
        ("list of int or None", "None"),
        ("str or list of str", "list[str]"),
        ("str or list of str", "str"),
        ("positive int", "int"),
    ],
)
def test_not_contradictions(doc, annotation):
    assert not _doc_vs_annotation(doc, annotation)


@pytest.mark.parametrize(
    "doc, default, expected",
    [
        ("int", "0", False),
        ("int", "'a'", True),
        ("int, optional", "None", False),
        ("int", "None", True),
        ("float", "1", False),
        ("bool, default True", "True", False),
        ("bool", "1", True),
        ("str", "None", True),
        ("list of str", "['a', 'b']", False),
        ("list of str", "[1, 2]", True),
        ("tuple of int", "(1, 2)", False),
        ("(int, int)", "(1, 2, 3)", True),
        ("dict of str to int", "{'a': 1}", False),
        ("callable", "lambda x: x", False),
        ("str", "x", False),
        ("int", "x + 1", False),
    ],
)
def test_doc_against_default_value(doc, default, expected):
    assert contradicts(parse_doc_type(doc), type_of_expression(default)) is expected


def test_contradicts_with_missing_sides():
    assert not contradicts(None, parse_annotation("int"))
    assert not contradicts(parse_doc_type("str"), None)
    assert not contradicts(None, None)


def test_contradicts_accepts_hand_built_types():
    assert contradicts(TypeExpr("str"), TypeExpr("int"))
    assert not contradicts(TypeExpr("str"), TypeExpr("int", opaque=True))


# --- describe ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, expected",
    [
        ("Optional[int]", "int | None"),
        ("List[str]", "list[str]"),
        ("Dict[str, List[int]]", "dict[str, list[int]]"),
        ("Callable[[int, str], None]", "Callable[[int, str], None]"),
        ("Callable[[], None]", "Callable[[], None]"),
        ("list[int | None]", "list[int | None]"),
    ],
)
def test_describe(source, expected):
    assert describe(parse_annotation(source)) == expected


# --- properties -----------------------------------------------------------------------

_NAMES = st.sampled_from(
    ["int", "str", "float", "bool", "None", "Any", "bytes", "T", "Path", "np.ndarray",
     "List", "Dict", "Sequence", "Mapping", "Iterable", "Callable", "tuple", "Counter",
     "collections.abc.Set", "typing.Optional", "Union", "Literal", "Type", "AnyStr"]
)  # fmt: skip


def _subscript(children):
    return st.builds(
        lambda base, args: f"{base}[{', '.join(args)}]",
        _NAMES,
        st.lists(
            children | st.sampled_from(["...", "[int, str]", "'a'", "1"]), min_size=1, max_size=3
        ),
    )


_ANNOTATIONS = st.recursive(
    _NAMES,
    lambda children: (
        _subscript(children) | st.builds(lambda a, b: f"{a} | {b}", children, children)
    ),
    max_leaves=8,
)
_PROSE = st.lists(
    st.sampled_from(
        ["int", "str", "list of", "dict of", "to", "or", "None", ",", "optional",
         "default", "0", "{'a', 'b'}", "strings", "tuple of", "(int, str)", "positive",
         "iterable", "[", "]", "array-like", "`", ":class:", "~", "|", "of"]
    ),
    max_size=8,
).map(" ".join)  # fmt: skip


@settings(max_examples=300)
@given(st.text())
def test_random_text_never_raises(text):
    for parse in (parse_annotation, parse_doc_type, type_of_expression):
        result = parse(text)
        assert result is None or isinstance(describe(result), str)


@settings(max_examples=300)
@given(st.one_of(_ANNOTATIONS, _PROSE, st.text()))
def test_a_type_never_contradicts_itself(text):
    for parsed in (parse_annotation(text), parse_doc_type(text), type_of_expression(text)):
        if parsed is not None:
            assert not contradicts(parsed, parsed)


@settings(max_examples=300)
@given(st.one_of(_ANNOTATIONS, _PROSE))
def test_nothing_contradicts_an_unknown_actual(text):
    assert not contradicts(parse_doc_type(text), None)
    assert not contradicts(parse_annotation(text), None)


@settings(max_examples=200)
@given(_ANNOTATIONS, _ANNOTATIONS)
def test_annotations_never_raise_when_compared(doc, actual):
    assert contradicts(parse_doc_type(doc), parse_annotation(actual)) in (True, False)


@pytest.mark.parametrize(
    "text", ["(" * 300 + ")" * 300, "list of " * 2000 + "int", " | ".join(["int"] * 5000)]
)
def test_pathological_inputs(text):
    for parse in (parse_annotation, parse_doc_type, type_of_expression):
        parse(text)
