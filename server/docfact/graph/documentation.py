"""Names a project's Sphinx documentation defines, read statically from its pages: the
targets of object directives (``.. py:data:: SERVER_NAME``, ``.. autoclass:: pkg.Thing``,
MyST's ```` ```{py:function} f ````), placed under ``.. currentmodule::`` or
``.. module::`` and under the class directive they are nested in, and the targets
``conf.py`` puts in ``nitpick_ignore`` (the project says they may stay unresolved).
``conf.py`` is parsed, never run.

A docstring's cross-reference to such a name resolves where Sphinx builds the docs
(flask's configuration keys are data that a page defines, not code), and one a letter off
is a near miss of it.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..source.files import SkippedFile, decode_source, read_regular
from ..source.walk import walk_folders

# Where a project keeps its Sphinx sources, relative to its root.
DOCS_FOLDERS = ("docs", "doc", "Doc", "documentation")
_PAGE_SUFFIXES = frozenset({".rst", ".txt", ".md"})
# Bounds for a repository that is untrusted input: pages read, bytes of one page.
MAX_PAGES = 3_000
_MAX_PAGE_BYTES = 2_000_000
MAX_TOTAL_CHARACTERS = 64_000_000  # of all pages together
MAX_NAMES = 100_000
_LONGEST_NAME = 200  # characters: each tail of a name is kept, so a dotted name costs its square
_SKIPPED_FOLDERS = frozenset({"_build", "build", "node_modules", "_static", "_templates"})

_OBJECT_KINDS = (
    "function|class|data|attribute|method|exception|property|decorator|classmethod"
    "|staticmethod|module|currentmodule"
)
# ``.. py:data:: NAME``, ``.. autoclass:: pkg.Thing``, ``.. currentmodule:: pkg``; MyST's
# fence ```{py:function} f``. Each alternative is linear: no nested quantifiers.
_DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)(?:\.\.[ \t]+|`{3,}\{)"
    rf"(?:(?:py:)?(?P<kind>{_OBJECT_KINDS})|auto(?P<auto>[a-z]+))"
    r"(?:::|\})[ \t]*(?P<target>[A-Za-z_][\w.]*)",
    re.MULTILINE,
)
_CONF = "conf.py"


@dataclass(frozen=True)
class Documentation:
    """The dotted names the documentation defines, and every tail of each (``X`` and
    ``flask.X`` of ``flask.X``): a reference may name any of them."""

    tails: frozenset[str] = frozenset()
    pages: int = 0
    digest: str = ""  # of the names and places: the project's cached result depends on it
    # last name -> (page, line) of its directive: the evidence of a near miss
    where: dict[str, tuple[str, int]] = field(default_factory=dict, compare=False)

    @property
    def last_names(self) -> frozenset[str]:
        """What a misspelt name may have meant."""
        return frozenset(self.where)

    def documents(self, dotted: str) -> bool:
        """Whether ``dotted`` (as written, ``~`` or ``.`` before it allowed) is a name
        the documentation defines, or a tail of one."""
        return dotted.lstrip("~.") in self.tails


NO_DOCUMENTATION = Documentation()


_PROJECT_ROOT_MARKS = (".git", "pyproject.toml", "setup.py", "setup.cfg")


def find_documentation(start: Path) -> Documentation:
    """The documentation of the project ``start`` (a folder or file) belongs to: read at
    the first folder at or above it that has a docs folder, going no higher than the
    project's root (the first folder with .git, pyproject.toml, setup.py or setup.cfg).
    Outside any project, none: a file checked alone is not to read the user's ~/docs."""
    folder = start.resolve()
    folder = folder if folder.is_dir() else folder.parent
    found = None
    for candidate in (folder, *folder.parents):
        if found is None and any((candidate / name).is_dir() for name in DOCS_FOLDERS):
            found = candidate
        if any((candidate / mark).exists() for mark in _PROJECT_ROOT_MARKS):
            return read_documentation(found) if found is not None else NO_DOCUMENTATION
    return NO_DOCUMENTATION


