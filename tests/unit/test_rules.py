"""Every rule: what fires (on the smallest wrong span) and what must not."""

import textwrap

import pytest

from docfact.config import Settings
from docfact.engine import analyze, facts_of, resolve
from docfact.graph.build import ProjectGraph
from docfact.rule_settings import FileRules, suppressions


def check(source, select=(), ignore=(), project_names=frozenset(), preview=True):
    source = textwrap.dedent(source)
    # preview: the machinery of names that resolve nowhere, near miss or not
    settings = Settings(select=select, ignore=ignore, preview=preview)
    analysis = analyze(source, "sample.py", "sample", settings)
    shown = FileRules.of(settings, "sample.py", suppressions(analysis.module.units, "sample"))
    project = ProjectGraph()
    project.set_file(facts_of(analysis))
    if project_names:  # what other files of the project define
        project.set_file(
            {
                "module": "elsewhere",
                "path": "elsewhere.py",
                "package": False,
                "imports": [],
                "names": " ".join(project_names),
                "names_at_run_time": False,
                "units": [],
            }
        )
    return [
        (f.code, source[f.span.start : f.span.end], f)
        for f in shown.apply(resolve(analysis.findings, project))
    ]


def codes(source, **kwargs):
    return [(code, text) for code, text, _ in check(source, **kwargs)]


# What a user who selected DF102 (a preview rule) by its code sees without preview: its
# findings that stand on evidence, no unknown names.
EVIDENCE_ONLY = {"preview": False, "select": ("DF102",)}


# --- DF101 unknown-parameter -------------------------------------------------------------


def test_df101_google_entry_with_fix():
    found = check('''
        def restock(item, amount):
            """Add stock.

            Args:
                item: The item.
                ammount: How many.
            """
    ''')
    assert [(c, t) for c, t, _ in found] == [("DF101", "ammount")]
    finding = found[0][2]
    assert finding.criterion == "name"
    assert finding.fix.replacement == "amount"
    assert "did you mean `amount`" in finding.message
    assert finding.sentence.startswith("ammount")


@pytest.mark.parametrize(
    "docstring",
    [
        ":param int widht: Width.",
        "@param widht: Width.",
        "Parameters\n----------\nwidht : int\n    Width.",
    ],
)
def test_df101_other_styles(docstring):
    body = textwrap.indent(docstring, "    ")
    source = f'def f(width):\n    """Do it.\n\n{body}\n    """\n'
    assert codes(source) == [("DF101", "widht")]


def test_df101_not_for_kwargs_self_stars_or_class_fields():
    assert (
        codes('''
        def f(*args, **kwargs):
            """Pass through.

            Args:
                *args: Positional.
                timeout: Passed on through kwargs.
            """
    ''')
        == []
    )
    assert (
        codes('''
        class Point:
            """A point.

            Args:
                x: Abscissa.
                y: Ordinate.
            """
            x: int
            y: int
    ''')
        == []
    )
    assert codes('''
        class Widget:
            """A widget.

            Args:
                size: Size.
                colour: Colour.
            """
            def __init__(self, size, color):
                self.size = size
    ''') == [("DF101", "colour")]


def test_df101_not_for_an_underline_less_heading_or_the_type_of_an_ivar():
    assert codes('''
        def layout(G, seed=None):
            """Lay it out.

            Parameters
            ----------
            G : graph
            sed : int

            References
            .. [1] A paper.
            """
    ''') == [("DF101", "sed")]
    assert codes(
        '''
        class Parser:
            """Parse.

            :type _start: str
            :ivar _start: The start symbol.
            :type _stages: int
            """
            def __init__(self, grammar):
                self.grammar = grammar
    ''',
        ignore=("DF109",),
    ) == [("DF101", "_stages")]  # the class has no _start: DF109's


# --- DF102 / DF103 names in prose --------------------------------------------------------


def test_df102_unresolved_code_name():
    assert codes('''
        def reserve(item, count):
            """Fails when `qty` is larger than ``count``."""
    ''') == [("DF102", "qty")]


def test_df102_resolves_params_locals_self_attributes_builtins_imports_and_project():
    source = '''
        import os
        from collections import OrderedDict as OD

        class Cart:
            def __init__(self):
                self.items = []

            def add(self, item):
                """Append `item` to `self.items` with `list.append`, see :func:`os.path.join`,
                :class:`OD`, ``total`` and `helper()`. :mod:`os.path` is a module,
                :ref:`label` not code. Ordinary words are never flagged,
                nor `"quoted strings"` or `x + 1`.
                """
                total = len(self.items)
                self.items.append(item)
                return total
    '''
    assert codes(source) == [("DF103", "helper")]
    assert codes(source, project_names=frozenset({"helper"})) == []


