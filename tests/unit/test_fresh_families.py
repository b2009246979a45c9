"""False alarms read on the second fresh half of bench/precision_projects.csv (issue 22),
after its blind run: one test per family of text, the true finding of the same shape kept."""

from test_rules import EVIDENCE_ONLY, codes


def test_an_empty_tuple_default_is_an_empty_mapping():
    # jsonschema: ``handlers=()`` documented as a dict, given to ``dict()`` or ``.update()``.
    source = '''
        def resolver(base_uri, handlers=()):
            """Resolve references.

            Parameters
            ----------
            base_uri : str
                Where relative references start.
            handlers : dict
                URI schemes mapped to the functions that retrieve them.
            """
            return base_uri, dict(handlers)
    '''
    assert codes(source) == []
    assert codes(source.replace("handlers : dict", "handlers : Mapping")) == []
    # An empty dict is still no list, and () is no number.
    assert codes(source.replace("handlers=()", "handlers={}").replace(": dict", ": list")) == [
        ("DF201", "list")
    ]
    assert codes(source.replace("handlers : dict", "handlers : int")) == [("DF201", "int")]


def test_a_numpy_section_ends_at_a_heading_whose_underline_was_forgotten():
    # kombu: an underlined "Arguments:" and then "Returns" with neither colon nor underline.
    source = '''
        def new_queue(queue, **kwargs):
            """Ensure a queue exists.

            Arguments:
            ---------
                queue (str): the queue name
            Returns
                str: the queue URL
            """
            return queue
    '''
    assert codes(source) == []
    # A stale entry before the forgotten heading is still reported, and a parameter named
    # like a section (lowercase, NumPy's own layout) is still an entry.
    assert codes(source.replace("queue (str)", "name:")) == [("DF101", "name")]
    notes = '''
        def annotate(text):
            """Annotate.

            Parameters
            ----------
            text : str
                The text.
            notes
                Notes to add.
            """
            return text
    '''
    assert codes(notes) == [("DF101", "notes")]


def test_an_exception_raised_as_a_value_may_be_the_documented_one():
    # kombu: ``raise self.error``, which the constructor sets to an ``HttpError(...)``.
    source = '''
        class HttpError(Exception):
            """An HTTP error."""


        class Response:
            """A response."""

            def __init__(self, code, error=None):
                self.code = code
                self.error = error or HttpError(code)

            def raise_for_error(self):
                """Raise if the request failed.

                Raises:
                    HttpError: if the code is an error.
                """
                if self.error:
                    raise self.error
    '''
    assert codes(source) == []
    # A class raised by name is no value: documenting another one is still reported.
    assert codes(source.replace("raise self.error", "raise ValueError(self.code)")) == [
        ("DF302", "HttpError")
    ]


def test_a_text_default_the_description_names_is_a_sentinel():
    # fsspec: ``block_size="default"`` documented as an int, "'default' for class default".
    source = '''
        def open_file(path, block_size="default"):
            """Open a file.

            Parameters
            ----------
            path : str
                Where the file is.
            block_size : int
                Buffer size for reading or writing, 'default' for class default.
            """
            return path, block_size
    '''
    assert codes(source) == []
    # A text default the description does not name is still no int.
    assert codes(source.replace(", 'default' for class default", "")) == [("DF201", "int")]


def test_an_attribute_the_class_names_as_data_exists():
    # kombu: ``:attr:`expires``` of a class whose table of names a base's ``__init__`` sets
    # with ``setattr``; near ``_expires``, which the module defines.
    source = '''
        def _expires(value):
            return value


        class Object:
            """A base setting the attributes its subclasses list."""

            attrs = ()

            def __init__(self, **kwargs):
                for name, kind in self.attrs:
                    setattr(self, name, kind(kwargs.get(name)))


        class Queue(Object):
            """A queue.

            Arguments:
                expires (float): See :attr:`expires`.
            """

            attrs = (("name", str), ("expires", float))
    '''
    assert codes(source) == []
    # Quoted only in a docstring, the name is still no attribute.
    no_table = source.replace('("expires", float)', '("ttl", float)')
    assert codes(no_table.replace("See :attr:`expires`.", "See :attr:`expires`, 'expires'.")) == [
        ("DF107", "expires")
    ]


def test_a_retired_parameter_is_still_taken_through_keywords():
    # fsspec: "size_policy: this argument is deprecated", the keywords passed on to a base.
    source = '''
        class Base:
            """A base."""

            def __init__(self, **options):
                self.options = options


        class Files(Base):
            """Files."""

            def __init__(self, block_size=None, encoded=False, **storage_options):
                """Make one.

                Parameters
                ----------
                block_size: int
                    Blocks to read.
                size_policy: this argument is deprecated
                storage_options: key-value
                    Passed on.
                """
                super().__init__(**storage_options)
                self.block_size = block_size
                self.encoded = encoded
    '''
    assert codes(source) == []
    # Without the note it is a stale entry; without **kwargs, passing it fails.
    stale = source.replace(": this argument is deprecated", "")
    assert codes(stale) == [("DF101", "size_policy")]
    closed = source.replace(", **storage_options):", "):").replace("**storage_options", "")
    assert ("DF101", "size_policy") in codes(closed)


def test_yielding_control_is_no_claim_of_a_generator():
    # scrapy (fresh3): an async function's summary "Yield control until the event loop has
    # gone through its readers and writers." gives control up; it yields no values.
    source = '''
        async def process_pending_io(loop):
            """Yield control until the event loop has gone through its readers."""
            await loop.sleep(0)
    '''
    assert codes(source) == []
    assert codes(source.replace("Yield control until", "Yield execution to the loop until")) == []
    # Yielding values from a function that has no ``yield`` is still reported.
    assert codes(source.replace("Yield control until", "Yield the ready sockets once")) == [
        ("DF306", "Yield")
    ]


