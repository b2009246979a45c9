"""Types read as their writers meant them: false-alarm families seen on real projects.

Each test keeps a true finding of the same shape beside the false alarm it guards against.
"""

from test_rules import codes


def test_a_container_subclass_is_that_container():
    # "Returns: OrderedDict" of a function annotated -> dict that returns an OrderedDict.
    assert codes('''
        from collections import OrderedDict

        def ordered(items) -> dict:
            """Order them.

            Returns:
                OrderedDict: The items, in order.
            """
            return OrderedDict(items)

        def flag(count: int):
            """Set it.

            Args:
                count (bool): Whether to.
            """
            return count
    ''') == [("DF201", "bool")]


def test_prose_tuple_of_one_type_and_repeated_members():
    # "tuple[str]" in prose is a tuple of strings; ":rtype: str, str" is a pair (gcs).
    assert codes('''
        def names(items) -> tuple[str, str]:
            """Names.

            Returns:
                tuple[str]: The names.
            """
            return tuple(items)

        def stamps():
            """Stamps.

            :rtype: str, str
            :returns: Timestamp, datestamp.
            """
            return "t", "d"

        def headers():
            """Headers.

            :rtype: str
            :returns: The headers.
            """
            return [], []
    ''') == [("DF202", "str")]


def test_a_constructor_documents_the_instance_it_makes():
    # xarray: "Returns ------- rolling : type of input argument" in __init__ -> None.
    assert codes('''
        class Rolling:
            def __init__(self, obj) -> None:
                """Make it.

                Parameters
                ----------
                obj : object
                    What to roll.

                Returns
                -------
                rolling : type of input argument
                """
                self.obj = obj

            def size(self) -> None:
                """Its size.

                Returns
                -------
                int
                """
                return None
    ''') == [("DF202", "int")]


def test_return_claims_about_a_class_or_a_conversion():
    # xarray: "Return a float dtype" of -> type[np.floating]; fire: "Returns a dict as a
    # string" of a function returning strings.
    assert codes('''
        def float_dtype(dtype) -> type[float]:
            """Return a float dtype that can represent `dtype` values."""
            return float

        def dict_as_string(result):
            """Returns a dict as a string."""
            return "{}"

        def string_as_list(text):
            """Returns a string as a list."""
            return "[]"
    ''') == [("DF205", "string as a list")]


def test_a_decorated_generator_returns_what_its_decorator_makes():
    # @contextmanager: the Returns section describes what the with block gets.
    assert codes('''
        from contextlib import contextmanager

        @contextmanager
        def opened(path):
            """Open it.

            Returns:
                file: The open file.
            """
            yield open(path)

        def lines(path):
            """Read it.

            Returns:
                list: The lines.
            """
            yield from open(path)
    ''') == [("DF204", "list: The lines.")]


def test_returns_entries_one_per_member_of_what_the_caller_unpacks():
    # google-auth: Google style "bytes: ..." lines, one per member of the returned tuple;
    # scikit-image: NumPy entries of a `tuple(...)` or a generator the caller unpacks.
    assert codes('''
        def fingerprints(cert):
            """Fingerprints.

            Returns:
                bytes: The cert bytes.
                str: The fingerprint.
            """
            return cert, str(cert)

        def parse(doc, params):
            """Parse.

            Returns
            -------
            warn_str : str
                The warning.
            doc_str : str
                The docstring.
            """
            return (s % params for s in (doc, doc))

        def coefficient(a, b):
            """Correlation.

            Returns
            -------
            pcc : float
                The coefficient.
            p-value : float
                Its p-value.
            """
            return tuple(float(v) for v in (a, b))

        def single(cert):
            """One.

            Returns:
                bytes: The cert bytes, the fingerprint.
            """
            return cert, str(cert)
    ''') == [("DF202", "bytes")]


def test_generators_annotated_with_an_iterator_type_under_any_name():
    # textual: `def compose(self) -> ComposeResult` (an alias of Iterable) documents
    # Returns; google-auth: an abstract `async def content(...) -> AsyncGenerator[bytes,
    # None]` documents Yields and raises NotImplementedError. Unannotated, both are reported.
    assert codes('''
        from typing import AsyncGenerator
        from .types import ComposeResult

        def compose(self) -> ComposeResult:
            """Compose.

            Returns:
                The content of the screen.
            """
            yield 1

        def render(self):
            """Render.

            Returns:
                The lines.
            """
            yield 1

        async def content(self, size) -> AsyncGenerator[bytes, None]:
            """The content.

            Yields:
                AsyncGenerator[bytes, None]: the chunks.
            """
            raise NotImplementedError("content must be implemented.")

        def chunks(self, size):
            """The chunks.

            Yields:
                bytes: the chunks.
            """
            return b""
    ''') == [("DF204", "The lines."), ("DF203", "bytes: the chunks.")]


def test_a_literal_with_a_participle_is_a_noun_phrase():
    # textual: "Returns: None encoded." of an encoder returning bytes.
    assert codes('''
        def encode_none(datum) -> bytes:
            """Encode None.

            Returns:
                None encoded.
            """
            return b"N"

        def encode_nothing(datum) -> bytes:
            """Encode nothing.

            Returns:
                None if there is nothing.
            """
            return b"N"
    ''') == [("DF205", "None")]


def test_an_empty_container_default_tells_the_kind_of_value_only():
    # nltk: ``keep=()`` documented as a list, ``reflections={}`` as a dict, ``{}`` written
    # for an empty set: no item type, only the kind. ``()`` is the immutable empty of a
    # mapping too (``dict(())``), ``{}`` is no list.
    assert codes('''
        def replace(text, keep=(), drop=[], only={}, reflections={}, used=()):
            """Replace.

            :param list keep: Names to keep.
            :param tuple drop: Names to drop.
            :param set only: Names to use.
            :param dict reflections: A mapping.
            :type used: dict
            """
            return text, keep, drop, only, reflections, used

        def chat(pairs, reflections={}):
            """Chat.

            :type reflections: list
            """
            return pairs, reflections
    ''') == [("DF201", "list")]
