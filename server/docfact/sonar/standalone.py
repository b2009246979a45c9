"""Whether a function can be run on its own for differential testing, and if not, why.

Functions that do I/O, touch process or global state, are not deterministic, or need
names of their module that the program does not bring along are compared structurally
instead of being executed.
"""

from __future__ import annotations

import ast
import builtins

from .regenerate import function_node

_IO_BUILTINS = {"open", "print", "input", "breakpoint", "help", "exit", "quit"}
_DYNAMIC_BUILTINS = {"exec", "eval", "compile", "__import__", "globals", "locals", "vars"}
# Modules whose use means I/O, process state or results that differ from run to run
# (random is fine: the seed is fixed before every call).
_EFFECT_MODULES = {
    "os",
    "sys",
    "subprocess",
    "socket",
    "time",
    "shutil",
    "pathlib",
    "tempfile",
    "glob",
    "requests",
    "urllib",
    "http",
    "httpx",
    "aiohttp",
    "asyncio",
    "threading",
    "multiprocessing",
    "concurrent",
    "signal",
    "ctypes",
    "secrets",
    "uuid",
    "logging",
    "datetime",
    "sqlite3",
    "smtplib",
    "ftplib",
    "webbrowser",
    "getpass",
    "platform",
    "importlib",
    "builtins",
    "select",
    "selectors",
    "mmap",
    "fcntl",
    "resource",
    "atexit",
    "gc",
    "inspect",
}
_BUILTIN_NAMES = set(dir(builtins))


def why_not_runnable(program: str, function: str) -> str | None:
    """None when ``function`` of ``program`` can be called standalone, else the reason."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError):
        return "the code does not parse"
    node = next(
        (
            n
            for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function
        ),
        None,
    )
    if node is None:
        in_class = function_node(program, function) is not None
        return "the function is a method" if in_class else f"the code has no function {function}"
    if isinstance(node, ast.AsyncFunctionDef):
        return "the function is a coroutine"
    params = node.args.posonlyargs + node.args.args
    if params and params[0].arg in ("self", "cls"):
        return f"the function is a method (it needs {params[0].arg})"
    for statement in ast.walk(node):
        if isinstance(statement, (ast.Global, ast.Nonlocal)):
            kind = "global" if isinstance(statement, ast.Global) else "nonlocal"
            return f"the function changes global state ({kind} {', '.join(statement.names)})"
    imported = _imported_roots(tree)
    loaded = [
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    ]
    bound = _bound_names(node) | _top_level_names(tree)
    for name in loaded:
        if name in _IO_BUILTINS and name not in bound:
            return f"the function does I/O ({name})"
        if name in _DYNAMIC_BUILTINS and name not in bound:
            return f"the function runs dynamic code ({name})"
        if imported.get(name, "") in _EFFECT_MODULES:
            return f"the function uses {imported[name]} (I/O, process state or time)"
    free = sorted({name for name in loaded if name not in bound and name not in _BUILTIN_NAMES})
    if free:
        return f"the function uses names of its module ({', '.join(free[:5])})"
    return None


def _imported_roots(tree: ast.Module) -> dict[str, str]:
    """Local name -> root module of every import, local ones included
    (``from os import path`` -> os)."""
    roots: dict[str, str] = {}
    for statement in ast.walk(tree):
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                roots[alias.asname or alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(statement, ast.ImportFrom):
            root = (statement.module or "").split(".")[0] if not statement.level else "."
            for alias in statement.names:
                roots[alias.asname or alias.name] = root
    return roots


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name.split(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            names.update(_bound_names(statement))
    return names


def _bound_names(node: ast.AST) -> set[str]:
    """Every name bound anywhere inside ``node``: parameters, assignments, loop and
    comprehension targets, nested definitions, local imports, ``except ... as`` names."""
    names: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            names.add(child.id)
        elif isinstance(child, ast.arg):
            names.add(child.arg)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name.split(".")[0] for a in child.names)
        elif isinstance(child, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and child.name:
            names.add(child.name)
        elif isinstance(child, ast.MatchMapping) and child.rest:
            names.add(child.rest)
    return names
