"""False alarms read on the dev and fresh halves of bench/precision_projects.csv (issue 22),
one test per family of text, each with the true finding of the same shape kept."""

import textwrap

from test_evidence import _commit, _found, _repository, _write
from test_rules import EVIDENCE_ONLY, check, codes

from docfact.checks.evidence import near_miss
from docfact.graph.references import nearest


def test_numpy_grouped_names_take_one_type_each():
    # geopandas: ``xoff, yoff, zoff : float, float, float``
    source = '''
        def translate(xoff=0.0, yoff=0.0, zoff=0.0):
            """Shift the geometries.

            Parameters
            ----------
            xoff, yoff, zoff : float, float, float
                Amount of offset along each dimension.
            """
            return xoff, yoff, zoff
    '''
    assert codes(source) == []
    assert codes(source.replace("float, float, float", "float, str, float")) == [("DF201", "str")]
    # One type with a qualifier is still the type of every name.
    assert codes(source.replace("float, float, float", "float, optional")) == []


def test_entries_that_name_no_parameter():
    # nibabel: "Parameters ---------- None" for a function without any; pint's
    # ``case_sensitive, optional`` written without a colon; a doctest's ``True`` output.
    no_parameters = codes('''
        def get_home_dir():
            """The home folder.

            Parameters
            ----------
            None
            """
            return "~"
    ''')
    optional_without_colon = codes('''
        def parse(pattern, case_sensitive=True):
            """Parse.

            Parameters
            ----------
            pattern : str
                The pattern.
            case_sensitive, optional
                Whether case counts.
            """
            return pattern, case_sensitive
    ''')
    assert no_parameters == optional_without_colon == []


def test_return_something_to_somewhere_is_giving_it_back():
    # pymongo: "Return the connection to the pool, or if it's closed discard it."
    source = '''
        class Pool:
            def checkin(self, conn):
                """Return the connection to the pool, or if it's closed discard it."""
                self.returned += 1
                self.conns.append(conn)
    '''
    assert codes(source) == []
    assert codes(source.replace("the connection to the pool", "the connection")) == [
        ("DF306", "Return")
    ]


def test_a_migration_note_names_what_is_gone():
    # pymongo: "When migrating from :meth:`count` to :meth:`count_documents` ..."
    found = check('''
        def count_documents(flt):
            """Count.

            When migrating from `count` to `count_documents`, note the filter.
            """
            return flt
    ''')
    assert found == []


def test_the_same_name_in_another_case_of_another_kind_is_no_typo():
    assert near_miss("count", "COUNT") is None  # a method and a constant
    assert near_miss("S3.Client", "s3.Client") is None  # a service and a module
    assert near_miss("switchuid", "switchUID") == "the same name in another case"
    assert near_miss("Geoseries", "GeoSeries") == "the same name in another case"


def test_an_awaitable_is_documented_by_what_awaiting_it_gives():
    # anyio: getnameinfo(...) -> Awaitable[tuple[str, str]], "Returns a tuple of ..."
    source = '''
        from typing import Awaitable

        def getnameinfo(sockaddr) -> Awaitable[tuple[str, str]]:
            """Look up the host name.

            Returns:
                tuple: The host name and the service name.
            """
            return _lookup(sockaddr)
    '''
    assert codes(source) == []
    assert codes(source.replace("tuple: The host", "str: The host")) == [("DF202", "str")]


def test_members_inherited_from_a_generic_base():
    # pymongo: ``class AsyncCollectionChangeStream(AsyncChangeStream[_DocumentType])``
    # documented as having the ``next`` its generic base defines.
    source = '''
        from typing import Generic, TypeVar

        T = TypeVar("T")


        class Stream(Generic[T]):
            """A stream."""

            def next(self):
                """The next item."""


        class SubStream(Stream[T]):
            """A stream of one collection."""


        def watch():
            """Watch: returns a :class:`SubStream`; call :meth:`~sample.SubStream.next`."""
    '''
    assert codes(source) == []
    assert codes(source.replace("SubStream.next", "SubStream.nxet")) == [
        ("DF107", "sample.SubStream.nxet")
    ]


