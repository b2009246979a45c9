import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docfact.model import DocEntry, Docstring, DocstringText, Span
from docfact.source.docstring import STYLES, detect_style, parse_docstring


def _text(value):
    n = len(value)
    return DocstringText(value=value, offsets=tuple(range(n)), literal=Span(0, n))


def _fields(doc: Docstring):
    yield doc.summary
    yield from doc.prose
    yield from doc.code_blocks
    for entry in doc.entries:
        yield entry.name
        yield entry.type
        yield entry.description


def assert_exact(doc: Docstring):
    """Every Field is the slice of the value it claims to be."""
    value = doc.text.value
    for field in _fields(doc):
        if field is not None:
            assert 0 <= field.start <= field.end <= len(value)
            assert value[field.start : field.end] == field.text


def parse(source, style="auto", clean=True):
    value = inspect.cleandoc(source) if clean else source
    doc = parse_docstring(_text(value), style)
    assert_exact(doc)
    return doc


def _t(field):
    return None if field is None else field.text


def entries(doc):
    return [(e.kind, _t(e.name), _t(e.type), _t(e.description), e.section) for e in doc.entries]


def prose(doc):
    return [f.text for f in doc.prose]


def code(doc):
    return [f.text for f in doc.code_blocks]


# --- Google -----------------------------------------------------------------------------


def test_google_args_with_types_and_multiline_descriptions():
    doc = parse(
        """Fetch rows.

        Longer explanation
        over two lines.

        Args:
            table (str): The table.
            limit (int, optional): How many rows
                to fetch at most.
            *args: Extra columns.
            **kwargs (dict[str, Any]): Filters.
            a, b: A pair.
            flag:
                Description on the next line.

        Returns:
            list of dict: The rows.
        """
    )
    assert doc.style == "google"
    assert _t(doc.summary) == "Fetch rows."
    assert prose(doc) == ["Fetch rows.", "Longer explanation\nover two lines."]
    assert entries(doc) == [
        ("param", "table", "str", "The table.", "Args"),
        ("param", "limit", "int, optional", "How many rows\n        to fetch at most.", "Args"),
        ("param", "args", None, "Extra columns.", "Args"),
        ("param", "kwargs", "dict[str, Any]", "Filters.", "Args"),
        ("param", "a", None, "A pair.", "Args"),
        ("param", "b", None, "A pair.", "Args"),
        ("param", "flag", None, "Description on the next line.", "Args"),
        ("returns", None, "list of dict", "The rows.", "Returns"),
    ]
    # Names skip the stars but point at the name itself.
    kwargs = doc.entries[3].name
    assert doc.text.value[kwargs.start - 2 : kwargs.start] == "**"
    # Several names share one description Field.
    assert doc.entries[4].description is doc.entries[5].description


def test_google_without_types_keyword_args_and_case_insensitive_headings():
    doc = parse(
        """Connect.

        ARGS:
            host: Where to connect.
        Keyword Arguments :
            timeout: Seconds to wait.
        Other Parameters:
            retries (int): Attempts.
        """
    )
    assert entries(doc) == [
        ("param", "host", None, "Where to connect.", "ARGS"),
        ("param", "timeout", None, "Seconds to wait.", "Keyword Arguments"),
        ("param", "retries", "int", "Attempts.", "Other Parameters"),
    ]
    assert prose(doc) == ["Connect."]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("int: The count.", ("int", "The count.")),
        ("Optional[int]: The count.", ("Optional[int]", "The count.")),
        ("str or None: The name.", ("str or None", "The name.")),
        ("dict[str, int] | None: Map.", ("dict[str, int] | None", "Map.")),
        ("The value: x.", (None, "The value: x.")),
        ("The count of rows.", (None, "The count of rows.")),
        ("int:\n    The count on the next line.", ("int", "The count on the next line.")),
        (":class:`Foo`: A foo.", (":class:`Foo`", "A foo.")),
    ],
)
def test_google_returns_type_only_when_it_looks_like_one(body, expected):
    indented = "\n".join("    " + line for line in body.split("\n"))
    doc = parse("Do it.\n\nReturns:\n" + indented, clean=False)
    [entry] = doc.entries
    assert entry.kind == "returns" and entry.name is None
    assert (_t(entry.type), _t(entry.description)) == expected


