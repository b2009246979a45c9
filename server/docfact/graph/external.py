"""Evidence for symbols outside the project (the standard library, installed packages),
read statically from their source files: nothing is imported or run."""

from __future__ import annotations

import sys
import sysconfig
from functools import lru_cache
from pathlib import Path

from ..checks.names import render_signature
from ..model import Evidence, Unit
from ..source.files import SkippedFile, decode_source
from ..source.python import parse_module

_MAX_BYTES = 1_000_000
_SUMMARY_CHARS = 600


def external_evidence(dotted: str, relation: str) -> Evidence | None:
    """The signature and docstring of ``dotted`` (``os.path.join``) from its source file,
    or None when no source can be found (a C extension, a name that does not exist)."""
    found = _locate(dotted)
    if found is None:
        return None
    path, qualname = found
    unit = _units(path).get(qualname)
    if unit is None:
        return None
    signature = render_signature(unit.signature) if unit.signature else ""
    summary = unit.docstring.value.split("\n\n", 1)[0] if unit.docstring else ""
    text = f"# {relation}: {dotted}{signature}  (from {path.name})"
    if summary:
        text += f'\n"""{summary[:_SUMMARY_CHARS]}"""'
    return Evidence(dotted, str(path), unit.def_line + 1, text)


def _locate(dotted: str) -> tuple[Path, str] | None:
    """(source file, qualified name inside it) for the longest importable prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        source = _module_source(tuple(parts[:cut]))
        if source is not None:
            return source, ".".join(parts[cut:])
    return None


@lru_cache(maxsize=4096)
def _module_source(module: tuple[str, ...]) -> Path | None:
    for root in _search_roots():
        base = root.joinpath(*module)
        for candidate in (base.with_suffix(".py"), base / "__init__.py", base.with_suffix(".pyi")):
            if candidate.is_file():
                return candidate
    return None


@lru_cache(maxsize=1)
def _search_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = [paths["stdlib"], paths["purelib"], paths["platlib"], *sys.path]
    seen, ordered = set(), []
    for root in roots:
        if root and root not in seen and Path(root).is_dir():
            seen.add(root)
            ordered.append(Path(root))
    return tuple(ordered)


@lru_cache(maxsize=64)
def _units(path: Path) -> dict[str, Unit]:
    try:
        if path.stat().st_size > _MAX_BYTES:
            return {}
        text = decode_source(path.read_bytes())
    except (OSError, SkippedFile):
        return {}
    return {unit.qualname: unit for unit in parse_module(text).units if unit.qualname}
