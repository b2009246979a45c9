import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docfact.model import DocEntry, Docstring, DocstringText, Field, Segment, Span
from docfact.source.segment import segments, split_sentences


def sentences(text: str) -> list[str]:
    spans = split_sentences(text)
    for start, end in spans:
        assert text[start:end] == text[start:end].strip() != ""
    return [text[start:end] for start, end in spans]


@pytest.mark.parametrize(
    "expected",
    [
        # Abbreviations mid-sentence never end it.
        ["Accepts any iterable, e.g. a list, i.e. anything.", "Returns a set."],
        ["Use e.g. Python here.", "Then go."],
        ["Use i.e. ``None`` here."],
        ["Compare a vs. b, cf. the docs."],
        ["Mr. Smith and Dr. Who met.", "Fig. 3 shows approx. 5 items."],
        ["As Smith et al. show, it works.", "Next."],
        # "etc." ends the sentence when a capital follows, not otherwise.
        ["Lists, tuples, and so on, etc.", "Next sentence."],
        ["Lists, tuples, etc., and sets.", "Done."],
        ["Lists, tuples, etc. are accepted."],
        ["Containers (lists, etc.) work.", "Ok."],
        ["Sequences, etc.", "`Foo` too."],
        ["Lists, tuples, etc."],
        # A single letter is a variable, not an initial.
        ["Return the norm of x.", "The result is positive."],
        # Inline code.
        ["Call ``foo.bar()`` now.", "Next."],
        ["Call ``x. Y`` now.", "Next."],
        ["Use `a. B` here.", "Next."],
        ["See :func:`os.path.join`.", "Next."],
        ["Pass ``f(x.)`` or ``'a.' + b``.", "Done."],
        ["Use ` to quote.", "Then go."],
        # Dotted names and calls.
        ["Uses os.path.join and np.array here.", "Then self.x is set."],
        ["Calls foo.bar() and then more text.", "End."],
        ["Imports foo.* and x.[0] here.", "End."],
        # Versions, file names, URLs, decimals.
        ["Needs Python 3.10 or v2.0.1.", "Fine."],
        ["Added in version 3.", "Then changed."],
        ["Edit setup.py, config.yaml or __init__.py.", "Then run."],
        ["See https://example.com/a.b?c=1&d=e.f for more.", "Next."],
        ["See <https://x.org/a.html>.", "Next."],
        ["A ratio of 0.5 or .25 is fine.", "Next."],
        # Ellipses.
        ["Wait a... bit more.", "Next."],
        ["Returns Tuple[int, ...] or f(...).", "Next."],
        # Other terminators and closing punctuation.
        ["Is it?", "Yes!", "Really?!", "Done."],
        ["(See foo.)", "Next one."],
        ['He said "hi."', "Then left."],
        # Unicode.
        ["Returns 日本語 text.", "Emoji 🎉 are fine!", "ok"],
        ["中文没有空格。也可以"],
        ["No final period"],
    ],
)
def test_split_sentences(expected):
    assert sentences(" ".join(expected)) == expected


@pytest.mark.parametrize("text", ["", " ", "   \n\t \n"])
def test_blank_text_has_no_sentences(text):
    assert split_sentences(text) == []


def test_spans_are_trimmed():
    assert split_sentences("  Padded.  \n") == [(2, 9)]


def test_multiline_sentence_keeps_newlines_and_indentation():
    text = "This is a long\n    sentence that wraps. And\n    another one"
    assert split_sentences(text) == [(0, 39), (40, 59)]
    assert sentences(text) == [
        "This is a long\n    sentence that wraps.",
        "And\n    another one",
    ]


def test_blank_line_is_a_hard_break():
    text = "First paragraph without period\n\n  \nSecond one. Third"
    assert split_sentences(text) == [(0, 30), (35, 46), (47, 52)]


