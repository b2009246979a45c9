"""A function's home in its project: its module, the project around it, the interpreter
that runs the project, and the arguments the project calls it with.

SONAR's Correctness runs the function where it lives (``_driver.py`` imports the module in
the sandbox), so that a function using its module's helpers, constants and classes runs
as it does in the project. This module only reads files: nothing here executes code, and
what it finds (argument lists, instance recipes) is evaluated in the sandbox alone.
"""

from __future__ import annotations

import ast
import asyncio
import configparser
import copy
import doctest
import functools
import hashlib
import logging
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..source.files import SkippedFile, read_regular
from ..source.walk import walk_folders

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
VENV_NAMES = (".venv", "venv", "env")
SKIPPED_DIRS = {"__pycache__", "node_modules", "site-packages", "dist-packages", "build", "dist"}
MAX_FILES = 3000  # files read for call sites; a larger tree is read in part
MAX_FILE_BYTES = 1_000_000
CONFIG_BYTES = 64 << 10  # a pyvenv.cfg is a few lines
MAX_CALLS = 24  # argument lists kept per function
MAX_INSTANCES = 6  # instance recipes kept per class
_PARSER_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Interpreter:
    """The Python that runs the project, and the folders its environment lives in."""

    executable: str | None  # None: docfact's own interpreter
    roots: tuple[str, ...]
    origin: str  # "docfact's", "the project's .venv", "sonar.python"


@dataclass(frozen=True)
class Home:
    module: str  # dotted name
    path: str  # the module's file
    text: str  # its source as docfact read it (an editor's unsaved text included)
    qualname: str  # "Class.method" or "function"
    import_root: str  # the folder the module's top package is imported from
    project_root: str
    python: Interpreter
    calls: tuple[str, ...]  # argument lists seen in the project: "(3, key=str)"
    instances: tuple[str, ...]  # expressions the project builds the method's class with

    def request(self, load_s: float) -> dict:
        """What ``_driver.py`` reads as ``home``."""
        return {
            "name": self.module,
            "path": self.path,
            "text": self.text,
            "is_package": Path(self.path).name == "__init__.py",
            "import_root": self.import_root,
            "qualname": self.qualname,
            "calls": list(self.calls),
            "instances": list(self.instances),
            "load_s": load_s,
        }

    def read_paths(self) -> tuple[str, ...]:
        return (self.project_root, self.import_root, *self.python.roots)

    def key(self) -> tuple:
        """What a result measured here depends on, for cache keys."""
        return (
            self.module,
            self.qualname,
            hashlib.sha256(self.text.encode("utf-8", "replace")).hexdigest(),
            self.calls,
            self.instances,
            self.python.executable,
        )


def home_of(
    path: str, module: str, text: str, qualname: str, python: str | None = None
) -> Home | None:
    """The home of the function ``qualname`` of the module file ``path`` (None when the file
    is not a Python module on disk: an unsaved buffer has no package to import from)."""
    place = _place(path, module, python)
    if place is None:
        return None
    return _home(place, module, text, qualname, _texts_naming(place[1], *_names(qualname)))


# The module file, the project root, the import root, the interpreter.
_Place = tuple[Path, Path, Path, "Interpreter"]


def _names(qualname: str) -> tuple[str, str]:
    """(the function's name, its class's name or "")."""
    owner, _, name = qualname.rpartition(".")
    return name, owner.rpartition(".")[2]


def _place(path: str, module: str, python: str | None) -> _Place | None:
    """(the module file, the project root, the import root, the interpreter), or None."""
    file = Path(path).resolve()
    if file.suffix != ".py" or not file.is_file():
        return None
    if _leads_out(Path(os.path.abspath(path)), module):
        return None
    import_root = _import_root(file, module)
    project_root = _project_root(file.parent, import_root)
    return file, project_root, import_root, project_interpreter(project_root, python)


def _leads_out(written: Path, module: str) -> bool:
    """Whether the module file, as written, is a symbolic link leading out of its project
    (the jail would mount wherever it points, a private folder included)."""
    real = written.resolve()
    if real == written:
        return False
    project = _project_root(written.parent, _import_root(written, module)).resolve()
    return not real.is_relative_to(project)


