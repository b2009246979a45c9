"""Symbols outside the project (the standard library, installed packages), read
statically from their source files: nothing is imported or run. ``external_evidence``
gives one symbol's signature and summary; ``defined_outside`` says whether a name exists
there at all (what a docstring may name from another library); ``stdlib_module_names``
what one module of the standard library has."""

from __future__ import annotations

import ast
import builtins
import importlib
import os
import re
import sys
import sysconfig
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from ..model import Evidence, Unit
from ..source.files import SkippedFile, decode_source, read_regular
from ..source.python import parse_module
from ..source.walk import walk_folders

_MAX_BYTES = 1_000_000
_REEXPORT_HOPS = 3  # modules followed from where a name is imported to where it is defined
_SUMMARY_CHARS = 600


def external_evidence(dotted: str, relation: str) -> Evidence | None:
    """The signature and docstring of ``dotted`` (``os.path.join``) from its source file,
    or None when no source can be found (a C extension, a name that does not exist)."""
    found = _locate(dotted)
    if found is None:
        return None
    path, unit = found
    signature = unit.signature.rendered() if unit.signature else ""
    summary = unit.docstring.value.split("\n\n", 1)[0] if unit.docstring else ""
    text = f"# {relation}: {dotted}{signature}  (from {path.name})"
    if summary:
        text += f'\n"""{summary[:_SUMMARY_CHARS]}"""'
    return Evidence(dotted, str(path), unit.def_line + 1, text)