def test_a_base_made_by_a_call_may_give_any_member():
    # ``class Point(namedtuple("Point", "x y"))`` has ``x``, made at run time.
    source = '''
        from collections import namedtuple


        class Point(namedtuple("Point", "x y")):
            """A point."""


        def norm():
            """The length of :attr:`Point.x` and :attr:`Point.y` together."""
    '''
    assert codes(source) == []


def test_a_name_the_text_says_does_not_exist():
    # prompt-toolkit: "NOTE: There is no `DynamicHistory`: ..." (a class it once had).
    source = '''
        class DummyHistory:
            """There is no `DynamicHistory`: a history cannot be swapped. See `DumyHistory`."""
    '''
    assert codes(source) == [("DF102", "DumyHistory")]


def test_a_docstring_a_decorator_copies_onto_another_callable():
    # geopandas: ``@doc(plot_dataframe)`` on an accessor whose ``__call__`` takes ``kind``.
    source = '''
        def plot_dataframe(df, column=None):
            """Plot.

            Parameters
            ----------
            column : str
                The column.
            kind : str
                The kind of plot (the accessor's).
            """
            return df, column


        @doc(plot_dataframe)
        class PlotAccessor:
            def __call__(self, *args, **kwargs):
                kind = kwargs.pop("kind", "geo")
                return plot_dataframe(*args, **kwargs), kind
    '''
    assert codes(source) == []
    assert codes(source.replace("@doc(plot_dataframe)", "@register(plot_dataframe)")) == [
        ("DF101", "kind")
    ]


def test_returns_entries_of_members_of_either_of_two_tuples():
    # nibabel: ``-> tuple[Scalar, Scalar, bool] | tuple[Scalar, Scalar]`` with Returns
    # entries ``mn``, ``mx`` and ``has_nan : bool``.
    source = '''
        def finite_range(arr, check_nan=False) -> tuple[float, float, bool] | tuple[float, float]:
            """Range.

            Returns
            -------
            mn : float
                minimum
            mx : float
                maximum
            has_nan : bool
                NaNs found
            """
            return 0.0, 1.0
    '''
    assert codes(source) == []
    # Alternatives that are no tuples are what is returned whole.
    as_numbers = source.replace("tuple[float, float, bool] | tuple[float, float]", "float | int")
    assert codes(as_numbers) == [("DF202", "bool")]


def test_a_generators_placeholder_type_is_no_claim():
    # pint: pyment's template left "Returns ------- type" on ``-> tuple[Number, Unit]``.
    source = '''
        def factor(units) -> tuple[float, str]:
            """Factor.

            Parameters
            ----------
            units : _type_
                The units.

            Returns
            -------
            type
                multiplicative factor, plain units
            """
            return 1.0, units
    '''
    assert codes(source) == []
    assert codes(source.replace("    type\n", "    dict\n")) == [("DF202", "dict")]


def test_an_image_file_an_example_names():
    # google-cloud-storage: "the blob's name, such as `blog.png`" beside a ``blob``.
    source = '''
        def upload(blob):
            """Upload `blob`, named like `blog.png` or `report.pdf`."""
            return blob
    '''
    assert codes(source) == []


# --- the fresh half (issue 22): families read on 10 projects measured blind ------------


def test_a_class_one_case_from_a_plain_name_is_another_kind():
    # alembic: ":class:`.MetaData`" (sqlalchemy's, not installed) beside the parameter
    # ``metadata``; pyqtgraph: Qt's ``QImage`` beside a local ``qimage``.
    assert near_miss("MetaData", "metadata") is None
    assert near_miss("Table", "table") is None
    assert near_miss("Geoseries", "GeoSeries") == "the same name in another case"
    source = '''
        def compare(metadata):
            """Compare each :class:`.MetaData` with the database."""
            return metadata
    '''
    assert codes(source, **EVIDENCE_ONLY) == []
    typo = source.replace("def compare(metadata)", "def compare(metadeta)")
    assert codes(typo.replace("return metadata", "return metadeta"), **EVIDENCE_ONLY) == []


