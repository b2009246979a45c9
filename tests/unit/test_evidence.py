"""Name-existence findings stand only with evidence: a near miss, or the name's history in
git; a name with neither is unknown, and shown only in preview."""

import json
import subprocess
import sys
import textwrap

import pytest
from environments import committed_package

from docfact.checks.evidence import near_miss
from docfact.config import Settings
from docfact.runner import check_paths


@pytest.mark.parametrize(
    ("written", "meant", "how"),
    [
        ("ammount", "amount", "one letter apart"),
        ("LineStrng", "LineString", "one letter apart"),
        ("recieve", "receive", "one letter apart"),
        ("bsah", "bash", "one letter apart"),  # a short name's letters swapped
        ("sorted_list", "torted_list", "one letter apart"),  # a first letter in a long name
        ("switchuid", "switchUID", "the same name in another case"),
        ("create_index", "createindex", "the same name but for `_`"),
        ("MAX_BACKOFF", "BACKOFF_MAX", "the same words in another order"),
        ("Retry.MAX_BACKOFF", "Retry.BACKOFF_MAX", "the same words in another order"),
        ("RaisesGroups", "RaisesGroup", "one letter apart"),  # a class's name, not a word
        ("max_values", "max_value", "one letter apart"),
        ("type_or_interface", "type_or_iface", "the same words, one of them shortened"),
        ("interface_or_class", "class_or_interface", "the same words in another order"),
        ("orderServers", "orderedServers", "the same words, one of them shortened"),
        # In scope only: a member of the class named, a name of the unit or its file.
        ("pidFilePath", "pidFile", "the same name but for its last word"),
        ("image_store", "image_store_config", "the same name but for its last word"),
        (
            "http._GenericHTTPChannel",
            "http._GenericHTTPChannelProtocol",
            "the same name but for its last word",
        ),
        ("mimetimes", "mimetypes", "two letters apart"),
        (
            "error.StanzaException",
            "error.StanzaError",
            "the same exception, named with `Error` and with `Exception`",
        ),
        (
            "ParseError",
            "ParseException",
            "the same exception, named with `Error` and with `Exception`",
        ),
    ],
)
def test_near_misses(written, meant, how):
    assert near_miss(written, meant) == how


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("pidFilePath", "pidFile"),
        ("mimetimes", "mimetypes"),
        ("ungzip_bytes", "gunzip_bytes"),
        ("StanzaException", "StanzaError"),
    ],
)
def test_only_one_small_edit_counts_against_names_of_the_whole_project(written, meant):
    assert near_miss(written, meant, scoped=False) is None


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("labels", "label"),  # English inflections of a word are no typos
        ("restarting", "restart"),
        ("parsing", "parse"),
        ("n_slab_cols", "n_slab_rows"),  # two letters, but a whole short word
        ("DataDict", "_dt_dict"),  # a class's name and a variable's
        ("image_store", "IMAGE_STORE_"),  # a variable and a constant's prefix
        ("MD5_HEX", "MD5"),  # a word more to a one-word name (a number is no word)
        ("preferences", "Reference"),  # a plain word and a class
        ("geo_interface", "__geo_interface__"),  # a protocol named by its method's words
        ("toolkit", "toolkit_2"),  # numbered siblings
        ("toolkit", "toolkit2"),
        ("v1", "v2"),
        ("id", "it"),  # too short to tell a typo from another name
        ("schema.MetaData", "other.Metadata"),  # two parts differ
        ("a.b", "a.b.c"),
        ("exc", "exceptions"),  # one word shortened: as likely another name
        ("num_items", "n_items"),  # a letter is no abbreviation to tell
        ("timeout", "timeout_ms"),  # a word more to a one-word name: another name
        ("store_config", "image_store_config"),  # a word before, not after
        ("processes", "processed"),  # two letters, but an inflection
        ("Exception", "Error"),  # no name of its own before the word
        ("PubSub", "PubSubError"),  # a class and its exception are other kinds of things
        ("StanzaException", "StreamError"),
        ("parameters", "parameter"),
        ("serialize", "serializer"),
        ("bash", "hash"),  # a short name with another first letter: another word (fresh4)
        ("load", "road"),
    ],
)
def test_no_near_miss(written, meant):
    assert near_miss(written, meant) is None


