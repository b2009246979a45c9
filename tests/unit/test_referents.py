"""What names in docstrings refer to: the false-alarm families seen on real projects.

Each test is modelled on a real case and keeps a true finding of the same shape beside
the false alarm it guards against.
"""

from test_rules import check, codes


def test_version_notes_name_what_is_gone():
    # werkzeug: "The ``as_bytes`` parameter was removed.", "Combine ``BaseRequest`` ..."
    assert codes('''
        class Request:
            """A request.

            .. versionchanged:: 3.0
                The ``as_bytes`` parameter was removed.

            .. versionchanged:: 2.0
                Combine ``BaseRequest`` and mixins into a single ``Request``.

            Changed in version 1.2: ``old_limit`` is now ``limit``.

            .. versionchanged:: 2.1
                ``ctx_name`` can be ``None``. All ``extra_kwargs`` are tracked. The
                ``as_bytes`` parameter was added. ``etag`` replaces ``add_etags``. The
                ``extra_chars`` parameter is removed. The suffix ``_limit`` is removed
                from names.

            The ``stale_option`` is read at start.
            """
            limit = 1
            BadRequest = None
    ''') == [("DF102", "ctx_name"), ("DF102", "extra_kwargs"), ("DF102", "stale_option")]
    # click: "the return type is narrowed by ``type``, ``value_proc``, or ``default``
    # instead of being ``Any``": "instead of" puts only what follows it in the past.
    assert codes('''
        def prompt(text, default=None, type=None, value_proc=None):
            """Prompt.

            .. versionchanged:: 8.5.0
                The return type is narrowed by ``type``, ``value_proc_list``, or
                ``default`` instead of being ``Any``.
            """
    ''') == [("DF102", "value_proc_list")]
    # A plain typo of a name that exists is still reported there, unless the note names
    # both (a rename); werkzeug: "Added the ``required_trusted_types_for`` ... properties."
    found = codes('''
        class Policy:
            """A policy.

            .. versionchanged:: 3.2
                Added the ``required_trusted_types_for`` and ``trusted_types`` properties.

            .. versionchanged:: 3.3
                ``trusted_type`` was renamed to ``trusted_types``.
            """
            require_trusted_types_for = None
            trusted_types = None
    ''')
    assert found == [("DF102", "required_trusted_types_for")]


def test_protocol_constants_and_lists_of_outside_names():
    # falcon: "match ``nan``, ``inf``, and ``-inf``", "``XMLHttpRequest`` or ``Fetch``";
    # trio: "an ``SSH_MSG_CHANNEL_EOF`` request". A list with a parameter stays code.
    assert codes('''
        def convert(value, finite):
            """Set ``finite`` to match ``nan``, ``inf``, and ``-inf``, as sent by
            ``XMLHttpRequest`` or ``Fetch``; an ``SSH_MSG_CHANNEL_EOF`` ends it.
            Either ``value`` or ``valeu_list`` is converted.
            """
            return float(value)
    ''') == [("DF102", "valeu_list")]


def test_a_placeholder_letter_makes_a_pattern_unless_the_code_has_it():
    # trio: "Raised by ``X_nowait`` functions if ``X`` would block."
    assert codes('''
        def isolates(G):
            """Raised by ``X_nowait`` functions if ``X`` would block; see ``num_G``."""
            return G
    ''') == [("DF102", "num_G")]


def test_maths_with_superscripts_is_no_name():
    # more-itertools: "the coefficient of the ``a³b⁴c²`` term"
    assert codes('''
        def multinomial(*counts):
            """The coefficient of the ``a³b⁴c²`` term, not ``coefficent_of``."""
            return counts
    ''') == [("DF102", "coefficent_of")]


def test_parameters_of_a_returned_function_or_lambda():
    # "Return a function that takes ``uuid``": the inner def takes it.
    assert codes('''
        def make_loader(kind):
            """Make a loader.

            Args:
                kind: What to load.
                uuid: The id the returned loader takes.
                timeout: How long it waits.
                retries: Not taken by anything.
            """
            def load(uuid, timeout=1):
                return kind, uuid, timeout
            return load

        def make_key(prefix):
            """Make a key function.

            Args:
                prefix: The prefix.
                item: What the returned lambda takes.
            """
            return lambda item: prefix + item
    ''') == [("DF101", "retries")]


def test_keywords_passed_on_with_kwargs():
    # shapely: "Use `markeredgecolor`" of a function passing **kwargs to ax.plot; a
    # callee the file knows (a builtin, a function of the file) accepts only its own.
    assert codes('''
        def plot_points(geom, ax, **kwargs):
            """Plot; `markeredgecolor` goes to matplotlib."""
            return ax.plot(geom, **kwargs)

        def show(text, **kwargs):
            """Print; ``sep`` goes to print, ``sep_list`` goes nowhere."""
            print(text, **kwargs)

        def _draw(shape, colour=None):
            return shape, colour

        def draw(shape, **options):
            """Draw; ``colour`` goes to _draw, ``color_map`` goes nowhere."""
            return _draw(shape, **options)

        def keep(values, **kwargs):
            """Keep ``values`` and the ``unused_flag``."""
            return values
    ''') == [("DF102", "sep_list"), ("DF102", "color_map"), ("DF102", "unused_flag")]