def test_df102_self_attribute_that_does_not_exist():
    assert codes('''
        class C:
            def m(self):
                """Reads `self.cache`."""
                return self.store
    ''') == [("DF102", "cache")]


def test_df102_defined_elsewhere_in_the_project_is_not_flagged():
    source = '''
        def f():
            """See `remote_helper`."""
    '''
    assert codes(source) == [("DF102", "remote_helper")]
    assert codes(source, project_names=frozenset({"remote_helper"})) == []


def test_df103_called_name_that_exists_nowhere():
    assert codes('''
        def f(items):
            """Deduplicate with `frobnicate()`, then dedupe_al() before sorted()."""
            return sorted(dedupe_all(items))
    ''') == [("DF103", "frobnicate"), ("DF103", "dedupe_al")]


def test_df103_plain_text_calls_to_unknown_names_are_left_alone():
    # No near miss: most likely a C function, an example or another library.
    assert (
        codes('''
        def f(items):
            """Like frobnicate() in C, and `zc.buildout`; see typeobject.c: `mro_internal()`."""
            return items
    ''')
        == []
    )


# False positives found on real projects; each test also keeps a true finding of the same shape.


def test_names_in_a_sentence_about_c_are_c_names_even_with_a_near_miss():
    assert codes('''
        def wait():
            """Waits for the internal t_bootstrap() C function. Then calls t_bootstrap()."""
            return __bootstrap()
    ''') == [("DF103", "t_bootstrap")]


def test_a_private_name_by_its_public_spelling_resolves():
    assert codes('''
        def fill(text):
            """Calls munge_whitespace() and then ``munge_space``."""
            return _munge_whitespace(text)
    ''') == [("DF102", "munge_space")]


def test_names_given_to_returned_values_are_the_docstrings_own():
    assert codes('''
        def check(G):
            """Check it.

            Parameters
            ----------
            G : graph

            Returns
            -------
            (is_planar, certificate) : (bool, graph) tuple
                If the graph is planar `certificate` is an embedding, else `witness` is.
            """
            return True, G
    ''') == [("DF102", "witness")]
    assert codes('''
        def lesk(word):
            """Disambiguate.

            :param word: The word.
            :return: ``lesk_sense`` The best sense, or ``best_sense``.
            """
            return word
    ''') == [("DF102", "best_sense")]


def test_numpy_maths_has_near_misses_only_among_the_parameters():
    assert codes('''
        import networkx as nx

        def structure(G, xy):
            """A component structure is an `nxn` array, placed at `xyz`.

            Its `B_e` and `v_A` are maths; `num_G` is a name built on `G`, not maths.

            Parameters
            ----------
            G : graph
            xy : float
            """
            return nx
    ''') == [("DF102", "xyz"), ("DF102", "num_G")]


def test_see_single_backtick_word_is_a_cross_reference_where_code_has_double_backticks():
    assert codes('''
        def define(eq):
            """Add ``__eq__`` when `eq` is true. See `comparison` for more, and `qty`."""
            return eq
    ''') == [("DF102", "qty")]


def test_tsdoc_link_labels_json_literals_and_the_same_words_in_another_case():
    assert codes('''
        class TextEdit:
            """An edit."""

        def resolve(item, backend_interface):
            """Delay {@link CompletionItem.detail `detail`} to resolve; `null` if absent.

            Properties like `textEdit` must not change, nor `textEdt`, nor `detail`. The
            ``BackendInterface`` object is passed as ``backend_interfaze``; see getall() and
            ``TextedIt``.
            """
            return get_all(item)
    ''') == [
        ("DF102", "textEdt"),
        ("DF102", "detail"),
        ("DF102", "backend_interfaze"),
        ("DF102", "TextedIt"),
        ("DF103", "getall"),
    ]


def test_illustrations_and_enumerations_name_instances_not_code():
    assert codes('''
        def name_of(f):
            """For example, ``init_data_command`` becomes ``init-data``, as ``cmd_name`` does."""
            return f
    ''') == [("DF102", "cmd_name")]
    assert codes('''
        def write(text):
            """An error handler (``ignore``, ``backslashreplace``) changes it, as ``strictly``
            does (i.e., a handler whose name is ``handler_name``)."""
            return text
    ''') == [("DF102", "strictly"), ("DF102", "handler_name")]