def _project(root, source):
    (root / "shop").mkdir()
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "stock.py").write_text(textwrap.dedent(source))


def _found(root, **settings):
    settings.setdefault("select", ("DF102",))  # a preview rule, selected by its code
    report = check_paths([root / "shop"], Settings(**settings), root, None)
    return [(d["code"], d["message"], d["evidence"], d["fix"]) for d in report.diagnostics]


STALE = '''
    def reserve(item, count):
        """Reserve stock; fails when `qty` is larger than what is left.

        Uses `lookup_item` to find it.
        """
        return item, count
'''


def test_a_name_with_no_evidence_is_shown_only_in_preview(tmp_path):
    _project(tmp_path, STALE)
    assert _found(tmp_path) == []
    previewed = _found(tmp_path, preview=True)
    assert [code for code, *_ in previewed] == ["DF102", "DF102"]


def test_a_near_miss_is_evidence_and_says_where_the_name_is(tmp_path):
    _project(
        tmp_path,
        '''
        def lookup_item(name):
            return name

        def reserve(item):
            """Reserve stock found by `lookup_iten`."""
            return lookup_item(item)
        ''',
    )
    [(code, _, evidence, fix)] = _found(tmp_path)
    assert code == "DF102" and fix["replacement"] == "lookup_item"
    [near] = [e for e in evidence if e.get("kind") == "near miss"]
    assert near["symbol"] == "lookup_item"
    assert near["path"].endswith("stock.py") and near["line"] == 2
    assert "one letter apart" in near["text"]


def _git(root, *args):
    subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_DATE": "2023-05-02T10:00:00",
            "GIT_COMMITTER_DATE": "2023-05-02T10:00:00",
            "HOME": str(root),
            "PATH": "/usr/bin:/bin",
        },
    )


def _repository(root, source):
    """A git repository holding the package ``shop`` with ``source`` as its stock.py."""
    _git(root, "init", "-q")
    _project(root, source)


def _write(root, files):
    """Write each file (a path under ``root``) with its text."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def _commit(root, message):
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)


def test_history_tells_a_renamed_parameter_and_a_removed_helper(tmp_path):
    _repository(
        tmp_path,
        '''
        def lookup_item(name):
            return name

        def reserve(
            item,
            qty,
        ):
            """Reserve stock; fails when `qty` is larger than what is left.

            Uses `lookup_item` to find it.
            """
            return lookup_item(item), qty
        ''',
    )
    _commit(tmp_path, "first")
    _project_text = (tmp_path / "shop" / "stock.py").read_text()
    (tmp_path / "shop" / "stock.py").write_text(
        _project_text.replace(
            "def lookup_item(name):\n    return name\n", "def find_item(name):\n    return name\n"
        )
        .replace("    qty,\n", "    count,\n")
        .replace("return lookup_item(item), qty", "return find_item(item), count")
    )
    _commit(tmp_path, "rename")
    found = {
        message.split("`")[1]: (code, message, fix) for code, message, _, fix in _found(tmp_path)
    }
    assert set(found) == {"qty", "lookup_item"}
    code, message, fix = found["qty"]
    assert code == "DF102"
    assert "`qty` was a parameter of `reserve` until" in message and "(2023-05-02)" in message
    assert "`count` replaced it" in message and fix["replacement"] == "count"
    code, message, fix = found["lookup_item"]
    assert "`lookup_item` was removed in" in message and "`find_item` replaced it" in message


def test_a_definition_moved_to_another_module_was_not_removed(tmp_path):
    # pymongo: ``AsyncCursor`` left ``pymongo.cursor`` for ``pymongo.asynchronous.cursor``;
    # a stale link to the old place is told by where the name is now, not by "removed".
    _repository(
        tmp_path,
        """
        def lookup_item(name):
            return name
        """,
    )
    _write(
        tmp_path,
        {
            "shop/orders.py": 'def order(name):\n    """Find it with '
            ':func:`shop.stock.lookup_item`."""\n'
        },
    )
    _commit(tmp_path, "first")
    _write(
        tmp_path,
        {"shop/stock.py": "", "shop/finder.py": "def lookup_item(name):\n    return name\n"},
    )
    _commit(tmp_path, "move")
    [(code, message, _, fix)] = _found(tmp_path)
    assert "removed" not in message and "is defined as `shop.finder.lookup_item`" in message
    assert fix["replacement"] == "shop.finder.lookup_item"
    (tmp_path / "shop" / "finder.py").unlink()
    _commit(tmp_path, "remove")
    [(code, message, _, _)] = _found(tmp_path)
    assert code == "DF107" and "`lookup_item` was removed in" in message