def test_attributes_of_a_class_that_makes_them_at_run_time():
    assert codes('''
        class Resource:
            def __getattr__(self, name):
                return name

            def get(self):
                """Read `self.bucket_name` (made from the service's data)."""
                return self.data

        class Plain:
            def get(self):
                """Read `self.bucket_name`."""
                return self.data
    ''') == [("DF102", "bucket_name")]


def test_names_the_docstring_binds_itself():
    # gcs: "(`start_byte`, `bytes_to_read`, `writeable_buffer`)" then "`bytes_to_read`";
    # fire: a Usage section of code without >>>; an example quoted with "> "; a URL.
    assert codes('''
        def download(ranges):
            """Download ranges of (`start_byte`, `bytes_to_read`, `buffer`) tuples.

            If `bytes_to_read` is 0, read to the end; `read_count` is never 0.

            Usage:

              # Get the reader state.
              reader = make_reader(ranges)
              width = reader.GetWidth()

            > helper_fn(ranges)

            Served from https://my_host.example.com/path; ``my_host`` answers,
            ``GetWidth`` and ``helper_fn`` too.
            """
            return ranges
    ''') == [("DF102", "read_count")]


def test_suggestions_are_names_of_the_right_kind():
    # werkzeug: "did you mean `_urlencode`" for a removed public `url_encode`; fire:
    # "did you mean `arg_name`" (another function's local) in the module docstring.
    found = {
        text: finding
        for _, text, finding in check('''
        """Docstrings: `argname` is a style.

        See `makes_rows`.
        """
        from .urls import _urlencode


        def make_rows(count):
            """See `url_encode`. Makes ``cuont`` rows."""
            return [count]


        def encode(rows):
            arg_name = _urlencode(rows)
            return arg_name
    ''')
    }
    assert "did you mean" not in found["url_encode"].message
    assert "did you mean" not in found["argname"].message
    assert found["cuont"].fix.replacement == "count"
    assert found["makes_rows"].fix.replacement == "make_rows"


def test_no_suggestion_when_two_names_are_as_close():
    found = check('''
        def pair(left_item, right_item):
            """Join ``lift_item`` with the other."""
            return left_item, right_item
    ''')
    assert [(code, text) for code, text, _ in found] == [("DF102", "lift_item")]
    assert found[0][2].fix.replacement == "left_item"
    tied = check('''
        def pair(item_a, item_b):
            """Join ``item_c`` with the other."""
            return item_a, item_b
    ''')
    assert [(code, text, f.fix) for code, text, f in tied] == [("DF102", "item_c", None)]


def test_other_naming_conventions_are_no_typo():
    # falcon: "the OpenAPI ``deepObject`` style" beside a ``deep_object`` parameter.
    assert codes('''
        def get_param(name, deep_object=False, get_all=False):
            """Use the ``deepObject`` style when `deep_object`; ``getall`` is a typo."""
            return name
    ''') == [("DF102", "getall")]


def test_an_alias_read_from_kwargs_is_a_parameter_even_near_a_real_one():
    # shapely: "quadsegs, resolution : int" beside `quad_segs`, read with kwargs.pop in a
    # method whose decorator spans several lines.
    assert codes('''
        def deprecate(*names):
            return lambda f: f

        class Geometry:
            @deprecate(
                "cap_style",
            )
            def buffer(self, distance, quad_segs=16, **kwargs):
                """Buffer.

                Parameters
                ----------
                distance : float
                    How far.
                quad_segs : int
                    Segments.
                quadsegs, resolution : int, optional
                    Deprecated aliases for `quad_segs`.
                quad_seg : int
                    A typo.
                **kwargs : dict
                    Renamed parameters.
                """
                quadsegs = kwargs.pop("quadsegs", None)
                resolution = kwargs.pop("resolution", None)
                return distance, quadsegs or resolution or quad_segs
    ''') == [("DF101", "quad_seg")]


def test_cross_references_in_version_notes_name_what_was_there():
    # werkzeug: ".. versionchanged:: 0.5 ... consistency with :class:`werkzeug.FileWrapper`."
    assert codes('''
        def wrap(stream):
            """Wrap a stream.

            .. versionchanged:: 0.5
                Consistent with :class:`FileWrapper`.

            See :class:`StreamWraper`.
            """
            return stream

        class StreamWrapper:
            """A wrapper."""
    ''') == [("DF107", "StreamWraper")]


def test_what_a_parameter_is_about_is_no_stale_name():
    # typing.dataclass_transform: "``kw_only_default`` indicates whether the ``kw_only``
    # parameter is assumed to be True" (a parameter of the decorated function).
    assert codes('''
        def dataclass_transform(*, kw_only_default=False, eq_default=True):
            """``kw_only_default`` says whether the ``kw_only`` parameter is assumed,
            ``default_kw`` too."""
            return kw_only_default, eq_default
    ''') == [("DF102", "default_kw")]