def test_names_the_reader_writes_or_that_belong_to_something_outside():
    # paramiko: "if you made a subclass ``MP3Handler``" (and later mentions of it), stdio's
    # ``fgets`` (and ``fseek``, near ``seek``); pyramid: the ``mod_auth_tkt``
    # specification; scikit-image: the Python library ``qpformat``, "where `low_val` is";
    # textual: "handled using an `on_x` method", "`on_x` in a subclass", "a method named
    # `on_x`". A name with none of these words around it is still reported.
    assert codes('''
        class Serve:
            """Handle a subsystem.

            For example, if you made a subclass ``MP3Handler`` and registered it, an object
            of class ``MP3Handler`` is made. Unlike stdio's ``fgets``, it keeps nulls. The
            ``mod_auth_tkt`` specification says so; the Python library ``qpformat`` too.
            It pads with `low_val`, where `low_val` is 0 for unsigned images.
            """

            def seek(self, offset):
                """Set the position, like stdio's ``fseek``, unlike ``sekk``."""

            class Changed:
                """Posted on change.

                This message can be handled using an `on_serve_changed` method. Can be
                handled using `on_serve_blurred` in a subclass of `Serve`. It does
                nothing. The `on_serve_focused` method is gone, and so is ``MP4Handler``.
                Or write a method named `on_serve_closed`.
                """
    ''') == [("DF102", "sekk"), ("DF102", "on_serve_focused"), ("DF102", "MP4Handler")]


def test_names_owned_by_a_library_the_code_does_not_know():
    # pyramid: "a Routes ``Mapper`` object"; sphinx: "a Python class
    # ``MyModule.MyClass``, the main name is ``MyClass``". Owned by a known name, or
    # written alone, a name is still reported.
    assert codes('''
        class Route:
            """Interface representing a Routes ``Mapper`` object, not a Route ``Mapper``.

            For example, in the declaration of a Python class ``MyModule.MyClass``, the
            main name is ``MyClass``, unlike ``MyOtherClass``.
            """
    ''') == [("DF102", "Mapper"), ("DF102", "MyOtherClass")]


def test_acronyms_constants_and_placeholders_on_a_known_name():
    # A name in capitals with no near miss is an environment variable, a protocol constant
    # or a placeholder (``CLIG_PATH``, ``SSH_MSG_CHANNEL_EOF``); ``TypeAB`` is no placeholder
    # on ``Type`` (two capitals), so it is reported.
    assert codes('''
        from typing import Type

        def guard(x):
            """From ``CLIG``; ``TypeB`` need not narrow ``TypeA``; see ``CLIG_PATH``, ``TypeAB``."""
            return Type
    ''') == [("DF102", "TypeAB")]


def test_names_in_a_rest_line_block_are_bound():
    assert codes('''
        def encode(features):
            """Map each input-feature to joint-features of the form:

            |   joint_feat(token, label) = 1 if input_feat(token) == feat_val

            for all values of ``feat_val``, and of ``feat_value``.
            """
            return features
    ''') == [("DF102", "feat_value")]


# --- DF201 parameter-type-mismatch -------------------------------------------------------


def test_df201_annotation_and_default():
    found = check('''
        def f(count: int, ratio=0.5, name=None, flag: bool = False):
            """Do.

            Args:
                count (str): How many.
                ratio (str): A ratio.
                name (str): Name.
                flag (bool): A flag.
            """
    ''')
    assert [(c, t) for c, t, _ in found] == [("DF201", "str"), ("DF201", "str")]
    assert found[0][2].fix.replacement == "int"
    assert found[1][2].fix is None  # a default value is not a type to copy
    assert "default value `0.5` is a float" in found[1][2].message


@pytest.mark.parametrize(
    "documented, annotation",
    [
        ("int, optional", "Optional[int]"),
        ("int or None", "int | None"),
        ("list of str", "list[str]"),
        ("Sequence", "list"),
        ("float", "int"),
        ("str", "Path"),
        ("array-like", "np.ndarray"),
        ("int", "Optional[int]"),
    ],
)
def test_df201_types_compared_by_meaning(documented, annotation):
    source = (
        f'def f(x: {annotation}):\n    """Do.\n\n    Args:\n        x ({documented}): X.\n    """\n'
    )
    assert codes(source) == []


# --- DF202..DF205 returns ----------------------------------------------------------------