def _home(place: _Place, module: str, text: str, qualname: str, texts: list[str]) -> Home:
    file, project_root, import_root, interpreter = place
    calls, instances = seen_arguments(text, texts, *_names(qualname))
    return Home(
        module,
        str(file),
        text,
        qualname,
        str(import_root),
        str(project_root),
        interpreter,
        calls,
        instances,
    )


def project_root_of(path: str, module: str) -> str:
    """The root of the project the module file ``path`` belongs to (its folder when the
    file is not on disk)."""
    file = Path(path).resolve()
    if not file.is_file():
        return str(file.parent)
    return str(_project_root(file.parent, _import_root(file, module)))


def _import_root(file: Path, module: str) -> Path:
    # stdcopy/textwrap.py is stdcopy.textwrap: imported from two folders up; a package's
    # __init__.py from one more.
    depth = module.count(".") + (file.name == "__init__.py")
    return file.parents[min(depth, len(file.parents) - 1)]


def _project_root(folder: Path, import_root: Path) -> Path:
    """The nearest folder above the module with a project marker, not above what holds
    the import root's own marker; the import root when there is none."""
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in PROJECT_MARKERS):
            return (
                candidate
                if import_root.is_relative_to(candidate) or candidate == import_root
                else import_root
            )
        if candidate == Path(candidate.anchor) or candidate == Path.home():
            break
    return import_root


# --- the interpreter ------------------------------------------------------------------


def project_interpreter(project_root: Path, configured: str | None = None) -> Interpreter:
    """``configured`` (``sonar.python``), else the project's virtual environment
    (.venv, venv or env with a pyvenv.cfg), else docfact's own interpreter."""
    if configured:
        executable = Path(configured).expanduser()
        if not executable.is_absolute():
            executable = project_root / executable
        return Interpreter(str(executable), _environment_roots(executable), "sonar.python")
    for name in VENV_NAMES:
        folder = project_root / name
        executable = folder / "bin" / "python"
        if (
            (folder / "pyvenv.cfg").is_file()
            and executable.exists()
            # a link leading out of the project is not the project's environment
            and folder.resolve().is_relative_to(project_root.resolve())
        ):
            return Interpreter(
                str(executable), _environment_roots(executable), f"the project's {name}"
            )
    return Interpreter(None, (), "docfact's")


def _environment_roots(executable: Path) -> tuple[str, ...]:
    """The folders a (virtual) environment's interpreter reads: its prefix (its own
    packages), and, of the base installation its pyvenv.cfg names or its executable links
    to, only the library folders, and only when that is a real Python installation (a
    repository's ``home = ~/.ssh`` names a folder the jail must never show)."""
    prefix = executable.parent.parent.resolve()
    roots = {str(prefix)}
    try:  # a regular file of the environment's own: a FIFO or /proc/kmsg would hang
        text = read_regular(prefix / "pyvenv.cfg", CONFIG_BYTES, within=[prefix])
    except SkippedFile:
        text = b""
    parser = configparser.ConfigParser()
    try:
        parser.read_string("[venv]\n" + text.decode("utf-8", errors="replace"))
        home = parser.get("venv", "home", fallback="")
    except configparser.Error:
        home = ""
    if home:
        roots.update(installation_libraries(Path(home).expanduser()))
    real = executable.resolve()
    if not real.is_relative_to(prefix):  # a link out of the environment
        roots.update(installation_libraries(real.parent))
    return tuple(sorted(root for root in roots if root != "/"))


def installation_libraries(bin_dir: Path) -> tuple[str, ...]:
    """When ``bin_dir`` holds the interpreter of a real Python installation (a
    ``python3.X`` program, and ``lib/python3.X/os.py`` beside it), what of it an
    interpreter linking there reads: the standard library folder, the program, and the
    shared ``libpython``; else nothing."""
    try:
        bin_dir = bin_dir.resolve()
        prefix = bin_dir.parent
        for library in sorted([*prefix.glob("lib/python3.*"), *prefix.glob("lib64/python3.*")]):
            version = library.name.removeprefix("python")
            program = bin_dir / f"python{version}"
            if (library / "os.py").is_file() and program.is_file() and os.access(program, os.X_OK):
                shared = library.parent.glob(f"libpython{version}*.so*")
                return (
                    str(library),
                    str(program.resolve()),
                    *(str(lib.resolve()) for lib in shared if lib.is_file()),
                )
    except OSError:
        pass  # unreadable: not an installation to show
    return ()


