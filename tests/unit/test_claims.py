"""What a summary line claims of the result (DF306), and numpydoc's Yields convention for
generators (DF503, opt-in), on the real engine."""

import textwrap

from docfact.config import Settings
from docfact.engine import analyze


def codes(source, select=()):
    source = textwrap.dedent(source)
    analysis = analyze(source, "sample.py", "sample", Settings(select=select))
    return [(f.code, source[f.span.start : f.span.end].split("\n")[0]) for f in analysis.findings]


def test_df306_return_and_yield_claims_on_functions_that_have_no_such_result():
    assert codes('''
        def total(items):
            """Return the total of the items."""
            total = sum(items)
            print(total)


        def rows(items):
            """Yields the rows, one by one."""
            for item in items:
                print(item)


        def fileno(self):
            """Return the file descriptor (one call, which may raise: not judged)."""
            self._unsupported("fileno")
    ''') == [("DF306", "Return"), ("DF306", "Yields")]


def test_df306_not_when_the_code_may_return_or_documents_other_code():
    assert (
        codes('''
        import abc


        def total(items):
            """Return the total."""
            return sum(items)


        def show(items):
            """Returns None: it prints."""
            print(items)


        def directory(user):
            """Return the user's directory, or None (the default has none)."""
            return None


        def test_total_of_nothing(self):
            """Returns 0 for no items."""
            self.assertEqual(total([]), 0)


        def rows(items):
            """Yields the rows."""
            yield from items


        def hook(self):
            """Return the value (subclasses decide)."""
            raise NotImplementedError


        class Base(abc.ABC):
            @abc.abstractmethod
            def value(self):
                """Return the value."""


        def fail(self):
            """Return the value, or raise when there is none."""
            raise LookupError(self)


        def factory():
            """Return a function that counts."""
            def count():
                return 1


        def emit_return(self, frame):
            """Return the buffer of the frame (in the code it writes)."""
            self.writeline("return buffer")


        class Cart:
            def __init__(self):
                """Return a new cart."""
                self.items = []
    ''')
        == []
    )


def test_df503_numpydoc_yields_convention_is_opt_in_and_leaves_df204_its_cases():
    source = '''
        def rows(items):
            """Read the rows.

            Returns
            -------
            Iterator[str]
                The rows.
            """
            yield from items


        def lines(items):
            """Read the lines.

            Returns
            -------
            list of str
                The lines.
            """
            yield from items
    '''
    assert codes(source) == [("DF204", "list of str")]
    assert codes(source, select=("DF503",)) == [
        ("DF503", "Iterator[str]"),
        ("DF204", "list of str"),
    ]


def test_df302_builtin_exceptions_are_judged_only_where_nothing_could_raise_them():
    from docfact.engine import facts_of, resolve
    from docfact.graph.build import ProjectGraph

    source = textwrap.dedent('''
        class BadKey(ValueError):
            """A key that is not allowed."""


        def identity(key):
            """The key itself.

            Raises:
                ValueError: never, in fact.
            """
            return key


        def checked(key):
            """The key, checked.

            Raises:
                ValueError: through a subclass.
            """
            if key:
                raise BadKey(key)
            return key


        def converted(key):
            """The key as a number.

            Raises:
                ValueError: int() may raise it.
            """
            return int(key)
    ''')
    analysis = analyze(source, "sample.py", "sample", Settings())
    project = ProjectGraph()
    project.set_file(facts_of(analysis))
    found = [
        (f.symbol, source[f.span.start : f.span.end]) for f in resolve(analysis.findings, project)
    ]
    assert found == [("sample.identity", "ValueError")]