def test_positional_arguments_taken_through_args():
    # pyqtgraph: ``PColorMeshItem([x, y,] z)`` documents x, y and z of ``*args``.
    source = '''
        def mesh(*args, **kwargs):
            """Draw a mesh.

            Parameters
            ----------
            x, y : array, optional
                The corners.
            z : array
                The values.
            """
            z = args[-1]
            return z, kwargs.get("scale")
    '''
    assert codes(source) == []
    # *args never read: nothing positional can come through it.
    unread = source.replace("z = args[-1]", "z = kwargs['z']")
    assert codes(unread) == [("DF101", "x"), ("DF101", "y")]


def test_a_version_history_item_names_what_was_then():
    # gymnasium: "* v1: `max_time_steps` raised to 500", "* v0.12.3 - Initially added,
    # originally called `FilterObservationWrapper`".
    source = '''
        class FilterObservation:
            """Filter.

            Version History:
            * v1: `max_time_steps` raised to 500.
            * v0.12.3 - Initially added
            """

            max_timesteps = 500
    '''
    assert codes(source, **EVIDENCE_ONLY) == []
    prose = source.replace("* v1: `max_time_steps`", "The `max_time_steps` are")
    assert codes(prose, **EVIDENCE_ONLY) == [("DF102", "max_time_steps")]
    value = source.replace("* v1: `max_time_steps`", "- 0.5: `max_time_steps`")
    assert codes(value, **EVIDENCE_ONLY) == [("DF102", "max_time_steps")]  # a value, not a version
    renamed = '''
        class FilterObservation:
            """Filter, originally called `FilterObservationWrapper`. See `FilterObservatoin`."""
    '''
    assert codes(renamed, **EVIDENCE_ONLY) == [("DF102", "FilterObservatoin")]


def test_a_name_set_beside_its_near_miss_on_purpose():
    # gymnasium: "Every `key` of `info` is paired with a boolean mask `_key`".
    source = '''
        def merge(info):
            """Every `key` of `info` is paired with a boolean mask `_key`."""
            key = next(iter(info))
            return key
    '''
    assert codes(source, **EVIDENCE_ONLY) == []
    assert codes(source.replace("`key` of ", ""), **EVIDENCE_ONLY) == [("DF102", "_key")]
    # luigi: a typo beside the name it misspells is still a typo.
    typo = source.replace("mask `_key`", "mask `ifno`")
    assert codes(typo, **EVIDENCE_ONLY) == [("DF102", "ifno")]


def test_history_of_a_deleted_file_keeps_its_path(tmp_path):
    # pvlib: ``Vth``, a global of docs/examples/plot_*.py (deleted when the gallery was
    # sorted into folders), was told "removed": the deleted file's path was /dev/null, so
    # no rule saw it was an example's.
    _repository(tmp_path, 'def diode(nNsVth):\n    """Uses the thermal voltage ``Vth``."""\n')
    _write(tmp_path, {"docs/examples/plot_diode.py": "Vth = 0.025\n"})
    _commit(tmp_path, "first")
    (tmp_path / "docs" / "examples" / "plot_diode.py").unlink()
    _commit(tmp_path, "sort the gallery")
    assert _found(tmp_path) == []
    _write(tmp_path, {"shop/units.py": "Vth = 0.025\n"})
    _commit(tmp_path, "add the constant")
    (tmp_path / "shop" / "units.py").unlink()
    _commit(tmp_path, "remove the constant")
    [(code, message, _, _)] = _found(tmp_path)
    assert code == "DF102" and "`Vth` was removed in" in message


