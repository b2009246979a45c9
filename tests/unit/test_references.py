"""Cross-references (DF107), doctests (DF108) and keywords read from **kwargs (DF101),
checked on small projects through the real runner: the parser, the rules and the
project graph that settles what one file cannot know."""

import textwrap

from docfact.config import Settings
from docfact.runner import check_paths

UTIL = '''
    import mimetypes


    def parse_url(url, strict=False):
        """Parse a URL."""
        return url


    class Parser:
        """Parses."""

        BACKOFF_MAX = 120

        def __init__(self, proxy_url, **kw):
            self.timeout = kw.get("timeout")
            self.url = parse_url(proxy_url, **kw)

        def feed(self, data):
            """Feed it."""
            return data
'''


def findings(tmp_path, files, select=("DF1",)):
    """(code, path, 1-based line, text the finding covers, message, fix) of a project."""
    for name, text in {"shop/__init__.py": "", "shop/util.py": UTIL, **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    report = check_paths([tmp_path / "shop"], Settings(select=select, preview=True), tmp_path, None)
    found = []
    for d in report.diagnostics:
        line = (tmp_path / d["path"]).read_text().splitlines()[d["start"]["line"] - 1]
        covered = line[d["start"]["column"] - 1 : d["end"]["column"] - 1]
        found.append(
            (
                d["code"],
                d["start"]["line"],
                covered,
                d["message"],
                d["fix"]["replacement"] if d["fix"] else None,
            )
        )
    return sorted(found)


# --- DF107 unresolved-reference --------------------------------------------------------------


def test_roles_resolve_in_the_class_the_module_the_project_and_the_libraries(tmp_path):
    assert (
        findings(
            tmp_path,
            {
                "shop/client.py": '''
        from .util import Parser


        class Client(Parser):
            """Uses :meth:`feed`, :attr:`Parser.BACKOFF_MAX`, :class:`~shop.util.Parser`,
            :func:`.parse_url`, :func:`shop.util.parse_url()`, :mod:`shop.util`,
            :mod:`mimetypes`, :func:`os.path.join`, :class:`collections.OrderedDict`,
            :py:meth:`Client.get` and :ref:`a-label`.
            """

            def get(self):
                """Get."""
    '''
            },
        )
        == []
    )


def test_standard_library_targets_with_what_their_modules_import_with_a_star(tmp_path):
    """``time`` is compiled into the interpreter, ``asyncio`` gathers its submodules with
    ``*`` and ``datetime`` star-imports its C accelerator with a Python fallback beside it:
    their names are known, so a missing one is reported. ``math`` (a C extension with no
    source) cannot be told."""
    found = findings(
        tmp_path,
        {
            "shop/clock.py": '''
        def wait(seconds):
            """Sleeps with :func:`time.sleep`, not :func:`time.sleeep`; see
            :func:`asyncio.get_event_loop`, :func:`asyncio.get_event_lop`,
            :class:`datetime.datetime`, :class:`datetime.dateime`, :func:`itertools.chain`,
            :func:`os.listdir`, :func:`math.sqrtt` and :class:`types.ClassType` (``types``
            reads ``globals()``, which makes no name).
            """
    '''
        },
    )
    assert [(text, fix) for _, _, text, _, fix in found] == [
        ("time.sleeep", "time.sleep"),
        ("asyncio.get_event_lop", "asyncio.get_event_loop"),
        ("datetime.dateime", "datetime.datetime"),
        ("types.ClassType", "type"),  # Python 2's name (``checks/python2.py``)
    ]


def test_a_member_renamed_is_reported_with_the_real_name_as_fix(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/client.py": '''
        from .util import Parser


        def connect():
            """Waits up to :attr:`Parser.MAX_BACKOFF`; see :meth:`Parser.fed`,
            :func:`~shop.util.prase_url` and :mod:`mimetimes`.
            """
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF107", "Parser.MAX_BACKOFF", "Parser.BACKOFF_MAX"),
        ("DF107", "Parser.fed", "Parser.feed"),
        ("DF107", "mimetimes", "mimetypes"),
        ("DF107", "shop.util.prase_url", "shop.util.parse_url"),
    ]
    assert "`MAX_BACKOFF` is not in `shop.util.Parser`" in found[0][3]


def test_epytext_links_and_see_also_entries(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/client.py": '''
        from .util import Parser, parse_url


        def connect():
            """Connect, as L{Parser.feed} and L{the parser<Parser.fedd>} say.

            @return: nothing.
            """


        def numpy_style(x):
            """Connect.

            Parameters
            ----------
            x : int
                A number.

            See Also
            --------
            parse_url : parses.
            Parser.feed, prase_url
            """
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF107", "Parser.fedd", "Parser.feed"),
        ("DF107", "prase_url", "parse_url"),
    ]


def test_a_word_of_a_comment_or_a_string_is_no_target(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/client.py": '''
        from .util import Parser


        def connect():
            """Connect with L{Parser} and L{parse_urls}; see L{shop.util.prase_url}
            and L{NoneType}; errors chain through :attr:`__cause__`.
            """
            # parse_urls is what the old version called it; so was prase_url
            return "NoneType"
    ''',
            "shop/other.py": """
        LABEL = "prase_url"
    """,
            "shop/old.py": '''
        def __getattr__(name):
            return {"parse_uri": len}[name]


        def f():
            """Deprecated names a module's ``__getattr__`` makes resolve: L{parse_uri}."""
    ''',
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF107", "parse_urls", "parse_url"),
        ("DF107", "shop.util.prase_url", "shop.util.parse_url"),
        ("DF107", "NoneType", None),
    ]


def test_a_class_getattr_leaves_its_module_with_the_names_it_defines(tmp_path):
    # twisted: L{twisted.web.http._GenericHTTPChannel} of a module whose only
    # ``__getattr__`` is a method of one of its classes (the class is
    # _GenericHTTPChannelProtocol); a module's own ``__getattr__`` may make any name.
    found = findings(
        tmp_path,
        {
            "shop/http.py": """
        class _Proxy:
            def __getattr__(self, name):
                return name


        class _ChannelProtocol(_Proxy):
            pass


        class _GenericHTTPChannelProtocol(_Proxy):
            pass


        class PubSubError(Exception):
            pass
    """,
            "shop/lazy.py": """
        def __getattr__(name):
            return name
    """,
            "shop/h2.py": '''
        def connect():
            """Called by L{shop.http._Channel} or L{shop.http._ChannelProtocol}, and by
            L{shop.lazy.Anything}; set up by L{shop.http._GenericHTTPChannel}; see
            L{shop.http.PubSub}.
            """
    ''',
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF107", "shop.http._Channel", None),  # one word: a word more is another name
        # twisted: a module's member a word short of its name
        ("DF107", "shop.http._GenericHTTPChannel", "shop.http._GenericHTTPChannelProtocol"),
        ("DF107", "shop.http.PubSub", None),  # redis: a class is no exception a word longer
    ]


def test_a_module_by_its_last_name_in_code_markup(tmp_path):
    # twisted: "Override C{util.switchuid}" in a test that does not import
    # twisted.python.util, whose function is switchUID. A member such a module has, a
    # name no module of the project is called, or no near miss: unknown, not reported.
    # Deleting from ``globals()`` makes no name (twisted.python.util); writing to it may
    # make any.
    found = findings(
        tmp_path,
        {
            "shop/python/__init__.py": "",
            "shop/python/tools.py": """
        def switchUID(uid, gid):
            return uid, gid

        for _helper in ["_unused"]:
            del globals()[_helper]
    """,
            "shop/python/dynamic.py": """
        def switchUID(uid, gid):
            return uid, gid

        globals()["switch" + "uid"] = switchUID
    """,
            "shop/python/handed.py": """
        def switchUID(uid, gid):
            return uid, gid

        fixup_module_metadata(__name__, globals())  # trio's: a call may write them
    """,
            "shop/test_process.py": '''
        def switch(uid, gid):
            """Override C{tools.switchuid}, like C{tools.switchUID}; see ``tools.reset``,
            ``numpy.switchuid``, ``tools.switchuid()``, C{dynamic.switchuid} and
            C{handed.switchuid}.
            """
            return uid, gid
    ''',
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF102", "tools.switchuid", "tools.switchUID"),
        ("DF103", "tools.switchuid", "tools.switchUID"),
    ]


def test_a_target_with_a_character_no_name_has(tmp_path):
    # twisted: "Supported formats include L{FingerprintFormats.MD5-HEX}".
    found = findings(
        tmp_path,
        {
            "shop/keys.py": '''
        class Formats:
            MD5_HEX = "md5-hex"


        def fingerprint():
            """Formats include L{Formats.MD5-HEX}, :data:`Formats.SHA-256` and
            L{Formats.MD5_HEX}; see U{the RFC<https://example.org/rfc-4716>}.
            """
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF107", "Formats.MD5-HEX", "Formats.MD5_HEX"),
        ("DF107", "Formats.SHA-256", None),
    ]


def test_members_of_bases_outside_the_project_are_read_from_their_source(tmp_path):
    # twisted: L{RunnerOptions.pidFilePath} of a class built on constantly's Names (not
    # installed) that has ``pidFile``: a base that cannot be read may have any member,
    # but not a near miss of the class's own.
    found = findings(
        tmp_path,
        {
            "shop/client.py": '''
        import json

        from notinstalled import Names


        class Decoder(json.JSONDecoder):
            """See :meth:`Decoder.raw_decode` and :meth:`Decoder.anything`."""


        class Table(dict):
            """See :meth:`Table.items`, :meth:`Table.itemz` and :meth:`Table.count`."""

            def count(self):
                """Count."""


        class Options(Names):
            """See L{Options.lookupByName}, L{Options.pidFilePath}."""

            pidFile = 1
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF107", "Decoder.anything", None),
        ("DF107", "Table.itemz", "Table.items"),
        ("DF107", "Options.pidFilePath", "Options.pidFile"),
    ]


# --- DF108 doctest-unresolved-name -----------------------------------------------------------


def test_doctests_names_attributes_imports_and_keywords(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/client.py": '''
        from .util import parse_url


        def connect(url):
            """Connect.

            >>> from shop.util import Parser, Parsr
            >>> import shop.util as u
            >>> prase_url('x')
            'x'
            >>> u.prase_url('x')
            >>> parse_url('x', strikt=True)
            >>> Parser.nothing
            >>> import shop.nothere
            >>> np.array([1])
            >>> result = connect('x')
            >>> result.anything
            """
            return parse_url(url)
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF108", "Parsr", "Parser"),
        ("DF108", "prase_url", "parse_url"),
        ("DF108", "prase_url", "parse_url"),
        ("DF108", "strikt", "strict"),
        ("DF108", "nothing", None),
        ("DF108", "shop.nothere", None),
    ]
    assert "`parse_url` takes no keyword `strikt`" in found[3][3]


def test_doctests_calling_the_documented_function_by_a_former_name(tmp_path):
    """Examples that never use the function's present name and call an undefined name
    sharing a word with it: the function was renamed under its examples."""
    found = findings(
        tmp_path,
        {
            "shop/headers.py": '''
        def parse_cachecontrol(header):
            """Parse a Cache-Control header.

            >>> cachecontrol_directives('public, max-age=3600')
            {'public': None, 'max-age': '3600'}
            """
            return header


        def parse_pragma(header):
            """Examples that use the function: another undefined name is set-up's.

            >>> parse_pragma(pragma_fixture)
            """
            return header


        def split_words(text):
            """An undefined name sharing no word with the function: set-up's.

            >>> tokenize_input('a b')
            """
            return text.split()
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF108", "cachecontrol_directives", "parse_cachecontrol")
    ]


# --- DF101 with **kwargs ---------------------------------------------------------------------


def test_keywords_read_or_passed_on_are_parameters_near_misses_are_not(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/pool.py": '''
        from .util import Parser, parse_url


        class Pool:
            """A pool.

            :param poxy_url: the proxy.
            :param strict: passed on to parse_url.
            :param block: read by nobody.
            """

            def __init__(self, proxy_url, **kw):
                self.url = parse_url(proxy_url, **kw)


        class Child(Parser):
            """Passes its keywords to a parent that passes them on in turn.

            :param timeout: read by the parent.
            :param block: whether the parent's callees take it is not followed.
            """

            def __init__(self, proxy_url, **kw):
                super().__init__(proxy_url, **kw)


        def opener(**options):
            """Open.

            Args:
                size: read here.
                other: nowhere.
            """
            return options["size"], parse_url("x", **options)


        def anything(**options):
            """Stores them: any keyword may be used.

            Args:
                other: kept.
            """
            return dict(options)


        def draw(graph, arrows=None, **kwds):
            """Draws, passing the keywords on.

            Args:
                graph: the graph.
                arrows: whether to draw arrows.
                arrowsize: a keyword sharing the stem of a parameter is no typo.
                kwds: the drawing keywords.
            """
            return dict(kwds)
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF101", "poxy_url", "proxy_url"),
        ("DF101", "block", None),
        ("DF101", "other", None),
    ]


def test_an_entry_beside_one_for_the_whole_kwargs_names_an_undocumented_parameter(tmp_path):
    # flask: ":param template_name:" of render_template_string(source, **context), which
    # documents ":param context:"; marshmallow: ":param serde_type:" beside ":param
    # kwargs:" of a field whose constructor takes serialization_type. A keyword documented
    # beside its **kwargs, every named parameter documented too, is one of its keys.
    found = findings(
        tmp_path,
        {
            "shop/render.py": '''
        from .util import Parser


        def render_string(source, **context):
            """Render.

            :param template_name: the source of the template.
            :param context: the variables of the template.
            """
            return Parser(source, context)


        class Delta(Parser):
            """A field.

            :param serde_type: int or float.
            :param kwargs: what :class:`Parser` receives.
            """

            def __init__(self, serialization_type=int, **kwargs):
                super().__init__(**kwargs)


        class Link(Parser):
            """A link (marshmallow's Url documents its base's deprecated ``default``).

            :param proxy_url: a parameter of the base's constructor.
            :param kwargs: what :class:`Parser` receives.
            """

            def __init__(self, absolute=True, **kwargs):
                super().__init__(**kwargs)


        def draw(graph, arrows=None, **kwds):
            """Draw.

            :param graph: the graph.
            :param arrows: whether to draw arrows.
            :param arrowsize: the size of arrows.
            :param kwds: the drawing keywords.
            """
            return dict(kwds)
    '''
        },
        select=("DF101",),
    )
    assert [(code, text) for code, _, text, _, _ in found] == [
        ("DF101", "template_name"),
        ("DF101", "serde_type"),
    ]


def test_a_class_documents_the_constructor_it_inherits(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/pools.py": '''
        import json
        from dataclasses import dataclass

        from .util import Parser


        class Base:
            def __init__(self, proxy_url, timeout=None):
                self.url = proxy_url


        class Pool(Base):
            """A pool.

            :param poxy_url: the proxy.
            :param timeout: seconds.
            """


        class Tree(Parser):
            """Its base takes any keyword.

            :param anything: passed on.
            """


        class Decoder(json.JSONDecoder):
            """A base outside the project has its own constructor.

            :param strict: the decoder's.
            """


        @dataclass
        class Point(Base):
            """A dataclass makes its own constructor.

            :param x: abscissa.
            """
    '''
        },
        select=("DF101",),
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF101", "poxy_url", "proxy_url")
    ]
    assert "constructor `Pool` inherits" in found[0][3]


def test_class_names_in_entry_types_are_reported_only_when_misspelt(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/client.py": '''
        from typing import Optional

        from .util import Parser


        def connect(a, b, c, d, eta, when):
            """Connect.

            Args:
                a (Optional[Parsr]): a misspelt class of the project.
                b (DataFrame): a library's class, unknown here.
                c (MutableMapping): a class every module may name.
                d (Parser): the project's.
                eta (~datetime.dateime): a misspelt link to the standard library.
                when (~datetime.datetime): the link spelt right.

            Returns:
                Parser: the parser.
            """
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF107", "Parsr", "Parser"),
        ("DF107", "datetime.dateime", "datetime.datetime"),
    ]


# --- DF109 unknown-attribute ---------------------------------------------------------------


def test_documented_attributes_the_class_and_its_project_bases_do_not_have(tmp_path):
    found = findings(
        tmp_path,
        {
            "shop/shapes.py": '''
        from collections import namedtuple

        from .util import Parser


        class Point:
            """A point.

            @ivar x: abscissa.
            @ivar presentAttribues: misspelt.
            """

            def __init__(self):
                self.x = 1
                self.presentAttributes = []


        class Reader(Parser):
            """A parser that reads.

            Attributes:
                BACKOFF_MAX: from the base class.
                url: set by the base class.
                nowhere: in no class.
            """


        class Pair(namedtuple("Pair", "left right")):
            """A pair.

            :ivar left: made by namedtuple.
            """


        class Sentence:
            """A sentence whose ``__getattr__`` gives its fields (twisted's _BaseSentence).

            @ivar latitude: a field.
            @ivar presentAttribues: misspelt.
            """

            @property
            def presentAttributes(self):
                return []

            def __getattr__(self, name):
                return None
    '''
        },
    )
    assert [(code, text, fix) for code, _, text, _, fix in found] == [
        ("DF109", "presentAttribues", "presentAttributes"),
        ("DF109", "nowhere", None),
        ("DF109", "presentAttribues", "presentAttributes"),
    ]


def test_doctests_skipped_examples_attributes_they_set_and_module_dunders(tmp_path):
    assert (
        findings(
            tmp_path,
            {
                "shop/client.py": '''
        def connect():
            """Connect.

            >>> import shop.util
            >>> shop.util.__file__.endswith("util.py")
            True
            >>> shop.util.flag = True
            >>> shop.util.flag
            True
            >>> shop.util.prase_url("x")  # doctest: +SKIP
            >>> util = object()
            >>> util.anything
            """
    '''
            },
        )
        == []
    )