def test_history_is_told_by_the_sentence_around_the_name_not_by_its_words_of_purpose():
    # shutil: "`function` is the callable that will be used to unpack archives"; networkx:
    # "If `as_view` is True then a view is returned instead of a copy"; hypothesis:
    # "``discarded`` being ``True`` if it was called with ``discard=True``"; attrs: a
    # parameter entry whose last sentence says "therefore deprecated". History still is.
    assert codes('''
        def unpack(function, as_view, discarded, repr_ns):
            """Unpack.

            The `function_list` is the callable that will be
            used to unpack archives.
            If ``as_view_list`` is True then a view is returned instead of a copy.
            With ``discarded_list`` being ``True`` if it was called with ``discard=True``.
            All ``removed_list`` are removed. The ``old_flag`` was removed. It used to
            return ``old_value``. Pass ``repr_ns`` instead of ``old_ns``.

            :param repr_ns: a name for a more meaningful ``repr_list`` output.
                It is therefore deprecated.
            """
    ''') == [
        ("DF102", "function_list"),
        ("DF102", "as_view_list"),
        ("DF102", "discarded_list"),
        ("DF102", "removed_list"),
        ("DF102", "repr_list"),
    ]


def test_a_list_with_code_made_of_parameters_is_about_the_code():
    # attrs: "one of ``{lt, le, gt, ge}`` and ``eq``  are provided"
    assert codes('''
        def cmp_using(eq=None, lt=None, le=None, gt=None, ge=None):
            """Make a class; one of ``{lt, le, gt, ge}`` and ``eq_list`` are provided,
            as ``{"a": 1}`` or ``XMLHttpRequest`` are in the wild.
            """
    ''') == [("DF102", "eq_list")]


def test_inline_code_calling_a_name_with_arguments_calls_the_code():
    # toolz: "``mkpipe(f, g, h)(x, y)`` is the same as ``h(g(f(x, y)))``" after the
    # function became ``pipeline``; its arguments are the example's own names.
    assert codes('''
        def pipeline(*funcs):
            """Compose: ``mkpipe(f, g, h)(x, y)`` is the same as ``h(g(f(x, y)))``,
            and ``pipeline(f, g)(x)`` as ``g(f(x))``; ``dict(a=1)`` is a builtin's.
            """
    ''') == [("DF103", "mkpipe")]


def test_a_name_renamed_under_both_the_prose_and_the_examples():
    # pytest: the class became ``RaisesGroup``; the prose and the ``Examples::`` block kept
    # ``RaisesGroups(...)``. Names an example binds itself, or names no typo away from
    # the code's, stay the example's own; a known name's plural in prose is a plural.
    assert codes('''
        class RaisesGroup:
            """Matches a group.

            So ``RaisesGroups(ValueError, TypeError)`` matches too, like the
            ``RaisesGroup``s around it, and ``handler(request)`` runs once.

            Examples::

                with RaisesGroups(ValueError):
                    raise ExceptionGroup("", (ValueError(),))
                handler = make_handler()
                handler(reqest)
            """
            def __init__(self, request):
                self.request = request
    ''') == [("DF103", "RaisesGroups")]


def test_a_type_field_of_a_class_that_types_nothing():
    # twisted's attrs-made Runner: "@type whenRunningArguments:" beside "@ivar
    # _whenRunningArguments:"; a type field of a documented or defined name is fine.
    found = check('''
        class Runner(object):
            """Runs.

            @ivar _whenRunningArguments: keywords.
            @type whenRunningArguments: L{dict}

            @ivar _reactor: the reactor.
            @type _reactor: L{object}

            @type level: L{int}
            """
            _whenRunningArguments = {}
            _reactor = None
            level = 0
    ''')
    assert [(code, text, f.fix.replacement if f.fix else None) for code, text, f in found] == [
        ("DF101", "whenRunningArguments", "_whenRunningArguments")
    ]


def test_an_example_call_may_call_the_standard_library():
    # hypothesis: "Branchless equivalent of ``monthrange(year, month)[1]``" (calendar's).
    assert codes('''
        def days(year, month):
            """Like ``monthrange(year, month)[1]``, not ``monthrangez(year, month)``."""
    ''') == [("DF103", "monthrangez")]


def test_a_version_directive_tells_its_change_on_its_own_line():
    # attrs: ".. versionchanged:: 21.3.0 Converters are also run ``on_setattr``."
    assert codes('''
        def define(on_setattr=None):
            """Define.

            .. versionchanged:: 21.3.0 Converters are also run ``on_setatr``.
            .. versionadded:: 20.1.0
            """
    ''') == [("DF102", "on_setatr")]


def test_a_formula_in_numpy_single_backticks_is_no_example_call():
    # networkx: "windmill graphs are usually denoted `Wd(k,n)`".
    assert codes('''
        def windmill(n, k):
            """Windmill graph.

            Parameters
            ----------
            n : int
                Cliques.

            Notes
            -----
            Usually denoted `Wd(k,n)`; see ``windmil(n, k)``.
            """
    ''') == [("DF103", "windmil")]