def test_google_returns_multiline_is_one_entry_and_yields():
    doc = parse(
        """Iterate.

        Yields:
            int: Each value,
                in order.
        Returns:
            Nothing useful
            at all.
        """
    )
    assert entries(doc) == [
        ("yields", None, "int", "Each value,\n        in order.", "Yields"),
        ("returns", None, None, "Nothing useful\n    at all.", "Returns"),
    ]


def test_google_raises_attributes_and_warns():
    doc = parse(
        """A class.

        Attributes:
            size (int): The size.
        Raises:
            ValueError: If bad.
            :exc:`KeyError`: If missing.
            OSError
        Warns:
            UserWarning: When odd.
        """
    )
    assert entries(doc) == [
        ("attribute", "size", "int", "The size.", "Attributes"),
        ("raises", "ValueError", None, "If bad.", "Raises"),
        ("raises", "KeyError", None, "If missing.", "Raises"),
        ("raises", "OSError", None, None, "Raises"),
        ("other", "UserWarning", None, "When odd.", "Warns"),
    ]


def test_google_prose_sections_examples_and_free_prose_after_sections():
    doc = parse(
        """Summary.

        Args:
            x: The x.

        Note:
            Handle with care.

        Example:
            Call it::

                f(1)

            >>> f(2)
            3

        See Also:
            other_function

        Closing remark.
        """
    )
    assert prose(doc) == ["Summary.", "Handle with care.", "Call it::", "Closing remark."]
    assert code(doc) == ["f(1)", ">>> f(2)\n    3"]
    assert entries(doc) == [("param", "x", None, "The x.", "Args")]


def test_google_unindented_continuation_extends_previous_entry():
    doc = parse(
        """Summary.

        Args:
            x: The x which is described
            over a badly indented line.
        """
    )
    description = "The x which is described\n    over a badly indented line."
    assert entries(doc) == [("param", "x", None, description, "Args")]


def test_google_heading_ends_summary_without_blank_line():
    doc = parse("Summary.\nArgs:\n    x: The x.")
    assert _t(doc.summary) == "Summary."
    assert entries(doc) == [("param", "x", None, "The x.", "Args")]


# --- NumPy ------------------------------------------------------------------------------


def test_numpy_parameters_returns_raises():
    doc = parse(
        """Compute things.

        Parameters
        ----------
        x, y : int, optional
            Coordinates,
            in pixels.
        *args
            Extra values.
        **kwargs : dict
            Options.
        name: str
            A name.

        Returns
        -------
        int
            The count.
        label : str
            The label.
        The remainder.

        Raises
        ------
        ValueError
            If bad.
        KeyError, IndexError
            If missing.

        Notes
        -----
        Some notes.

        See Also
        --------
        other : Does other things.

        References
        ----------
        .. [1] A paper.
        """
    )
    assert doc.style == "numpy"
    assert entries(doc) == [
        ("param", "x", "int, optional", "Coordinates,\n    in pixels.", "Parameters"),
        ("param", "y", "int, optional", "Coordinates,\n    in pixels.", "Parameters"),
        ("param", "args", None, "Extra values.", "Parameters"),
        ("param", "kwargs", "dict", "Options.", "Parameters"),
        ("param", "name", "str", "A name.", "Parameters"),
        ("returns", None, "int", "The count.", "Returns"),
        ("returns", "label", "str", "The label.", "Returns"),
        ("returns", None, None, "The remainder.", "Returns"),
        ("raises", "ValueError", None, "If bad.", "Raises"),
        ("raises", "KeyError", None, "If missing.", "Raises"),
        ("raises", "IndexError", None, "If missing.", "Raises"),
    ]
    assert prose(doc) == ["Compute things.", "Some notes."]


def test_numpy_yields_receives_warns_and_bare_none_return():
    doc = parse(
        """Generate.

        Returns
        -------
        None

        Yields
        ------
        int
            Numbers.

        Receives
        --------
        value : str
            Sent in.

        Warns
        -----
        UserWarning
            Sometimes.
        """
    )
    assert entries(doc) == [
        ("returns", None, "None", None, "Returns"),
        ("yields", None, "int", "Numbers.", "Yields"),
        ("other", "value", "str", "Sent in.", "Receives"),
        ("other", "UserWarning", None, "Sometimes.", "Warns"),
    ]