def test_bullet_items_start_sentences():
    text = (
        "Options:\n"
        "    - item one. More.\n"
        "    * item two\n"
        "      continued\n"
        "1. first. x\n"
        "2) second\n"
        "(a) alpha\n"
        "b) beta\n"
        "#. auto"
    )
    assert sentences(text) == [
        "Options:",
        "- item one.",
        "More.",
        "* item two\n      continued",
        "1. first.",
        "x",
        "2) second",
        "(a) alpha",
        "b) beta",
        "#. auto",
    ]


def test_exact_spans():
    text = "Use e.g. ``os.path``. Then stop!  Done"
    assert split_sentences(text) == [(0, 21), (22, 32), (34, 38)]


def _docstring(value: str, **parts) -> Docstring:
    text = DocstringText(value, tuple(range(len(value))), Span(0, len(value)))
    return Docstring(style="google", text=text, **parts)


def _field(value: str, part: str) -> Field:
    start = value.index(part)
    return Field(part, start, start + len(part))


def test_segments_roles_order_and_offsets():
    value = (
        "Summary line. Second sentence.\n"
        "\n"
        "More prose, e.g. here. Last.\n"
        "\n"
        "Args:\n"
        "    x: The x value.\n"
        "        More about x.\n"
        "\n"
        "Returns:\n"
        "    The result.\n"
    )
    summary = _field(value, "Summary line. Second sentence.")
    prose = _field(value, "More prose, e.g. here. Last.")
    x_desc = Field(" The x value.\n        More about x.\n", 74, 110)
    assert value[74:110] == x_desc.text
    returns_desc = _field(value, "The result.\n")
    x_entry = DocEntry("param", _field(value, "x"), None, x_desc, "Args")
    returns_entry = DocEntry("returns", None, None, returns_desc, "Returns")
    doc = _docstring(
        value,
        summary=summary,
        prose=(summary, prose),
        entries=(returns_entry, x_entry),  # out of order on purpose
    )

    result = segments(doc)

    assert [(s.role, s.text) for s in result] == [
        ("summary", "Summary line."),
        ("summary", "Second sentence."),
        ("prose", "More prose, e.g. here."),
        ("prose", "Last."),
        ("param", "The x value.\n        More about x."),
        ("returns", "The result."),
    ]
    for segment in result:
        assert value[segment.start : segment.end] == segment.text
    description = "The x value.\n        More about x."
    assert result[4] == Segment(description, 75, 109, "param", x_entry)
    assert result[5].entry is returns_entry
    assert all(s.entry is None for s in result[:4])


def test_segments_first_prose_that_is_not_the_summary_is_prose():
    value = "Just prose. Here."
    prose = Field(value, 0, len(value))
    doc = _docstring(value, summary=None, prose=(prose,), entries=())
    assert [s.role for s in segments(doc)] == ["prose", "prose"]


def test_segments_skip_blank_descriptions_and_code_blocks():
    value = "Intro. Example:\n\n>>> f(1). 2\n1\n\nAfter code. End."
    prose = Field(value, 0, len(value))  # a careless parser left the doctest in
    code = _field(value, ">>> f(1). 2\n1")
    blank = DocEntry("raises", Field("ValueError", 0, 10), None, Field("  ", 5, 7))
    doc = _docstring(value, summary=None, prose=(prose,), entries=(blank,), code_blocks=(code,))
    result = segments(doc)
    assert [s.text for s in result] == ["Intro.", "Example:", "After code.", "End."]
    for segment in result:
        assert value[segment.start : segment.end] == segment.text
        assert segment.end <= code.start or segment.start >= code.end


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("aZ .?!,;:`()[]\"'-*#1\n\t\u3002é🎉_/")) | st.characters(),
        max_size=120,
    )
)
def test_split_sentences_spans_are_ordered_and_in_bounds(text):
    previous_end = 0
    for start, end in split_sentences(text):
        assert previous_end <= start < end <= len(text)
        assert text[start:end] == text[start:end].strip()
        previous_end = end