def _locate(dotted: str, hops: int = _REEXPORT_HOPS) -> tuple[Path, Unit] | None:
    """(source file, definition) of ``dotted``, from the longest importable prefix, through
    the modules that re-export it (``os.path`` is ``posixpath``; ``from x import *``)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        source = _module_source(tuple(parts[:cut]))
        if source is not None:
            return _definition(source, ".".join(parts[cut:]), hops)
    return None


_BASE_DEPTH = 6  # classes followed up an outside class's bases


def class_members_outside(dotted: str, depth: int = _BASE_DEPTH) -> frozenset[str] | None:
    """The names a class of the standard library or an installed package may have as
    members, read from its source: every name its body uses, and those of its bases in
    turn; None when its source, or a base's, cannot be read (a C class, a package not
    installed), so that it may have any member."""
    found = _locate(dotted)
    if found is None or found[1].kind != "class" or depth == 0:
        return None
    path, unit = found
    names = set(unit.attributes)
    module = ".".join(_module_parts(path))
    for base in unit.bases:
        base = base.split("[")[0].strip()
        if "=" in base or base in ("object", "Generic", "typing.Generic"):
            continue  # a metaclass, or what gives no members of note
        builtin = getattr(builtins, base, None) if base not in names else None
        if isinstance(builtin, type):  # a C class: its members are listed by dir()
            names.update(dir(builtin))
            continue
        inherited = class_members_outside(f"{module}.{base}", depth - 1)
        if inherited is None:
            return None
        names |= inherited
    return frozenset(names)


def _definition(path: Path, qualname: str, hops: int) -> tuple[Path, Unit] | None:
    units, imports = _parsed(path)
    if qualname in units:
        return path, units[qualname]
    if hops == 0:
        return None
    head, _, rest = qualname.partition(".")
    module = _module_parts(path)
    package = ".".join(module if path.name == "__init__.py" else module[:-1])
    for target in _import_targets(".".join(module), head, imports):
        found = _locate(_absolute(target, package) + (f".{rest}" if rest else ""), hops - 1)
        if found is not None:
            return found
    for local, target in imports:
        if local == "*":
            found = _locate(f"{_absolute(target, package)}.{qualname}", hops - 1)
            if found is not None:
                return found
    return None


def _import_targets(module: str, local: str, imports: Iterable[tuple[str, str]]) -> list[str]:
    """What ``local`` is imported from in ``module``. Where the import depends on the
    platform (``os`` imports ``posixpath`` or ``ntpath`` as ``path``), the module this
    interpreter already loaded under that name says which (its name only: nothing is
    imported or run)."""
    loaded = sys.modules.get(f"{module}.{local}")
    if loaded is not None and isinstance(getattr(loaded, "__name__", None), str):
        return [loaded.__name__]
    return [target for name, target in imports if name == local]


def _module_parts(path: Path) -> tuple[str, ...]:
    """The dotted module of a source file under one of the search roots."""
    for root in _search_roots():
        try:
            relative = path.relative_to(root)
        except ValueError:
            continue
        parts = relative.with_suffix("").parts
        return parts[:-1] if parts[-1] == "__init__" else parts
    return (path.stem,)


def _absolute(target: str, package: str) -> str:
    """An import target with its leading dots resolved against ``package``."""
    if not target.startswith("."):
        return target
    dots = len(target) - len(target.lstrip("."))
    base = package.split(".") if package else []
    base = base[: len(base) - (dots - 1)] if dots > 1 else base
    return ".".join(part for part in (*base, target[dots:]) if part)


@lru_cache(maxsize=4096)
def _module_source(module: tuple[str, ...]) -> Path | None:
    for root in _search_roots():
        base = root.joinpath(*module)
        for candidate in (base.with_suffix(".py"), base / "__init__.py", base.with_suffix(".pyi")):
            if candidate.is_file():
                return candidate
    return None


# The library folders of the checked project's environment (``use_project_libraries``).
_project_libraries: tuple[Path, ...] = ()


def use_project_libraries(folders: Iterable[Path]) -> None:
    """Read the libraries of the checked project's own environment (its interpreter's
    site-packages) before docfact's: a library the project imports is usually installed
    there and not where docfact runs (pre-commit, a CI job, the editor's own environment)."""
    global _project_libraries
    _project_libraries = tuple(folders)
    # Read again: what is installed may have changed since the last check in this process.
    for cached in (_search_roots, _module_source, _module_names, _parsed):
        cached.cache_clear()


def environment_libraries(prefix: Path) -> tuple[Path, ...]:
    """The site-packages folders of the Python environment at ``prefix`` (a virtual
    environment's folder, or an installation's), found without running it."""
    found = [
        *prefix.glob("lib*/python3*/site-packages"),
        *prefix.glob("lib*/python3*/dist-packages"),
    ]
    inside = os.path.realpath(prefix)  # a folder linking out of it is not the environment
    return tuple(
        sorted(f for f in found if f.is_dir() and Path(os.path.realpath(f)).is_relative_to(inside))
    )


def _read_library(path: Path) -> bytes:
    """A library file's bytes: a regular file, size-capped; one of the checked project's
    environment (which the repository may ship: a ``.venv`` whose files link to the
    user's ``~/.ssh``) only when its links stay inside that environment's folder."""
    inside = [root for root in _project_libraries if path.is_relative_to(root)]
    return read_regular(path, _MAX_BYTES, within=inside)


@lru_cache(maxsize=1)
def _search_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = [paths["stdlib"], *map(str, _project_libraries), paths["purelib"], paths["platlib"]]
    roots += sys.path
    seen, ordered = set(), []
    for root in roots:
        if root and root not in seen and Path(root).is_dir():
            seen.add(root)
            ordered.append(Path(root))
    return tuple(ordered)


@lru_cache(maxsize=64)
def _parsed(path: Path) -> tuple[dict[str, Unit], tuple[tuple[str, str], ...]]:
    """A library file's definitions by qualified name, and its imports."""
    try:
        module = parse_module(decode_source(_read_library(path)))
    except SkippedFile:
        return {}, ()
    return {unit.qualname: unit for unit in module.units if unit.qualname}, module.imports


# --- names defined outside the project ---------------------------------------------------

# A definition at module level or in a top-level class (four spaces, two, or a tab), or a
# module-level assignment; public names only.
_DEFINITION = re.compile(
    rb"^(?:[ ]{0,4}|\t)?(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z]\w*)"
    rb"|^([A-Za-z]\w*)[ \t]*(?::[^=\n]*)?=(?!=)",
    re.MULTILINE,
)
_MAX_FILES = 1500  # per package: torch's whole tree would cost seconds for little more
_SKIPPED_FOLDERS = frozenset(
    {"site-packages", "dist-packages", "test", "tests", "__pycache__", "idlelib", "turtledemo"}
)


def defined_outside(name: str, imported: Iterable[str]) -> bool:
    """Whether a library the project imports defines ``name``: a public function, class,
    method of a top-level class, module-level variable or module. ``imported``: the dotted
    targets of the project's imports that are not the project's; a standard-library
    import brings the names of the module imported (``http.cookiejar``), an installed
    package the names of the whole package (``numpy`` for ``numpy.random.MT19937``). Read
    statically from the source files, once per process: nothing is imported or run."""
    return any(name in _module_names(_importable(target)) for target in imported)


def defined_in_stdlib(name: str) -> bool:
    """Whether a module of the standard library, or a module of one of its packages,
    defines ``name`` (public names only), imported by the project or not."""
    return name in _stdlib_names()


@lru_cache(maxsize=1)
def _stdlib_names() -> frozenset[str]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = [
        *root.glob("*.py"),
        *(path for path in root.glob("*/*.py") if path.parent.name not in _SKIPPED_FOLDERS),
    ]
    return _names_in(files)


def _importable(target: str) -> tuple[str, ...]:
    """The longest prefix of ``target`` that is a module (``from x import y`` imports a
    name or a module), or, for an installed package, its top-level package."""
    parts = tuple(target.split("."))
    if _in_stdlib(parts[0]):
        while len(parts) > 1 and _module_source(parts) is None:
            parts = parts[:-1]
        return parts
    return parts[:1]


@lru_cache(maxsize=1024)
def _module_names(module: tuple[str, ...]) -> frozenset[str]:
    source = _module_source(module)
    if source is None:
        return frozenset()  # not installed, or a C extension without stubs
    if source.name in ("__init__.py", "__init__.pyi"):
        return _names_under(source.parent)
    return _names_in([source])


@lru_cache(maxsize=256)
def stdlib_module_names(
    module: tuple[str, ...], depth: int = _REEXPORT_HOPS
) -> frozenset[str] | None:
    """Every name the standard library's ``module`` has: what its source binds or uses,
    with what it imports with ``*`` (``os`` from ``posix``, ``asyncio`` from its
    submodules). None when that cannot be told: no source and not compiled into the
    interpreter, an unguarded ``*`` import of such a module, or names made at run time.
    A ``*`` import of a C accelerator inside ``try: ... except ImportError`` adds nothing
    the Python fallback beside it lacks (``datetime`` from ``_datetime``)."""
    source = _module_source(module)
    if source is None:
        name = ".".join(module)
        if name in sys.builtin_module_names:  # compiled in: importing it runs no file
            return frozenset(dir(importlib.import_module(name)))
        return None
    try:
        text = decode_source(read_regular(source, _MAX_BYTES))
    except SkippedFile:
        return None
    parsed = parse_module(text)
    if parsed.names_at_run_time:
        return None
    names = set(parsed.defined_names)
    package = module if source.stem == "__init__" else module[:-1]
    for target, guarded in _star_imports(text):
        resolved = _absolute(("." * target[0]) + target[1], ".".join(package))
        found = stdlib_module_names(tuple(resolved.split(".")), depth - 1) if depth else None
        if found is not None:
            names |= found
        elif not guarded:
            return None
    return frozenset(names)


def _star_imports(text: str) -> list[tuple[tuple[int, str], bool]]:
    """((leading dots, module), guarded by ``except ImportError``) of each ``from m import *``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            _catches_import_error(handler) for handler in node.handlers
        ):
            guarded |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
    return [
        ((node.level, node.module or ""), id(node) in guarded)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return caught is None or any(
        isinstance(name, ast.Name) and name.id in ("ImportError", "ModuleNotFoundError")
        for name in names
    )


def _in_stdlib(top: str) -> bool:
    return top in sys.stdlib_module_names


def _names_under(folder: Path) -> frozenset[str]:
    """The names of a package's files, the shallowest first (its public API), up to
    ``_MAX_FILES`` of them."""
    files = []
    # (not rglob, which recurses once per level: a committed .venv's package 1,800 folders
    # deep was a RecursionError that lost the check)
    for here, folders, names in walk_folders(folder):
        folders[:] = [name for name in folders if name not in _SKIPPED_FOLDERS]
        # stubs (.pyi) tell a C extension's names
        files += [Path(here, n) for n in names if os.path.splitext(n)[1] in (".py", ".pyi")]
    files.sort(key=lambda path: (len(path.parts), path))
    return _names_in(files[:_MAX_FILES])


def _names_in(files: Iterable[Path]) -> frozenset[str]:
    names = set()
    for path in files:
        try:
            data = _read_library(path)
        except SkippedFile:
            continue
        names.add(path.stem)
        for match in _DEFINITION.finditer(data):
            names.add((match.group(1) or match.group(2)).decode("ascii", "replace"))
    return frozenset(names)