def is_documentation_page(path: Path) -> bool:
    """Whether ``path`` may be a page or the conf.py of a project's documentation."""
    return (path.suffix in _PAGE_SUFFIXES or path.name == _CONF) and any(
        part in DOCS_FOLDERS for part in path.parts
    )


def read_documentation(root: Path) -> Documentation:
    """The names the documentation under ``root`` (its first folder of DOCS_FOLDERS)
    defines; none when it has no such folder."""
    folder = next((root / name for name in DOCS_FOLDERS if (root / name).is_dir()), None)
    if folder is None:
        return NO_DOCUMENTATION
    names: dict[str, tuple[str, int]] = {}  # dotted name -> page and line defining it
    pages = budget = 0
    for page in _pages(folder):
        text = _read(page, folder)
        if text is None:
            continue
        budget += len(text)
        if budget > MAX_TOTAL_CHARACTERS or len(names) >= MAX_NAMES:
            break  # a repository's endless pages: what was read stands
        pages += 1
        shown = str(page)  # absolute under a resolved root: the editor links it
        found = defined_names(text) if page.name != _CONF else ignored_targets(text)
        for name, line in found:
            if len(name) > _LONGEST_NAME:
                continue
            names.setdefault(name, (shown, line))
            if len(names) >= MAX_NAMES:
                break
    tails = {tail for name in names for tail in _tails(name)}
    where: dict[str, tuple[str, int]] = {}
    for name, place in names.items():
        where.setdefault(name.rpartition(".")[2], place)
    return Documentation(
        tails=frozenset(tails),
        pages=pages,
        # Of the places too: a name moved on its page moves the evidence that points at it.
        digest=hashlib.sha256(repr(sorted(names.items())).encode()).hexdigest()[:16],
        where=where,
    )


def _pages(folder: Path) -> Iterator[Path]:
    """The documentation's pages and its conf.py, at most MAX_PAGES, links not followed."""
    count = 0
    for current, folders, files in walk_folders(folder):  # os.walk recurses: depth bounded
        folders[:] = sorted(f for f in folders if f not in _SKIPPED_FOLDERS and f[:1] != ".")
        for name in sorted(files):
            if name == _CONF or Path(name).suffix in _PAGE_SUFFIXES:
                count += 1
                if count > MAX_PAGES:
                    return
                yield Path(current) / name


def _read(page: Path, folder: Path) -> str | None:
    try:
        return decode_source(read_regular(page, _MAX_PAGE_BYTES, (folder,)))
    except (OSError, SkippedFile, ValueError):
        return None  # unreadable, too big, a link out of the folder: not the docs' word


def defined_names(text: str) -> Iterator[tuple[str, int]]:
    """(dotted name, line) of what the object directives of one page define, each name
    placed in the current module and in the class directive it is nested in."""
    module = ""
    classes: list[tuple[int, str]] = []  # (indent, qualified name) of open class directives
    line, counted = 1, 0
    for match in _DIRECTIVE.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        kind = match.group("kind") or match.group("auto")
        target, indent = match.group("target"), len(match.group("indent").expandtabs())
        if kind in ("module", "currentmodule"):
            module, classes = target, []
            yield target, line
            continue
        while classes and classes[-1][0] >= indent:
            classes.pop()
        owner = classes[-1][1] if classes else module
        name = f"{owner}.{target}" if owner and not target.startswith(owner + ".") else target
        if kind in ("class", "exception"):
            classes.append((indent, name))
        yield name, line


def ignored_targets(conf: str) -> Iterator[tuple[str, int]]:
    """(target, line) of ``nitpick_ignore = [("py:class", "x.Y"), ...]`` in conf.py."""
    try:
        tree = ast.parse(conf)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, (ast.List, ast.Tuple)):
            continue
        if not any(isinstance(t, ast.Name) and t.id == "nitpick_ignore" for t in node.targets):
            continue
        for item in node.value.elts:
            if isinstance(item, ast.Tuple) and len(item.elts) == 2:
                target = item.elts[1]
                if isinstance(target, ast.Constant) and isinstance(target.value, str):
                    yield target.value, item.lineno


def _tails(name: str) -> Iterator[str]:
    parts = name.split(".")
    for cut in range(len(parts)):
        yield ".".join(parts[cut:])