def test_numpy_examples_with_doctest_output_that_looks_like_an_underline():
    doc = parse(
        """Table.

        Examples
        --------
        Print it:

        >>> show()
        name
        ----
        x

        Parameters
        ----------
        rows : list
            The rows.
        """
    )
    assert prose(doc) == ["Table.", "Print it:"]
    assert code(doc) == [">>> show()\nname\n----\nx"]
    assert entries(doc) == [("param", "rows", "list", "The rows.", "Parameters")]


def test_numpy_unknown_heading_ends_a_section_and_is_not_prose():
    doc = parse(
        """Summary.

        Parameters
        ----------
        x : int
            The x.

        Background
        ==========
        Some history.
        """
    )
    assert entries(doc) == [("param", "x", "int", "The x.", "Parameters")]
    assert prose(doc) == ["Summary.", "Some history."]


def test_numpy_headings_need_a_three_character_underline():
    doc = parse("Summary.\n\nParameters\n--\nx : int", style="numpy", clean=False)
    assert doc.entries == ()


# --- Sphinx -----------------------------------------------------------------------------


def test_sphinx_fields_merge_types():
    doc = parse(
        """Send a message.

        More detail.

        :param int retries: How often
            to retry.
        :param message: The text.
        :type message: str
        :type timeout: float
        :param *args: Extra.
        :keyword verbose: Talk a lot.
        :returns: Whether it was sent.
        :rtype: bool
        :raises ValueError: If the text is empty.
        :raises: Anything else.
        :ivar sent: Count.
        :vartype sent: int
        """
    )
    assert doc.style == "sphinx"
    assert entries(doc) == [
        ("param", "retries", "int", "How often\n    to retry.", ":param"),
        ("param", "message", "str", "The text.", ":param"),
        ("param", "timeout", "float", None, ":type"),
        ("param", "args", None, "Extra.", ":param"),
        ("param", "verbose", None, "Talk a lot.", ":keyword"),
        ("returns", None, "bool", "Whether it was sent.", ":returns"),
        ("raises", "ValueError", None, "If the text is empty.", ":raises"),
        ("raises", None, None, "Anything else.", ":raises"),
        ("attribute", "sent", "int", "Count.", ":ivar"),
    ]
    assert prose(doc) == ["Send a message.", "More detail."]


def test_sphinx_type_before_param_and_rtype_alone():
    doc = parse(
        """Summary.

        :type x: list[int]
        :param x: Values.
        :rtype: int
        :ytype: str
        """
    )
    assert entries(doc) == [
        ("param", "x", "list[int]", "Values.", ":param"),
        ("returns", None, "int", None, ":rtype"),
        ("yields", None, "str", None, ":ytype"),
    ]


def test_sphinx_multiword_type_and_roles_in_types():
    doc = parse(
        """Summary.

        :param Dict[str, int] counts: The counts.
        :type flag: :class:`bool`
        :param flag: A flag.
        """
    )
    assert entries(doc) == [
        ("param", "counts", "Dict[str, int]", "The counts.", ":param"),
        ("param", "flag", ":class:`bool`", "A flag.", ":param"),
    ]


def test_sphinx_unknown_field_is_other_and_field_ends_paragraph():
    doc = parse("Summary.\n:meta private:\n:param x: The x.")
    assert _t(doc.summary) == "Summary."
    assert entries(doc) == [
        ("other", "private", None, None, ":meta"),
        ("param", "x", None, "The x.", ":param"),
    ]


# --- Epytext ----------------------------------------------------------------------------


def test_epytext_fields():
    doc = parse(
        """Open a file.

        @param path: Where it is.
        @type path: str
        @keyword mode: How to open.
        @return: The handle.
        @rtype: file
        @raise IOError: If it cannot.
        @ivar name: The name.
        @type name: str
        """
    )
    assert doc.style == "epytext"
    assert entries(doc) == [
        ("param", "path", "str", "Where it is.", "@param"),
        ("param", "mode", None, "How to open.", "@keyword"),
        ("returns", None, "file", "The handle.", "@return"),
        ("raises", "IOError", None, "If it cannot.", "@raise"),
        ("attribute", "name", "str", "The name.", "@ivar"),
    ]