# --- arguments seen in the project ----------------------------------------------------


def seen_arguments(
    module_text: str, texts: list[str], name: str, owner: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Argument lists of the calls of ``name`` (``name(...)``, ``x.name(...)``) in the
    module's doctests and in the project's files ``texts`` (and their doctests), and the
    expressions that build an ``owner`` (for a method; ``owner`` is "" for a function),
    literal ones first."""
    calls: dict[str, bool] = {}
    instances: dict[str, bool] = {}
    for tree in _parsed(module_text)[1]:
        _collect(tree, None, name, owner, calls, instances)
    for text in texts:
        parsed, doctest_trees = _parsed(text)
        if parsed is None:
            continue
        _collect(parsed, text, name, owner, calls, instances)
        for doctest_tree in doctest_trees:
            _collect(doctest_tree, None, name, owner, calls, instances)
    return _ranked(calls, MAX_CALLS), _ranked(instances, MAX_INSTANCES)


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> tuple[ast.Module | None, tuple[ast.Module, ...]]:
    """``text`` parsed (None when it does not parse), and its doctest examples parsed:
    kept, since every function of a run looks through the same files (and they are only
    read)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None, ()
    return tree, tuple(_doctest_trees(tree))


def _ranked(found: dict[str, bool], limit: int) -> tuple[str, ...]:
    """Literal ones (True) first, in the order seen."""
    return tuple(sorted(found, key=lambda text: not found[text])[:limit])


def _doctest_trees(tree: ast.Module) -> list[ast.Module]:
    """The examples of every docstring in ``tree``, parsed (those that parse)."""
    found = []
    parser = doctest.DocTestParser()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=True)
            if not docstring or ">>>" not in docstring:
                continue
            try:
                examples = parser.get_examples(docstring)
            except ValueError:
                continue
            for example in examples:
                try:
                    found.append(ast.parse(example.source))
                except (SyntaxError, ValueError):
                    continue
    return found


def _collect(
    tree: ast.AST,
    text: str | None,
    name: str,
    owner: str,
    calls: dict[str, bool],
    instances: dict[str, bool],
) -> None:
    index = _calls_by_name(tree)
    for node in index.get(name, ()):
        if not _on_class(node.func, owner):
            _add(calls, node, text)
    for test, rows in _parametrized(tree):
        for node in _calls_by_name(test).get(name, ()):
            if not _on_class(node.func, owner):
                for row in rows:
                    _add(calls, _substituted(node, row), None)
    for node in index.get(owner, ()) if owner and owner != name else ():
        recipe = _arguments(node, text)
        if recipe is not None:
            instances.setdefault(owner + recipe, _literal(node))