def test_history_tells_a_removed_attribute_and_a_removed_global(tmp_path):
    # flask: ``:attr:`Flask.build_error_handler``` after ``self.build_error_handler = None``
    # went from ``Flask.__init__``.
    _git(tmp_path, "init", "-q")
    before = """
        RETRIES = 3


        class App:
            def __init__(self):
                self.build_error_handler = None
                self.handlers = []


        def build(app):
            \"\"\"Calls :attr:`App.build_error_handler`, up to :data:`RETRIES` times.\"\"\"
            return app
        """
    _project(tmp_path, before)
    _commit(tmp_path, "first")
    after = textwrap.dedent(before).replace("        self.build_error_handler = None\n", "")
    (tmp_path / "shop" / "stock.py").write_text(after.replace("RETRIES = 3\n", ""))
    _commit(tmp_path, "drop")
    found = {message.split("`")[1]: message for _, message, _, _ in _found(tmp_path)}
    assert set(found) == {"App.build_error_handler", "RETRIES"}, found
    assert "`build_error_handler` was removed in" in found["App.build_error_handler"]
    assert "`RETRIES` was removed in" in found["RETRIES"]


def test_outside_git_and_in_the_cli_the_same(tmp_path):
    """The command line finds the same with history as the runner: one JSON report."""
    _repository(tmp_path, STALE.replace("count", "qty"))
    _commit(tmp_path, "first")
    (tmp_path / "shop" / "stock.py").write_text(textwrap.dedent(STALE))
    _commit(tmp_path, "rename")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "docfact",
            "check",
            str(tmp_path / "shop"),
            "--format",
            "json",
            "--no-cache",
            "--select",
            "DF102",
        ],
        capture_output=True,
        text=True,
    )
    report = json.loads(done.stdout)
    [finding] = report["diagnostics"]
    assert "`qty` was a parameter of `reserve` until" in finding["message"]
    assert [e["kind"] for e in finding["evidence"]] == ["history"]
    assert done.returncode == 1


def test_a_near_miss_of_a_builtin_is_evidence(tmp_path):
    # twisted: C{tupple}; celery: :class:`BaseExecption`
    _project(
        tmp_path,
        '''
        def pair(first, second):
            """Make a `tupple` of both; raises `BaseExecption` never."""
            return first, second
        ''',
    )
    fixes = sorted(fix["replacement"] for _, _, _, fix in _found(tmp_path))
    assert fixes == ["BaseException", "tuple"]


def test_a_misspelling_of_two_builtins_stands_with_no_fix(tmp_path):
    # twisted: "@return: A C{typle} of ..." (`tuple` or `type`)
    _project(
        tmp_path,
        '''
        def pair(first, second):
            """Make a pair.

            @return: A C{typle} of both.
            """
            return first, second
        ''',
    )
    [(code, message, evidence, fix)] = _found(tmp_path)
    assert code == "DF102" and fix is None
    assert message.endswith("did you mean `tuple` or `type`?")
    assert [e["kind"] for e in evidence] == ["near miss"]


def test_an_exception_named_with_the_other_conventional_word(tmp_path):
    # twisted: L{error.StanzaException} for error.StanzaError
    _project(
        tmp_path,
        '''
        from shop import errors

        def track(stream):
            """Fail with an L{errors.StanzaException} on an error stanza."""
            raise errors.StanzaError(stream)
        ''',
    )
    (tmp_path / "shop" / "errors.py").write_text(
        "class StanzaError(Exception):\n    pass\n\n\nclass StreamError(Exception):\n    pass\n"
    )
    [(code, message, evidence, fix)] = _found(tmp_path)
    assert (code, fix["replacement"]) == ("DF107", "errors.StanzaError"), message
    assert [e["kind"] for e in evidence] == ["near miss"]