# --- prose, code and reST markup -------------------------------------------------------


def test_plain_prose_with_doctest_literal_block_and_fence():
    doc = parse(
        """Summary line
        continues here.

        Use it like this::

            x = f()
            y = g(x)

        ::

            expanded form

        >>> f()
        1
        >>> g(
        ...     2)
        3
        Output until a blank line.

        ```python
        print("fenced")
        ```

        The end.
        """
    )
    assert doc.style == "plain"
    assert _t(doc.summary) == "Summary line\ncontinues here."
    assert prose(doc) == ["Summary line\ncontinues here.", "Use it like this::", "The end."]
    assert code(doc) == [
        "x = f()\n    y = g(x)",
        "expanded form",
        ">>> f()\n1\n>>> g(\n...     2)\n3\nOutput until a blank line.",
        '```python\nprint("fenced")\n```',
    ]
    assert doc.entries == ()


def test_directives():
    doc = parse(
        """Summary.

        .. versionadded:: 3.2

        .. note::
           Indented note text.

        .. warning:: Text on the directive line
           continues here.

        .. code-block:: python
           :linenos:

           x = 1

        .. deprecated:: 3.4
           Use something else.

        .. seealso:: :func:`other`

        .. _target:

        .. This is a comment
           over two lines.

        Final words.
        """
    )
    assert prose(doc) == [
        "Summary.",
        "Indented note text.",
        "Text on the directive line\n   continues here.",
        "Use something else.",
        "Final words.",
    ]
    assert code(doc) == ["x = 1"]


def test_titles_tables_and_transitions_are_not_prose():
    doc = parse(
        """Module summary.

        Usage
        =====

        =====  =====
        name   value
        =====  =====
        a      1
        =====  =====

        ----

        Text.
        """
    )
    assert prose(doc) == ["Module summary.", "Text."]


def test_unclosed_fence_runs_to_the_end():
    doc = parse("Summary.\n\n```\ncode\n\nmore code")
    assert prose(doc) == ["Summary."]
    assert code(doc) == ["```\ncode\n\nmore code"]


def test_summary_none_when_docstring_starts_with_a_section():
    doc = parse("Args:\n    x: The x.", clean=False)
    assert doc.summary is None
    assert prose(doc) == []
    assert entries(doc) == [("param", "x", None, "The x.", "Args")]


def test_code_before_summary():
    doc = parse(">>> f()\n1\n\nThen the summary.", clean=False)
    assert _t(doc.summary) == "Then the summary."


# --- style detection ------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, style",
    [
        ("Summary.\n\n:param x: The x.", "sphinx"),
        ("Summary.\n\n:returns: Something.", "sphinx"),
        ("Summary.\n\n:raises ValueError: Bad.", "sphinx"),
        ("Summary.\n\n@param x: The x.", "epytext"),
        ("Summary.\n\n@return: Something.", "epytext"),
        ("Summary.\n\nParameters\n----------\nx : int", "numpy"),
        ("Summary.\n\nReturns\n=======\nint", "numpy"),
        ("Summary.\n\nArgs:\n    x: The x.", "google"),
        ("Summary.\n\nRaises:\n    ValueError: Bad.", "google"),
        ("Summary.\n\nExamples:\n    >>> f()", "google"),
        ("Summary.\n\nSee :func:`f` and :class:`C`.", "plain"),
        ("Summary.\n\n.. code-block:: python\n   :linenos:\n\n   x = 1", "plain"),
        ("Summary.\n\nThe following Args: none.", "plain"),
        ("Just prose.", "plain"),
        ("", "plain"),
        # An entry section outweighs an earlier prose-only marker.
        ("Summary.\n\nNote:\n    Careful.\n\n:param x: The x.", "sphinx"),
        ("Summary.\n\nExamples\n--------\n>>> f()\n\nArgs:\n    x: The x.", "google"),
    ],
)
def test_detect_style(value, style):
    assert detect_style(value) == style
    assert parse(value, clean=False).style == style