def test_history_of_a_definition_moved_out_of_the_folder_checked(tmp_path):
    # pvlib: ``fail_on_pvlib_version`` moved from the package's tests to tests/ at the
    # repository's top, outside the package checked: moved, not removed.
    _repository(tmp_path, 'def warn():\n    """Test it with ``fail_on_version``."""\n')
    _write(tmp_path, {"shop/checks.py": "def fail_on_version(v):\n    return v\n"})
    _commit(tmp_path, "first")
    (tmp_path / "shop" / "checks.py").write_text("")
    _write(tmp_path, {"tools/checks.py": "def fail_on_version(v):\n    return v\n"})
    _commit(tmp_path, "move")
    assert _found(tmp_path) == []


def test_history_of_a_signature_line_rewritten(tmp_path):
    # alembic: ``execution_options: Optional[dict] = None`` rewritten as ``dict | None``
    # was read as the parameter removed, and told of sqlalchemy's
    # ``Connection.execution_options`` in the same docstring.
    before = '''
        def execute(
            sqltext,
            execution_options: Optional[dict] = None,
        ):
            """Run it; options go to :meth:`toolkit.Connection.execution_options`."""
            return sqltext, execution_options
        '''
    _repository(tmp_path, before)
    _write(tmp_path, {"shop/toolkit_2.py": ""})  # a numbered sibling: no evidence
    _commit(tmp_path, "first")
    after = before.replace("Optional[dict] = None", "dict | None = None")
    (tmp_path / "shop" / "stock.py").write_text(textwrap.dedent(after))
    _commit(tmp_path, "PEP 604")
    assert _found(tmp_path) == []


def test_names_an_example_nested_in_an_entry_binds():
    # gymnasium: the ``keys_to_action`` entry shows ``>>> key_to_action = {...}`` and
    # names that dict ``key_to_action``.
    source = '''
        def play(env, keys_to_action=None):
            """Play.

            Args:
                env: The environment.
                keys_to_action: Keys to actions. Then ``key_to_action`` could be:

                    >>> key_to_action = {
                    ...     "w": 2,
                    ... }

            """
            return env, keys_to_action
    '''
    assert codes(source, **EVIDENCE_ONLY) == []
    unbound = source.replace(">>> key_to_action = {", ">>> mapping = {")
    assert codes(unbound, **EVIDENCE_ONLY) == [("DF102", "key_to_action")]


def test_a_class_misspelt_in_case_means_the_class_not_a_module():
    # geopandas: ``Geoseries`` beside the class ``GeoSeries`` and the module ``geoseries``.
    assert nearest("Geoseries", ["geoseries", "GeoSeries", "GeoDataFrame"]) == "GeoSeries"
    assert nearest("Geoseries", ["geoseries", "base"]) == "geoseries"


def test_a_decorator_of_the_module_remakes_the_result():
    # pvlib: ``@_unwrap_single_value`` returns the one item of a tuple of one, so
    # ``Returns cell_type: str`` of ``return tuple(...)`` is what callers get.
    source = '''
        import functools

        def _unwrap_single_value(func):
            @functools.wraps(func)
            def f(*args, **kwargs):
                x = func(*args, **kwargs)
                if isinstance(x, tuple) and len(x) == 1:
                    return x[0]
                return x
            return f

        class System:
            @_unwrap_single_value
            def cell_type(self):
                """The cell type.

                Returns
                -------
                cell_type: str
                """
                return tuple(array.cell for array in self.arrays)
    '''
    assert codes(source) == []
    passed_on = source.replace("return x[0]", "return func(*args, **kwargs)").replace(
        "return x\n", "return func(*args, **kwargs)\n"
    )
    assert codes(passed_on) == [("DF202", "str")]


def test_tuples_as_alternatives_of_a_returns_type():
    # pyqtgraph: "numpy.ndarray, numpy.ndarray or None, None" for
    # ``-> tuple[np.ndarray, np.ndarray] | tuple[None, None]``.
    source = '''
        def histogram(image) -> tuple[int, int] | tuple[None, None]:
            """The histogram.

            Returns
            -------
            int, int or None, None
                x and y, or None when there is no image.
            """
            return image.x, image.y
    '''
    assert codes(source) == []
    assert codes(source.replace("int, int or None, None", "str, str")) == [("DF202", "str, str")]