def test_a_name_python_3_removed_is_evidence_with_its_successor(tmp_path):
    # twisted: L{types.ClassType}, L{RegexObject <re.RegexObject>}
    _project(
        tmp_path,
        '''
        import re

        def lookup(name, pattern):
            """Find a record.

            @param name: the name, a C{basestring}; compare the C{raw_input} method of
                L{readers}.
            @param pattern: the pattern
            @type pattern: L{RegexObject <re.RegexObject>}
            @rtype: L{types.ClassType}
            """
            return re.match(pattern, name)
        ''',
    )
    found = {
        fix["replacement"]: (code, message, evidence)
        for code, message, evidence, fix in _found(tmp_path)
    }
    assert sorted(found) == ["re.Pattern", "str", "type"]
    code, message, evidence = found["re.Pattern"]
    assert code == "DF107" and message.endswith("Python 2's name; Python 3 has `re.Pattern`")
    assert [e["kind"] for e in evidence] == ["history"]


def test_a_python_2_name_the_project_defines_for_itself_is_no_evidence(tmp_path):
    _project(
        tmp_path,
        '''
        def lookup(name):
            """Find a record by a C{basestring} name."""
            return name
        ''',
    )
    (tmp_path / "shop" / "compat.py").write_text("basestring = (str, bytes)\n")
    assert _found(tmp_path) == []


def test_history_runs_no_program_the_repository_configures(tmp_path):
    """A checked repository's own .git/config (a textconv driver, an fsmonitor hook) is
    the attacker's: reading its history runs none of it."""
    marker = tmp_path / "ran"
    _repository(tmp_path, STALE.replace("count", "qty"))
    (tmp_path / ".gitattributes").write_text("*.py diff=evil\n")
    _commit(tmp_path, "first")
    (tmp_path / "shop" / "stock.py").write_text(textwrap.dedent(STALE))
    _commit(tmp_path, "rename")
    _git(tmp_path, "config", "diff.evil.textconv", f"sh -c 'touch {marker}; cat \"$0\"'")
    _git(tmp_path, "config", "core.fsmonitor", f"sh -c 'touch {marker}'")
    assert [code for code, *_ in _found(tmp_path)] == ["DF102"]
    assert not marker.exists()


def test_a_doctest_calling_the_functions_former_name_stands(tmp_path):
    # scrapy's ``cachecontrol_directives(...)`` in the examples of ``parse_cachecontrol``
    _project(
        tmp_path,
        '''
        def gunzip_bytes(data):
            """Decompress.

            >>> ungzip_bytes(EMPTY) == b''
            True
            """
            return data
        ''',
    )
    [(code, _, evidence, fix)] = _found(tmp_path)
    assert code == "DF108" and fix["replacement"] == "gunzip_bytes"
    [former] = [e for e in evidence if e.get("kind") == "former name"]
    assert "never `gunzip_bytes` itself" in former["text"]
    # A name the examples' set-up may provide, sharing no word, stays unknown.
    (tmp_path / "shop" / "stock.py").write_text(
        (tmp_path / "shop" / "stock.py").read_text().replace("ungzip_bytes(", "inflate(")
    )
    assert _found(tmp_path) == []


def test_a_dotted_path_to_a_definition_the_project_has_elsewhere(tmp_path):
    # pymongo: ``~pymongo.asynchronous.operations.UpdateMany`` for ``pymongo.operations``'s.
    _project(tmp_path, "class UpdateMany:\n    pass\n")
    (tmp_path / "shop" / "client.py").write_text(
        'def bulk():\n    """Takes :class:`~shop.orders.UpdateMany` requests."""\n'
    )
    [(code, message, evidence, fix)] = _found(tmp_path)
    assert code == "DF107" and fix["replacement"] == "shop.stock.UpdateMany"
    assert "`UpdateMany` is defined as `shop.stock.UpdateMany`" in message
    [moved] = [e for e in evidence if e.get("kind") == "moved"]
    assert moved["path"].endswith("stock.py") and moved["line"] == 1
    # Two places of that name: which one was meant cannot be told.
    (tmp_path / "shop" / "other.py").write_text("class UpdateMany:\n    pass\n")
    assert _found(tmp_path) == []


