"""Baselines: adopt docfact on a code base with findings by recording them, then report only
the new ones.

A finding is known by its fingerprint: the symbol it is in, its rule, and the text it flags
(whitespace collapsed). Line numbers are left out, so moving a function, or editing other
lines, keeps its entry; renaming the function or changing the flagged text makes it new.
The same fingerprint may occur more than once: the baseline counts them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from . import __version__
from .source.files import SkippedFile, decode_source
from .source.lines import LineIndex

FORMAT = 1


class BaselineError(Exception):
    """A baseline file that cannot be read or written (said as one line, exit status 2)."""


def fingerprint(diagnostic: dict, flagged: str) -> tuple[str, str, str]:
    return diagnostic["symbol"], diagnostic["code"], " ".join(flagged.split())


def fingerprints(diagnostics: list[dict]) -> list[tuple[str, str, str]]:
    """Each diagnostic's fingerprint, in order. The flagged text is read from the file the
    diagnostic's path names; a finding that flags nothing (an empty range) is known by its
    sentence."""
    texts: dict[str, LineIndex | None] = {}
    found = []
    for diagnostic in diagnostics:
        path = diagnostic["path"]
        if path not in texts:
            texts[path] = _read(Path(path))
        lines = texts[path]
        flagged = ""
        if lines is not None:
            start, end = diagnostic["start"], diagnostic["end"]
            flagged = lines.text[
                lines.offset(start["line"] - 1, start["column"] - 1) : lines.offset(
                    end["line"] - 1, end["column"] - 1
                )
            ]
        found.append(fingerprint(diagnostic, flagged.strip() or diagnostic["sentence"]))
    return found


def _read(path: Path) -> LineIndex | None:
    try:
        return LineIndex(decode_source(path.read_bytes()))
    except (OSError, SkippedFile):
        return None


def write(path: Path, diagnostics: list[dict]) -> None:
    entries = sorted(
        (
            {"symbol": symbol, "code": code, "text": text, "path": diagnostic["path"]}
            for (symbol, code, text), diagnostic in zip(fingerprints(diagnostics), diagnostics)
        ),
        key=lambda e: (e["path"], e["symbol"], e["code"], e["text"]),
    )
    document = {"tool": "docfact", "version": __version__, "format": FORMAT, "findings": entries}
    try:
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as error:
        raise BaselineError(
            f"cannot write the baseline {path}: {error.strerror or error}"
        ) from None


def read(path: Path) -> Counter:
    """How many times each fingerprint is in the baseline."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        entries = document["findings"]
        return Counter((e["symbol"], e["code"], e["text"]) for e in entries)
    except OSError as error:
        raise BaselineError(f"cannot read the baseline {path}: {error.strerror or error}") from None
    except (ValueError, KeyError, TypeError):
        raise BaselineError(
            f"{path} is not a docfact baseline (delete it to write a new one)"
        ) from None


def new_findings(diagnostics: list[dict], known: Counter) -> list[dict]:
    """The diagnostics the baseline does not account for (each entry absorbs one)."""
    left = Counter(known)
    new = []
    for diagnostic, key in zip(diagnostics, fingerprints(diagnostics)):
        if left[key] > 0:
            left[key] -= 1
        else:
            new.append(diagnostic)
    return new
