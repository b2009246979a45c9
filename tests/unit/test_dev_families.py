"""False alarms read on the dev half of bench/precision_projects.csv (issue 22), one test
per family of text, each with the true finding of the same shape kept."""

from test_rules import check, codes

from docfact.checks.evidence import near_miss


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