def test_df202_return_annotation_and_values():
    assert codes('''
        def f() -> int:
            """Count.

            Returns:
                str: The count.
            """
    ''') == [("DF202", "str")]
    assert codes('''
        def g(rows):
            """Join.

            :returns: the table.
            :rtype: int
            """
            return "\\n".join(rows)
    ''') == [("DF202", "int")]
    # One value of unknown type is enough to say nothing.
    assert (
        codes('''
        def h(rows):
            """Join.

            Returns:
                int: A value.
            """
            if rows:
                return rows[0]
            return "none"
    ''')
        == []
    )


def test_df203_yields_on_a_function_that_returns_a_list():
    assert codes('''
        def batches(prices) -> list:
            """Split.

            Yields:
                list: a batch.
            """
            return sorted(prices)
    ''') == [("DF203", "list: a batch.")]
    assert (
        codes('''
        def lazy(prices) -> Iterator[int]:
            """Split.

            Yields:
                int: a price.
            """
            return iter(prices)
    ''')
        == []
    )


def test_df204_returns_in_a_generator():
    assert [
        c
        for c, _ in codes('''
        def low(items):
            """Low items.

            Returns:
                list of Item: the items.
            """
            for item in items:
                yield item
    ''')
    ] == ["DF204"]
    assert (
        codes('''
        def low(items):
            """Low items.

            Returns:
                Iterator[int]: the items.
            """
            yield 1
    ''')
        == []
    )


def test_df202_an_annotated_generator_documented_as_returning_a_list():
    """The annotation says what calling it gives; a Returns type is held against it."""
    assert codes('''
        from collections.abc import Iterator

        def readings(path) -> Iterator[int]:
            """Readings.

            Returns:
                list[int]: the readings.
            """
            yield 1
    ''') == [("DF202", "list[int]")]
    for documented, decorator in (("Iterable[int]", ""), ("list[int]", "@contextmanager")):
        assert (
            codes(f'''
        from collections.abc import Iterator
        from contextlib import contextmanager

        {decorator}
        def readings(path) -> Iterator[int]:
            """Readings.

            Returns:
                {documented}: the readings.
            """
            yield 1
    ''')
            == []
        )


def test_df205_prose_return_claims():
    assert codes('''
        def find(items) -> list[int]:
            """Return True if the item is there."""
    ''') == [("DF205", "True")]
    assert codes('''
        def names(items):
            """Returns a list of names."""
            return tuple(items)
    ''') == [("DF205", "list")]
    assert (
        codes('''
        def ok(items) -> bool:
            """Return True if the item is there."""
    ''')
        == []
    )
    assert codes('''
        def whether(items) -> str:
            """Return whether it is there."""
    ''') == [("DF205", "whether")]


# --- structure (off by default), selection and suppression --------------------------------

STRUCTURE = '''
    def f(a, b):
        """Do.

        Args:
            a: A.
        """
        return a + b
'''


def test_structure_rules_are_off_by_default_and_selectable():
    assert codes(STRUCTURE) == []
    selected = [c for c, _ in codes(STRUCTURE, select=("DF5",))]
    assert selected == ["DF501", "DF502"]
    assert [c for c, _ in codes(STRUCTURE, select=("ALL",), ignore=("DF502",))] == ["DF501"]


def test_ignore_setting_and_def_line_comment():
    source = '''
        def f(a):  # docfact: ignore[DF101]
            """Do.

            Args:
                b: B.
            """
    '''
    assert codes(source) == []
    assert codes(source.replace("  # docfact: ignore[DF101]", ""), ignore=("DF1",)) == []


def test_half_typed_docstrings_never_crash():
    for docstring in [
        "Args:",
        "Args:\n    x",
        ":param:",
        ":param x",
        "Returns:\n",
        "Parameters\n---",
        "`unclosed",
        "``",
        ":func:`",
        "Return",
        "Returns a",
    ]:
        body = textwrap.indent(docstring, "    ")
        codes(f'def f(x) -> int:\n    """{body}\n    """\n')


# --- DF302 exception-never-raised ---------------------------------------------------------


def test_df302_not_when_it_returns_an_object_that_raises_later():
    source = '''
        class NotCallableError(TypeError):
            """Not callable."""

        class _IsCallable:
            def __call__(self, value):
                if not callable(value):
                    raise NotCallableError(value)

        def is_callable():
            """A validator.

            Raises:
                NotCallableError: When the value is not callable.
            """
            return {value}
    '''
    assert codes(source.format(value="_IsCallable()")) == []
    assert codes(source.format(value="callable")) == [("DF302", "NotCallableError")]