def test_names_resolve_in_the_projects_own_environment(tmp_path):
    # A library the project imports is installed in its .venv, not where docfact runs:
    # its ``MetaData`` is no misspelling of the project's ``Metadata``.
    _project(
        tmp_path,
        '''
        import toolkit


        class Metadata:
            """The shop's own."""


        def connect():
            """Returns the `MetaData` of the connection."""
            return toolkit
        ''',
    )
    [(code, message, _, _)] = _found(tmp_path)
    assert code == "DF102" and "did you mean `Metadata`" in message
    library = committed_package(tmp_path, "toolkit")
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere.py"
    outside.write_text("class MetaData:\n    pass\n")
    # A repository's environment whose files link out of it (to the user's files) is
    # not read: the name stays a near miss of the project's.
    (library / "schema.py").symlink_to(outside)
    assert [code for code, *_ in _found(tmp_path)] == ["DF102"]
    (library / "schema.py").unlink()
    (library / "schema.py").write_text("class MetaData:\n    pass\n")
    assert _found(tmp_path) == []


def test_a_name_a_word_short_of_what_the_example_binds(tmp_path):
    # flask: "The resulting dictionary `image_store` would look like::" after an example
    # that binds ``image_store_config``.
    _project(
        tmp_path,
        '''
        def get_namespace(namespace):
            """Options of a namespace. Example usage::

                image_store_config = app.config.get_namespace('IMAGE_STORE_')

            The resulting dictionary `image_store` would look like this.
            """
            return namespace
        ''',
    )
    [(code, _, evidence, fix)] = _found(tmp_path)
    assert code == "DF102" and fix["replacement"] == "image_store_config"
    assert any("but for its last word" in e["text"] for e in evidence)


def test_a_class_named_with_its_words_reordered(tmp_path):
    # werkzeug: ":class:`StackLocal` objects" for its ``LocalStack``.
    _project(
        tmp_path,
        '''
        class LocalStack:
            """A stack."""


        def release():
            """Releases what :class:`StackLocal` objects hold."""
        ''',
    )
    [(code, _, _, fix)] = _found(tmp_path)
    assert code == "DF107" and fix["replacement"] == "LocalStack"


def test_history_of_a_plain_word_or_a_tests_helper_is_no_evidence(tmp_path):
    # invoke: "a collection with a ``build`` task" after a ``def build`` left an example;
    # redis: a doctest's ``my_handler`` callback after a test's ``my_handler`` went.
    _repository(tmp_path, "def build():\n    pass\n\n\ndef lookup_item():\n    pass\n")
    _write(
        tmp_path,
        {
            "tests/test_stock.py": "def my_handler():\n    pass\n",
            "shop/orders.py": 'def run():\n    """Runs a `build` task. Passes `my_handler` on. '
            'Uses `lookup_item`."""\n',
        },
    )
    _commit(tmp_path, "first")
    _write(tmp_path, {"shop/stock.py": "", "tests/test_stock.py": ""})
    _commit(tmp_path, "drop")
    found = [message.split("`")[1] for _, message, _, _ in _found(tmp_path)]
    assert found == ["lookup_item"]


def test_a_type_variable_a_commit_added_replaced_nothing(tmp_path):
    # apscheduler (fresh5): "`default_job_executor` was removed in 9620c15; `T` replaced it",
    # the one name that commit added to the file being a type variable.
    _repository(
        tmp_path,
        '''
        def default_job_executor():
            return "threadpool"

        def add_task(func):
            """Add a task; its executor is the value of `default_job_executor`."""
            return func
        ''',
    )
    _commit(tmp_path, "first")
    stock = tmp_path / "shop" / "stock.py"
    stock.write_text(
        stock.read_text().replace(
            'def default_job_executor():\n    return "threadpool"\n', 'T = TypeVar("T")\n'
        )
    )
    _commit(tmp_path, "task defaults")
    [(_, message, _, fix)] = _found(tmp_path)
    assert "`default_job_executor` was removed in" in message
    assert "replaced it" not in message and fix is None