def test_explicit_style_overrides_detection():
    doc = parse("Summary.\n\n:param x: The x.", style="plain", clean=False)
    assert doc.style == "plain"
    assert doc.entries == ()
    assert prose(doc) == ["Summary.", ":param x: The x."]


def test_unknown_style_is_a_caller_error():
    with pytest.raises(ValueError):
        parse_docstring(_text("x"), "markdown")


# --- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "\n\n\n",
        "\t\t\n \r\n",
        "Args:",
        "Summary.\n\nArgs:",
        "Summary.\n\nArgs:\n    ",
        "Args:\n    (int): no name",
        "Args:\n    x (int: unclosed",
        "Returns:\n    :",
        "Parameters\n----------",
        "Parameters\n----------\n : int",
        ":param:",
        ":param: no name",
        ":type:",
        ":rtype:",
        ":raises:",
        "@param",
        "@param:",
        "```",
        "``` unclosed\n\n  code",
        ".. ",
        "..",
        ".. code-block::",
        "::",
        "text::",
        ">>>",
        "...",
        "----",
        "=====\n=====",
        "Title\n",
        "\tArgs:\n\t\tx:\tthe x\n",
        "Summary.   \n\nArgs:   \n    x (int):  the x   \n",
        "Summary.\r\n\r\nArgs:\r\n    x (int): the x\r\n    y: the y\r\n\r\n"
        "Returns:\r\n    int: n\r\n",
        ":param x: a\r\n:type x: int\r\n",
        "Parameters\r\n----------\r\nx : int\r\n    The x.\r\n",
        "\x00\x0b\x0c\u2028\u00a0",
        "}{)(][:*@`>.",
    ],
)
@pytest.mark.parametrize("style", ("auto", *STYLES))
def test_bad_input_never_raises(value, style):
    doc = parse(value, style=style, clean=False)
    assert isinstance(doc, Docstring)
    assert all(isinstance(e, DocEntry) for e in doc.entries)


def test_windows_line_endings_are_trimmed_from_fields():
    doc = parse("Summary.\r\n\r\nArgs:\r\n    x (int): The x.\r\n    y: The y.\r\n", clean=False)
    assert _t(doc.summary) == "Summary."
    assert entries(doc) == [
        ("param", "x", "int", "The x.", "Args"),
        ("param", "y", None, "The y.", "Args"),
    ]


def test_half_typed_sections():
    assert parse("Summary.\n\nArgs:", clean=False).entries == ()
    assert prose(parse("Summary.\n\nArgs:", clean=False)) == ["Summary."]
    doc = parse("Summary.\n\nArgs:\n    x (int", clean=False)
    assert entries(doc) == [("param", None, None, "x (int", "Args")]
    doc = parse("Summary.\n\n:param", clean=False)
    assert prose(doc) == ["Summary.", ":param"]


_TOKENS = st.sampled_from(
    [
        "\n",
        "\n\n",
        "\r\n",
        " ",
        "    ",
        "\t",
        ":",
        "::",
        "*",
        "**",
        "(",
        ")",
        "[",
        "]",
        ",",
        "`",
        "x",
        "int",
        "Summary.",
        "Args:",
        "Returns:",
        "Raises:",
        "Note:",
        "Parameters",
        "Returns",
        "Examples",
        "----------",
        "======",
        ":param",
        ":type",
        ":rtype:",
        ":raises",
        "@param",
        "@type",
        "@return:",
        ">>> ",
        "... ",
        "```",
        ".. ",
        ".. note::",
        ".. code-block:: python",
        ":linenos:",
        "ValueError",
        " : ",
        " or ",
        "| None",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_TOKENS, st.text(max_size=4)), max_size=40).map("".join),
    st.sampled_from(("auto", *STYLES)),
)
def test_random_text_never_raises_and_fields_are_exact(value, style):
    doc = parse_docstring(_text(value), style)
    assert_exact(doc)
    assert doc.style in STYLES
    if doc.summary is not None:
        assert doc.prose[0] == doc.summary
