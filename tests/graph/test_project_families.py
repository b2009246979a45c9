"""Findings the whole project settles: false-alarm families seen on real projects.

Each test checks a small project through the CLI's own runner, and keeps a true finding
of the same shape beside the false alarm it guards against.
"""

from file_trees import write_tree

from docfact.config import Settings
from docfact.runner import check_paths


def findings(root, files, folder="pkg", preview=True):
    write_tree(root, files)
    report = check_paths([root / folder], Settings(preview=preview), root, None)
    return sorted(
        (d["symbol"].rsplit(".", 1)[-1], d["code"], d["message"].split("`")[1])
        for d in report.diagnostics
    )


def test_raises_through_an_attribute_an_override_or_a_factory(tmp_path):
    # trio: `self._lock.acquire_nowait()` raises WouldBlock through Lock; marshmallow:
    # `raise self.make_error(...)`, and a base's hook whose overrides raise.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sync.py": '''
            class WouldBlock(Exception):
                """Would block."""

            class Invalid(Exception):
                """Invalid."""

            class Lock:
                def __init__(self):
                    self.held = False

                def acquire_nowait(self):
                    if self.held:
                        raise WouldBlock

            class Condition:
                def __init__(self, lock):
                    self._lock = lock

                def acquire_nowait(self):
                    """Acquire.

                    Raises:
                        WouldBlock: if the lock is held.
                    """
                    return self._lock.acquire_nowait()

                def release(self):
                    """Release.

                    Raises:
                        Invalid: never, in fact.
                    """
                    self._lock.held = False

            class Field:
                def make_error(self, key):
                    return Invalid(key)

                def check(self, value):
                    """Check.

                    Raises:
                        Invalid: if missing.
                    """
                    if value is None:
                        raise self.make_error("required")

                def convert(self, value):
                    """Convert; fields override it.

                    Raises:
                        Invalid: if the value does not convert.
                    """
                    return value

            class Number(Field):
                def convert(self, value):
                    if not value.isdigit():
                        raise self.make_error("number")
                    return int(value)
        ''',
        },
    ) == [("release", "DF302", "Invalid")]


def test_raises_through_a_method_of_an_imported_module_level_instance(tmp_path):
    # tortoise-orm: ``return connections.get(name)``, ``connections = ConnectionHandler()``
    # in another module; a module function of the same name raises nothing.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/connection.py": """
            class ConfigurationError(Exception):
                pass

            class ConnectionHandler:
                def get(self, alias):
                    return self._create(alias)

                def _create(self, alias):
                    raise ConfigurationError(alias)

            connections = ConnectionHandler()
            """,
            "pkg/orm.py": '''
            from pkg.connection import connections
            from pkg import connection

            def get_connection(name):
                """Return the connection.

                :raises ConfigurationError: If the name does not exist.
                """
                return connections.get(name)

            def describe(name):
                """Describe it.

                :raises ConfigurationError: never, in truth.
                """
                return connection.ConnectionHandler
            ''',
        },
    ) == [("describe", "DF302", "ConfigurationError")]


def test_raises_through_a_property_a_setter_or_an_error_made_first(tmp_path):
    # textual: `self.screen.mount(...)` calls a method of what a property returns;
    # google-auth: `self.rules = rules` runs the property's setter, and
    # `new_exc = exceptions.X(...)` then `raise new_exc from caught_exc`.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/errors.py": '''
            class Invalid(Exception):
                """Invalid."""

            class Missing(Exception):
                """Missing."""
        ''',
            "pkg/app.py": '''
            from pkg import errors

            class Screen:
                def mount(self, widget):
                    if widget is None:
                        raise errors.Missing(widget)

            class App:
                @property
                def screen(self):
                    return Screen()

                def mount(self, widget):
                    """Mount on the screen.

                    Raises:
                        Missing: if there is no widget.
                    """
                    return self.screen.mount(widget)

            class Rule:
                def __init__(self, rules):
                    """Make a rule.

                    Raises:
                        Invalid: if the rules are not a list.
                    """
                    self.rules = rules

                @property
                def rules(self):
                    return self._rules

                @rules.setter
                def rules(self, value):
                    if not isinstance(value, list):
                        raise errors.Invalid(value)
                    self._rules = value

                def load(self, path):
                    """Load.

                    Raises:
                        errors.Invalid: if the file is not JSON.
                    """
                    try:
                        return open(path).read()
                    except ValueError as caught:
                        new_exc = errors.Invalid(caught)
                        raise new_exc from caught

                def save(self, path):
                    """Save.

                    Raises:
                        errors.Missing: never, in fact.
                    """
                    new_exc = errors.Invalid(path)
                    raise new_exc
        ''',
        },
    ) == [("save", "DF302", "errors.Missing")]


def test_abstract_methods_document_what_implementations_raise(tmp_path):
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/streams.py": '''
            from abc import ABC, abstractmethod

            class Closed(Exception):
                """Closed."""

            class Stream(ABC):
                @abstractmethod
                async def send_all(self, data):
                    """Send.

                    Raises:
                        Closed: if the stream was closed.
                    """

                def close(self):
                    """Close.

                    Raises:
                        Closed: never, in fact.
                    """
                    self.closed = True
        ''',
        },
    ) == [("close", "DF302", "Closed")]


def test_the_files_own_import_decides_which_exception_a_name_is(tmp_path):
    # A file imports ValidationError from another package; the project has its own.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/errors.py": '''
            class ValidationError(Exception):
                """The project's own."""
        ''',
            "pkg/schema.py": '''
            from jsonschema.exceptions import ValidationError
            from jsonschema import validate

            def check(document, schema):
                """Check it.

                Raises:
                    ValidationError: if the document does not fit.
                """
                validate(document, schema)
        ''',
            "pkg/local.py": '''
            from .errors import ValidationError

            def check(document):
                """Check it.

                Raises:
                    ValidationError: never, in fact.
                """
                return document
        ''',
        },
    ) == [("check", "DF302", "ValidationError")]


def test_imports_through_namespace_packages(tmp_path):
    # google-cloud-storage: google/ and google/cloud/ have no __init__.py; files import
    # `google.cloud.storage._helpers`, which the project names `storage._helpers`.
    assert findings(
        tmp_path,
        {
            "google/cloud/storage/__init__.py": "",
            "google/cloud/storage/exceptions.py": '''
            class InvalidResponse(Exception):
                """Bad status."""
        ''',
            "google/cloud/storage/_helpers.py": """
            from google.cloud.storage.exceptions import InvalidResponse

            def require_status_code(response, codes):
                if response.status not in codes:
                    raise InvalidResponse(response)
        """,
            "google/cloud/storage/upload.py": '''
            from google.cloud.storage import _helpers

            def process(response):
                """Process it.

                Raises:
                    ~google.cloud.storage.exceptions.InvalidResponse: if not 200.
                """
                _helpers.require_status_code(response, (200,))

            def cancel(response):
                """Cancel it.

                Raises:
                    ~google.cloud.storage.exceptions.InvalidResponse: never, in fact.
                """
                return response
        ''',
        },
        folder="google/cloud/storage",
    ) == [("cancel", "DF302", "google.cloud.storage.exceptions.InvalidResponse")]


def test_names_of_the_libraries_the_project_imports(tmp_path):
    # httpx: "``LWPCookieJar``" of http.cookiejar, which the project imports.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/cookies.py": '''
            from http.cookiejar import CookieJar

            def load(jar: CookieJar):
                """Load a ``LWPCookieJar`` or a ``MozillaCookieJar`` file into a ``CookieStash``."""
                return jar
        ''',
        },
    ) == [("load", "DF102", "CookieStash")]


def test_overload_stubs_inherit_no_docstring(tmp_path):
    # werkzeug: `@t.overload def best_match(self, matches)` above the documented one.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/accept.py": '''
            import typing as t

            class Accept:
                def best_match(self, matches, default=None):
                    """Best match.

                    :param matches: the candidates.
                    :param default: returned when none match.
                    """
                    return default

            class LanguageAccept(Accept):
                @t.overload
                def best_match(self, matches): ...
                @t.overload
                def best_match(self, matches, default): ...
                def best_match(self, matches, default=None):
                    """Best language.

                    :param matches: the candidates.
                    :param default: returned when none match.
                    """
                    return default

            class MimeAccept(Accept):
                def best_match(self, matches):
                    return None
        ''',
        },
    ) == [("best_match", "DF106", "best_match")]


def test_a_property_returning_a_delegates_method_inherits_its_parameters(tmp_path):
    # urwid: a wrapper's ``@property def mouse_event(self)`` returns the delegate's method,
    # whose parameters the base's docstring documents; a plain override lacks them.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/widget.py": '''
            class Widget:
                def mouse_event(self, size, event):
                    """Handle a mouse event.

                    :param size: the size
                    :param event: what happened
                    """
                    return size, event

            class Delegate(Widget):
                @property
                def mouse_event(self):
                    return self.inner.mouse_event

            class Plain(Widget):
                def mouse_event(self, size):
                    return size
        ''',
        },
    ) == [("mouse_event", "DF106", "mouse_event")]


def test_a_reference_is_read_in_its_module_not_its_package(tmp_path):
    # falcon: `json.JSONEncoder` in falcon/media/json.py; google-cloud-storage:
    # `requests.Session.request` beside a subpackage _media/requests.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/media/__init__.py": "",
            "pkg/media/requests/__init__.py": "",
            "pkg/media/json.py": '''
            import json

            def dumps(obj):
                """Encode with :class:`json.JSONEncoder`, through
                :meth:`requests.Session.request`, or :class:`json.JSONEncodr`."""
                return json.dumps(obj)
        ''',
        },
    ) == [("dumps", "DF107", "json.JSONEncodr")]


def test_relative_references_find_attributes_and_module_variables(tmp_path):
    # falcon: ":attr:`~.ws_options`" (an instance attribute); google-cloud-storage:
    # ":data:`.UPLOAD_CHUNK_SIZE`" (a module variable).
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/common.py": "UPLOAD_CHUNK_SIZE = 262144\n",
            "pkg/app.py": '''
            class App:
                ws_options: dict

                def __init__(self):
                    self.ws_options = {}
                    self.scope = None

                def upload(self, size):
                    """Upload; ``size`` is a multiple of :data:`.UPLOAD_CHUNK_SIZE`, see
                    :attr:`~.ws_options`, :attr:`~.scope` and :attr:`~.wss_options`."""
                    return size
        ''',
        },
    ) == [("upload", "DF107", "wss_options")]


def test_a_callable_bound_at_run_time_may_raise_anything(tmp_path):
    # trio: `raise_cancel = PARENT_TASK_DATA.cancel_register[0]; raise_cancel()`.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/threads.py": '''
            class Cancelled(Exception):
                """Cancelled."""

            REGISTER = {}

            def check_cancelled():
                """Check.

                Raises:
                    Cancelled: if the task was cancelled.
                """
                raise_cancel = REGISTER["task"]
                raise_cancel()

            def check_length(items):
                """Check.

                Raises:
                    Cancelled: never, in fact.
                """
                return len(items)
        ''',
        },
    ) == [("check_length", "DF302", "Cancelled")]


def test_a_stub_documents_what_its_implementation_raises(tmp_path):
    # trio: `if TYPE_CHECKING: async def open_process(...): """... Raises: OSError"""`.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/process.py": '''
            import typing

            if typing.TYPE_CHECKING:
                def open_process(command):
                    """Start it.

                    Raises:
                        OSError: if the command cannot be found.
                    """
            else:
                from ._impl import open_process

            def describe(command):
                """Describe it.

                Raises:
                    ValueError: never, in fact.
                """
                return command
        ''',
        },
    ) == [("describe", "DF302", "ValueError")]


def test_a_role_target_read_as_an_absolute_name_of_a_package_imported_from_outside(tmp_path):
    # sphinx: `from sphinx.util import docutils` in the file, and
    # :class:`~docutils.transforms.Transform` in a docstring: Sphinx reads the target as
    # an absolute name, the docutils library's (which other files import). A member the
    # project's own module lacks, written through a name no outside package has, stands.
    assert findings(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/util/__init__.py": "",
            "pkg/util/docutils.py": "def new_document():\n    return None\n",
            "pkg/util/helpers.py": "def assist():\n    return None\n",
            "pkg/nodes.py": "from docutils import nodes\n",
            "pkg/app.py": '''
            from pkg.util import docutils, helpers

            def add_transform(transform):
                """Add a :class:`~docutils.transforms.Transform`, after
                :func:`helpers.asist`."""
                return docutils.new_document(), helpers.assist(), transform
        ''',
        },
    ) == [("add_transform", "DF107", "helpers.asist")]


def test_a_public_name_is_no_near_miss_of_another_modules_private_one(tmp_path):
    # boltons (fresh3): `:class:`file`` and `:meth:`file.seek`` (Python 2's file type) were
    # "did you mean `_file`?", a private method of a class in another module.
    files = {
        "pkg/__init__.py": "",
        "pkg/streams.py": '''
        class SpooledBytes:
            @property
            def _file(self):
                return None

        class Buffer:
            """A buffer."""
        ''',
        "pkg/loads.py": '''
        def read_lines(stream):
            """Read lines with the :meth:`file.seek` method of :class:`file` objects."""
            return stream
        ''',
    }
    # Without evidence the name is unknown: shown in preview only.
    assert findings(tmp_path, files, preview=False) == []
    # A misspelt public name of the project is still reported by default.
    files["pkg/loads.py"] = files["pkg/loads.py"].replace(":class:`file`", ":class:`Bufer`")
    assert findings(tmp_path, files, preview=False) == [("read_lines", "DF107", "Bufer")]
    # A module's private twin is a name a bare target can mean (scikit-image's `plugins`
    # beside `io._plugins`): still evidence.
    files["pkg/_plugins.py"] = ""
    files["pkg/loads.py"] = files["pkg/loads.py"].replace(":class:`Bufer`", ":func:`plugins`")
    assert findings(tmp_path, files, preview=False) == [("read_lines", "DF107", "plugins")]


def test_a_python_2_name_beside_its_python_3_successor_is_a_comparison(tmp_path):
    # boltons (fresh3): "In the spirit of :func:`range` and :func:`xrange`, ..." names
    # both on purpose; alone, Python 2's name is stale and told as such.
    files = {
        "pkg/__init__.py": "",
        "pkg/dates.py": '''
        def daterange(start, stop):
            """In the spirit of :func:`range` and :func:`xrange`, yield dates."""
            yield start
        ''',
    }
    assert findings(tmp_path, files, preview=False) == []
    files["pkg/dates.py"] = files["pkg/dates.py"].replace(":func:`range` and ", "")
    assert findings(tmp_path, files, preview=False) == [("daterange", "DF107", "xrange")]


def test_a_bare_target_is_no_near_miss_of_another_classs_member(tmp_path):
    # jinja (fresh5): "the reverse operation for :func:`safe`" (the filter named safe) was
    # "did you mean `save`?", a method of a class in another module.
    files = {
        "pkg/__init__.py": "",
        "pkg/nodes.py": """
        class EvalContext:
            def save(self):
                return {}
        """,
        "pkg/filters.py": '''
        class Loop:
            """A loop, caching what it peeked in :attr:`_last`."""

            def __init__(self):
                self._after = None

            @property
            def last(self):
                return self._after

        def mark_unsafe(value):
            """The reverse operation for :func:`safe`."""
            return value
        ''',
    }
    assert findings(tmp_path, files, preview=False) == [("Loop", "DF107", "_last")]
    # A misspelt member of the docstring's own class is still a near miss.
    files["pkg/filters.py"] = files["pkg/filters.py"].replace(":attr:`_last`", ":attr:`lats`")
    assert findings(tmp_path, files, preview=False) == [("Loop", "DF107", "lats")]


def test_the_plural_of_a_class_in_an_entrys_type_is_its_instances(tmp_path):
    # dask (fresh5): "targets: array-like or Delayed or collection of array-likes and/or
    # Delayeds": the plural of the class, not a misspelling of it.
    files = {
        "pkg/__init__.py": "",
        "pkg/delayed.py": "class Delayed:\n    pass\n",
        "pkg/store.py": '''
        from pkg.delayed import Delayed

        def store(targets):
            """Store.

            Parameters
            ----------
            targets : Delayed or collection of Delayeds
                Where to store.
            """
            return Delayed, targets
        ''',
    }
    assert findings(tmp_path, files, preview=False) == []
    files["pkg/store.py"] = files["pkg/store.py"].replace("of Delayeds", "of Delayd")
    assert findings(tmp_path, files, preview=False) == [("store", "DF107", "Delayd")]


def test_raises_through_a_property_of_what_an_attribute_holds(tmp_path):
    # python-telegram-bot (fresh5): `decrypted_credentials` returns
    # `self.credentials.decrypted_data`, a property of another class that decrypts and raises.
    files = {
        "pkg/__init__.py": "",
        "pkg/passport.py": '''
        class DecryptionError(Exception):
            """Decryption failed."""

        class Encrypted:
            def __init__(self, data):
                self.data = data

            @property
            def decrypted_data(self):
                if not self.data:
                    raise DecryptionError
                return self.data

        class Passport:
            def __init__(self, credentials):
                self.credentials = credentials

            @property
            def decrypted_credentials(self):
                """The credentials, decrypted.

                Raises:
                    DecryptionError: if decryption fails.
                """
                return self.credentials.decrypted_data
        ''',
    }
    assert findings(tmp_path, files, preview=False) == []
    # What is only read there raises nothing: a plain attribute runs no code.
    files["pkg/passport.py"] = files["pkg/passport.py"].replace(
        "self.credentials.decrypted_data\n", "self.credentials.data\n"
    )
    assert findings(tmp_path, files, preview=False) == [
        ("decrypted_credentials", "DF302", "DecryptionError")
    ]
