"""The tree-sitter source model: units, signatures, docstring offsets."""

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docfact.source.python import parse_module


def units(source):
    return {u.qualname: u for u in parse_module(source).units}


def test_kinds_and_qualified_names():
    found = units(
        '"""Module."""\n'
        "class A:\n"
        "    '''A.'''\n"
        "    def m(self): '''M.'''\n"
        "    @property\n"
        "    def p(self): '''P.'''\n"
        "    class Inner:\n"
        "        def deep(self): pass\n"
        "async def f():\n"
        "    '''F.'''\n"
        "    def nested(): '''N.'''\n"
        "    g = lambda: 1\n"
        "if True:\n"
        "    def conditional(): '''C.'''\n"
    )
    assert {q: u.kind for q, u in found.items()} == {
        "": "module",
        "A": "class",
        "A.m": "method",
        "A.p": "method",
        "A.Inner": "class",
        "A.Inner.deep": "method",
        "f": "function",
        "f.nested": "function",
        "conditional": "function",
    }
    assert found["A.p"].decorators == ("property",)
    assert found["f"].signature.is_async
    assert found["A.Inner.deep"].docstring is None


def test_signature_kinds_annotations_and_defaults():
    unit = units("def f(a, /, b: int = 1, *args: str, c, d: 'str' = 'x', **kw) -> list[int]: pass")[
        "f"
    ]
    params = [(p.name, p.kind, p.annotation, p.default) for p in unit.signature.parameters]
    assert params == [
        ("a", "positional_only", None, None),
        ("b", "regular", "int", "1"),
        ("args", "var_positional", "str", None),
        ("c", "keyword_only", None, None),
        ("d", "keyword_only", "'str'", "'x'"),
        ("kw", "var_keyword", None, None),
    ]
    assert unit.signature.returns == "list[int]"
    keyword_only = units("def g(*, x=2): pass")["g"].signature.parameters
    assert [(p.name, p.kind) for p in keyword_only] == [("x", "keyword_only")]


def test_body_facts():
    unit = units(
        "def f(x):\n"
        "    def inner():\n"
        "        return 'not mine'\n"
        "    if x:\n"
        "        return 1\n"
        "    if not x:\n"
        "        return\n"
        "    raise ValueError('bad')\n"
    )["f"]
    assert unit.return_values == ("1",)
    assert unit.has_bare_return
    assert unit.raises == ("ValueError",)
    assert not unit.is_generator
    assert units("def g():\n    yield 1\n")["g"].is_generator


@pytest.mark.parametrize(
    "literal",
    [
        '"""Plain."""',
        "'''Single quotes.'''",
        'r"""Raw \\n stays."""',
        'u"""Unicode prefix."""',
        '"""Escapes: \\t tab, \\x41, \\u00e9, \\N{BULLET}, \\\\ backslash."""',
        '"""Line \\\n    continuation."""',
        '"""\n    Indented\n\n        more\n    back\n    """',
        '"Single line."',
        '"""Émoji 😀 and CJK 漢字."""',
    ],
)
def test_docstring_value_and_offsets_match_python(literal):
    source = f"def f():\n    {literal}\n"
    docstring = units(source)["f"].docstring
    expected = inspect.cleandoc(eval(literal))
    assert docstring.value.expandtabs() == expected  # tabs inside lines are kept as tabs
    for index, ch in enumerate(docstring.value):
        # Every plain character maps to itself in the file; escapes map to their backslash.
        assert source[docstring.file_offset(index)] in (ch, "\\", "\n")


def test_f_strings_and_bytes_are_not_docstrings():
    found = units('def f():\n    f"""x {1}"""\n\ndef g():\n    b"""x"""\n')
    assert found["f"].docstring is None and found["g"].docstring is None


def test_crlf_source_offsets():
    source = 'def f():\r\n    """First.\r\n\r\n    Second line.\r\n    """\r\n'
    docstring = units(source)["f"].docstring
    assert docstring.value == "First.\n\nSecond line."
    start = docstring.value.index("Second")
    assert source[docstring.file_offset(start) : docstring.file_offset(start) + 6] == "Second"


def test_non_ascii_before_definition_keeps_string_offsets():
    source = '# é 😀 漢字\ndef f(x):\n    """Uses `x`."""\n'
    unit = units(source)["f"]
    assert source[unit.name_span.start : unit.name_span.end] == "f"
    start = unit.docstring.value.index("x")
    assert source[unit.docstring.file_offset(start)] == "x"


def test_syntax_errors_keep_the_units_that_parse():
    module = parse_module(
        "def good(a):\n    '''Good.'''\n    return a\n\n"
        "def broken(:\n    '''Broken.'''\n\n"
        "def also_good(b):\n    '''Also good.'''\n"
    )
    names = {u.qualname for u in module.units}
    assert module.has_errors
    assert {"good", "also_good"} <= names


def test_suppression_comment_on_def_line():
    found = units(
        "def f(x):  # docfact: ignore[DF101, df102]\n    pass\n"
        "def g(x):  # docfact: ignore\n    pass\n"
    )
    assert found["f"].suppressed == {"DF101", "DF102"}
    assert found["g"].suppressed == {"*"}


def test_names_used_by_a_unit_exclude_its_docstring():
    unit = units(
        "class C:\n    def m(self):\n        '''Mentions `ghost`.'''\n        return self.real\n"
    )["C.m"]
    assert "real" in unit.local_names and "real" in unit.attributes
    assert "ghost" not in unit.local_names


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("def f(x):\n '\"\\abc#:=()[]é😀\t\r")), max_size=200))
def test_any_text_parses_without_exceptions(text):
    module = parse_module(text)
    for unit in module.units:
        if unit.docstring:
            assert len(unit.docstring.offsets) == len(unit.docstring.value)
            assert all(
                0 <= unit.docstring.file_offset(i) < len(text)
                for i in range(len(unit.docstring.value))
            )