def test_maths_writes_a_parameter_with_its_subscript():
    # mpmath (fresh4): "`x_0` is the reference point" of a function taking ``x0``, where
    # single backticks are maths (its Sphinx default role).
    source = '''
        def diffint(f, x, n=1, x0=0):
            """Differintegral: `x` is the evaluation point and `x_0` the reference point."""
            return f, x, n, x0
    '''
    assert codes(source) == []
    # A misspelt parameter in code markup is still reported.
    assert codes(source.replace("`x_0`", "``xo``")) == [("DF102", "xo")]


def test_the_attribute_hook_names_examples_of_what_it_makes():
    # blessed (fresh4): ``__getattr__`` documents the predicates it makes on demand.
    source = '''
        class Event:
            def is_mouse_left(self):
                """Whether the left button is pressed."""
                return True

            def __getattr__(self, attr):
                """Make predicates: ``is_mouse_left_released()``, ``is_mouse_scroll_up()``."""
                return lambda: attr
    '''
    assert codes(source) == []
    # Elsewhere in the class the same name is still reported.
    assert codes(
        source.replace("Whether the left", "Unlike ``is_mouse_left_released()``, the left")
    ) == [("DF103", "is_mouse_left_released")]


def test_a_version_before_which_a_name_existed_tells_history():
    # Python-Markdown (fresh4): "Prior to Python-Markdown version 3.0, the Markdown class
    # had an `enable_attributes` keyword".
    source = '''
        def extend(md):
            """Legacy attributes.

            Prior to Python-Markdown version 3.0, the Markdown class had an
            ``enable_attributes`` keyword which was on by default.
            """
            return md
    '''
    assert codes(source) == []
    assert codes(
        source.replace("Prior to Python-Markdown version 3.0, the", "The").replace(
            "class had", "class has"
        )
    ) == [("DF102", "enable_attributes")]


def test_a_key_of_keywords_kept_whole_is_no_stale_name():
    # mongoengine (fresh4): ``:param mongo_client_class:`` of a function that stores its
    # **kwargs in the settings it returns; one named parameter is left undocumented.
    source = '''
        def connection_settings(db=None, host=None, mechanism_properties=None, **kwargs):
            """Get the connection settings.

            :param db: the database.
            :param host: the host.
            :param mongo_client_class: a client class other than pymongo's.
            :param kwargs: what the driver receives.
            """
            settings = {"db": db, "host": host, "props": mechanism_properties}
            settings.update(kwargs)
            return settings
    '''
    assert codes(source) == []
    # An entry that tells of the undocumented parameter is that parameter's stale name.
    for told in ("the mechanism's properties", "the authmechanism's settings"):
        # (a word of the parameter inside one of the text: flask's "the sourcecode")
        assert codes(source.replace("a client class other than pymongo's", told)) == [
            ("DF101", "mongo_client_class")
        ]


def test_keys_of_keywords_kept_whole_outnumber_the_undocumented_parameters():
    # dask (fresh5): ``read_parquet`` documents ``dataset`` and ``read``, keys of the
    # **kwargs it passes on whole, beside an ``engine`` it leaves undocumented; an entry
    # mentions ``engine.read_partitions``, which is no stale name of ``engine``.
    source = '''
        def read_parquet(path, engine=None, **kwargs):
            """Read Parquet files.

            Parameters
            ----------
            path : str
                Where the files are.
            dataset : dict
                Options for the dataset object.
            read : dict
                Options for ``engine.read_partitions``.
            **kwargs : dict
                Passed on to the engine.
            """
            return make_reader(path, engine=engine, kwargs=kwargs)
    '''
    assert codes(source) == []
    # One such entry for one undocumented parameter is still that parameter's stale name.
    single = source.replace(
        """            dataset : dict
                Options for the dataset object.
""",
        "",
    )
    assert codes(single) == [("DF101", "read")]


def test_an_int_is_documented_for_a_float_annotation():
    # dask (fresh5): ``partition_size: int`` for ``partition_size: float = 128e6``; PEP 484
    # lets an int stand where a float is annotated. A value's own type admits no promotion.
    source = '''
        def repartition(df, partition_size: float = 128e6):
            """Repartition.

            Parameters
            ----------
            df : DataFrame
                The frame.
            partition_size : int, optional
                Bytes per partition.
            """
            return df
    '''
    assert codes(source) == []
    assert codes(source.replace("partition_size: float = 128e6", "partition_size=128e6")) == [
        ("DF201", "int, optional")
    ]
    assert codes(source.replace(": float", ": str")) == [("DF201", "int, optional")]


def test_a_class_that_replaces_an_old_one_names_it():
    # python-telegram-bot (fresh5): "Bot API 7.0 replaces ``UserShared`` with this class."
    source = '''
        class UsersShared:
            """The users shared with the bot.

            Bot API 7.0 replaces ``UserShared`` with this class.
            """
    '''
    assert codes(source, **EVIDENCE_ONLY) == []
    # Without the history, the near miss of the class's own name is a typo.
    typo = source.replace(
        "Bot API 7.0 replaces ``UserShared`` with this class.", "See ``UserShared``."
    )
    assert codes(typo, **EVIDENCE_ONLY) == [("DF102", "UserShared")]