@functools.lru_cache(maxsize=256)
def _parametrized(tree: ast.AST) -> list[tuple[ast.AST, list[dict[str, ast.expr]]]]:
    """The test functions of ``tree`` with ``@pytest.mark.parametrize`` rows, each row the
    value of every parameter it names (``"a, b", [(1, 2), (3, 4)]`` -> {a: 1, b: 2}, ...),
    so that a call ``f(a, b)`` in the test is read as ``f(1, 2)`` and ``f(3, 4)``."""
    found: list[tuple[ast.AST, list[dict[str, ast.expr]]]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        rows: list[dict[str, ast.expr]] = [{}]
        for decorator in node.decorator_list:
            table = _parametrize_rows(decorator)
            if table:  # stacked decorators: every combination (kept few)
                rows = [{**row, **more} for row in rows for more in table][:MAX_CALLS]
        if rows != [{}]:
            found.append((node, rows))
    return found


def _parametrize_rows(decorator: ast.expr) -> list[dict[str, ast.expr]]:
    """The rows of one ``parametrize(names, values)`` decorator (none for another one)."""
    if not (
        isinstance(decorator, ast.Call)
        and _callee_name(decorator.func) == "parametrize"
        and len(decorator.args) >= 2
        and isinstance(decorator.args[1], (ast.List, ast.Tuple))
    ):
        return []
    names_node = decorator.args[0]
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",") if n.strip()]
    elif isinstance(names_node, (ast.List, ast.Tuple)):
        names = [
            n.value
            for n in names_node.elts
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
    else:
        return []
    rows = []
    for value in decorator.args[1].elts:
        if isinstance(value, ast.Call) and _callee_name(value.func) == "param":
            value = ast.Tuple(elts=value.args, ctx=ast.Load()) if len(names) > 1 else value.args[0]
        values = [value] if len(names) == 1 else getattr(value, "elts", None)
        if values is not None and len(values) == len(names):
            rows.append(dict(zip(names, values)))
    return rows


def _callee_name(callee: ast.expr) -> str:
    return callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")


def _substituted(call: ast.Call, row: dict[str, ast.expr]) -> ast.Call:
    """``call`` with the test's parameters replaced by this row's values."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            return row.get(node.id, node)

    copied = ast.Call(func=call.func, args=list(call.args), keywords=list(call.keywords))
    return Substitute().visit(copy.deepcopy(copied))


@functools.lru_cache(maxsize=1024)
def _calls_by_name(tree: ast.AST) -> dict[str, list[ast.Call]]:
    """The calls in ``tree`` by the name called (``f(...)``, ``x.f(...)``), in the order
    ``ast.walk`` meets them: walked once, not once per function of a run."""
    index: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Name):
                index.setdefault(callee.id, []).append(node)
            elif isinstance(callee, ast.Attribute):
                index.setdefault(callee.attr, []).append(node)
    return index


def _on_class(callee: ast.expr, owner: str) -> bool:
    """``Owner.method(instance, ...)``: its first argument is the instance, not an input."""
    return (
        bool(owner)
        and isinstance(callee, ast.Attribute)
        and isinstance(callee.value, ast.Name)
        and callee.value.id == owner
    )


def _add(calls: dict[str, bool], node: ast.Call, text: str | None) -> None:
    arguments = _arguments(node, text)
    if arguments is not None:
        calls.setdefault(arguments, _literal(node))


def _arguments(node: ast.Call, text: str | None) -> str | None:
    """ "(a, b, key=c)" as written (normalised through ast when the text is a doctest)."""
    parts = []
    for argument in node.args:
        written = _source(argument, text)
        if written is None:
            return None
        parts.append(written)
    for keyword in node.keywords:
        value = _source(keyword.value, text)
        if value is None:
            return None
        parts.append(f"{keyword.arg}={value}" if keyword.arg else f"**{value}")
    return "(" + ", ".join(parts) + ")"


def _source(node: ast.expr, text: str | None) -> str | None:
    segment = _segment(text, node) if text is not None else None
    if segment is None:
        try:
            segment = ast.unparse(node)
        except (ValueError, RecursionError):
            return None
    return " ".join(segment.split()) if "\n" in segment else segment


def _segment(text: str, node: ast.expr) -> str | None:
    """``ast.get_source_segment`` from lines split once per text (it splits the whole text
    again on every call: most of a cached run's time)."""
    end_line, end_col = node.end_lineno, node.end_col_offset
    if end_line is None or end_col is None:
        return None
    lines = _utf8_lines(text)
    first, last = node.lineno - 1, end_line - 1
    if last >= len(lines):
        return None
    if first == last:
        return lines[first][node.col_offset : end_col].decode()
    parts = [lines[first][node.col_offset :], *lines[first + 1 : last], lines[last][:end_col]]
    return b"".join(parts).decode()


@functools.lru_cache(maxsize=256)
def _utf8_lines(text: str) -> list[bytes]:
    # lines as the parser counts them: ended by \r\n, \r or \n only (not \f or \v)
    return [line.encode() for line in _PARSER_LINES.findall(text)]


def _literal(node: ast.Call) -> bool:
    try:
        for value in [*node.args, *(k.value for k in node.keywords)]:
            ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _texts_naming(project_root: Path, name: str, owner: str) -> list[str]:
    """The texts of the project's Python files that hold ``name(`` or ``owner(``."""
    return _naming(_project_data(project_root), name, owner)


def _project_data(project_root: Path) -> list[bytes]:
    """The contents of the project's Python files: regular files of the project only, not
    too large to read (a FIFO held the run for good, a link to /dev/zero read without end,
    and one leading out of the project read the user's file)."""
    found = []
    for path in _python_files(str(project_root)):
        try:
            found.append(read_regular(path, MAX_FILE_BYTES, within=(project_root,), limit=""))
        except SkippedFile:
            continue
    return found


def _naming(contents: list[bytes], name: str, owner: str) -> list[str]:
    needles = [f"{word}(".encode() for word in (name, owner) if word]
    return [
        data.decode("utf-8", "replace")
        for data in contents
        if any(needle in data for needle in needles)
    ]


class Homes:
    """The homes of the functions of one run (a ``check`` over a project): each file's
    place and each project's files are found once, not once per function."""

    def __init__(self) -> None:
        self._places: dict[tuple[str, str, str | None], _Place | None] = {}
        self._contents: dict[Path, list[bytes]] = {}

    async def find(
        self, path: str, module: str, text: str, qualname: str, python: str | None = None
    ) -> Home | None:
        """``home_of``, from what this run has already read, with the file system read off
        the event loop and the code parsed on it (two threads parsing at once can break
        CPython 3.11's ast module)."""
        key = (path, module, python)
        if key not in self._places:
            self._places[key] = await asyncio.to_thread(_place, path, module, python)
        place = self._places[key]
        if place is None:
            return None
        if place[1] not in self._contents:
            self._contents[place[1]] = await asyncio.to_thread(_project_data, place[1])
        texts = _naming(self._contents[place[1]], *_names(qualname))
        return _home(place, module, text, qualname, texts)


def _python_files(project_root: str) -> list[Path]:
    """The project's Python files (hidden folders, environments and builds left out)."""
    files: list[Path] = []

    def said(folder: str, reason: str) -> None:
        log.warning("SONAR reads the project's call sites: %s: %s", folder, reason)

    for folder, subfolders, names in walk_folders(project_root, said):
        subfolders[:] = sorted(
            d
            for d in subfolders
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not (Path(folder, d) / "pyvenv.cfg").exists()
        )
        files += [Path(folder, n) for n in sorted(names) if n.endswith(".py")]
        if len(files) >= MAX_FILES:
            break
    return files[:MAX_FILES]


def docfact_support_path() -> list[str]:
    """Folders of docfact's environment holding hypothesis and what it imports, for a
    project interpreter that has none."""
    import importlib.util

    folders = []
    for name in ("hypothesis", "attr", "sortedcontainers", "exceptiongroup"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            folder = str(Path(spec.origin).resolve().parent.parent)
            if folder not in folders:
                folders.append(folder)
    return folders or [p for p in sys.path if p.endswith("site-packages")]


def function_at(text: str, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The definition ``qualname`` ("Class.method", "function") names in module ``text``."""
    scope = definition_at(text, qualname)
    return scope if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def class_at(text: str, qualname: str) -> ast.ClassDef | None:
    """The class ``qualname`` names in module ``text``."""
    scope = definition_at(text, qualname)
    return scope if isinstance(scope, ast.ClassDef) else None


def definition_at(text: str, qualname: str) -> ast.AST | None:
    """The function or class definition ``qualname`` names in module ``text``."""
    try:
        scope: ast.AST | None = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for part in qualname.split("."):
        scope = next(
            (
                n
                for n in _members(scope)
                if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == part
            ),
            None,
        )
        if scope is None:
            return None
    return scope


def _members(scope: ast.AST | None) -> list[ast.stmt]:
    """The statements of a module's or class's body, those under an ``if``, ``try`` or
    ``with`` included (a function defined only on some platforms, or when an import
    failed, is still the module's)."""
    found = []
    for node in getattr(scope, "body", ()):
        found.append(node)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            nested = [*node.body, *getattr(node, "orelse", ()), *getattr(node, "finalbody", ())]
            for handler in getattr(node, "handlers", ()):
                nested += handler.body
            found += _members(ast.Module(body=nested, type_ignores=[]))
    return found


def takes_instance(home: Home) -> bool:
    """Whether the function is a method the driver calls with an instance or the class
    first (a method of a class that is not a staticmethod)."""
    owner = home.qualname.rpartition(".")[0]
    node = function_at(home.text, home.qualname)
    if not owner or node is None or not _is_class_path(home.text, owner):
        return False
    return not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _is_class_path(text: str, qualname: str) -> bool:
    try:
        scope: ast.AST | None = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    for part in qualname.split("."):
        scope = next(
            (n for n in _members(scope) if isinstance(n, ast.ClassDef) and n.name == part),
            None,
        )
        if scope is None:
            return False
    return True
