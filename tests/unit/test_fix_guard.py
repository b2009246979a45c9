"""fix_guard: an edit is written only inside a docstring, and only when the code outside the
docstrings stays as it was (Python: the syntax tree; Java: the text outside comments)."""

import pytest

from docfact.fix_guard import refusal

PYTHON = '''\
"""Module docs."""

LIMIT = 3
"""How many."""


def add(a, b):
    """Return the süm of a and b."""
    return a + b
'''

JAVA = """\
class A {
    /** Returns the sum of {@code a} and {@code b}. */
    int add(int a, int b) { return a + b; }
    /// Markdown doc
    /// more
    int x;
}
"""


def edited(text, start, end, replacement):
    return text[:start] + replacement + text[end:]


def check(suffix, text, word, replacement):
    start = text.index(word)
    end = start + len(word)
    return refusal(suffix, text, [(start, end, replacement)], edited(text, start, end, replacement))


@pytest.mark.parametrize(
    "suffix, text, word, replacement",
    [
        (".py", PYTHON, "süm", "sum"),  # a character past ASCII before it on the line
        (".py", PYTHON, "How many", "How many at most"),  # an attribute's docstring
        (".py", PYTHON, "Module", "The module's"),
        (".java", JAVA, "sum", "total"),
        (".java", JAVA, "Markdown", "Plain"),  # a run of /// lines
    ],
)
def test_docstring_edits_pass(suffix, text, word, replacement):
    assert check(suffix, text, word, replacement) is None


@pytest.mark.parametrize(
    "suffix, text, word, replacement, reason",
    [
        (".py", PYTHON, "return a + b", "return a - b", "an edit at 9:5 is not inside a docstring"),
        (
            ".py",
            PYTHON,
            "of a and b.",
            'of a and b."""\n    import os\n    """',
            "the fixed text would change code outside the docstrings",
        ),
        (".py", PYTHON, "Return", '"""', "the fixed text would not parse"),
        (".java", JAVA, "class", "enum", "an edit at 1:1 is not inside a docstring"),
        (
            ".java",
            JAVA,
            "{@code b}.",
            "{@code b}. */ static { Runtime.getRuntime(); } /**",
            "the fixed text would change code outside the docstrings",
        ),
    ],
)
def test_edits_that_reach_code_are_refused(suffix, text, word, replacement, reason):
    assert check(suffix, text, word, replacement) == reason


def test_a_file_that_does_not_parse_now_is_not_fixed():
    text = "def f(:\n    '''Doc.'''\n"
    start = text.index("Doc")
    reason = refusal(
        ".py", text, [(start, start + 3, "Docs")], edited(text, start, start + 3, "Docs")
    )
    assert reason == "the file does not parse now (SyntaxError)"


def test_an_edit_whose_end_is_before_its_start_is_refused():
    start = PYTHON.index("Module")
    assert refusal(".py", PYTHON, [(start + 3, start, "x")], PYTHON) == (
        "an edit at 1:7 is not inside a docstring"
    )
