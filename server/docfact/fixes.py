"""`check --fix`: write the fixes of a run's findings into the files.

Safe fixes are applied; unsafe ones only when asked (`--unsafe-fixes`); display-only ones
never. Whatever produced a fix (a rule, a model, the cache), only edits inside docstrings
that leave the code as it is are written (``fix_guard``); a file whose fixes break that is
left alone, with the reason. A file is rewritten only when its bytes are still those the
run checked: an editor
or another tool may have changed it meanwhile, and a fix placed by old line numbers would
then land on the wrong text. Fixes that overlap one already applied to the file wait for
the next run.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .fix_guard import Edit, is_fix, refusal
from .source.files import SkippedFile, decode_source
from .source.lines import LineIndex


@dataclass
class FixOutcome:
    applied: list[dict] = field(default_factory=list)  # the diagnostics whose fix was written
    not_applied: list[str] = field(default_factory=list)  # files left alone, with why
    unsafe_left: int = 0  # unsafe fixes not applied (no --unsafe-fixes)
    files: int = 0  # files rewritten


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def apply_fixes(diagnostics: list[dict], checked: dict[str, str], unsafe: bool) -> FixOutcome:
    """Apply the fixes of ``diagnostics`` allowed by their safety; ``checked`` maps each
    path to the digest of the bytes the run read."""
    allowed = {"safe", "unsafe"} if unsafe else {"safe"}
    outcome = FixOutcome()
    by_path: dict[str, list[dict]] = {}
    for diagnostic in diagnostics:
        fix = diagnostic.get("fix") if isinstance(diagnostic, dict) else None
        if fix is None:
            continue
        if not _well_formed(diagnostic):
            outcome.not_applied.append(f"{diagnostic.get('path')}: a malformed fix: not fixed")
            continue
        if fix["safety"] in allowed:
            by_path.setdefault(diagnostic["path"], []).append(diagnostic)
        elif fix["safety"] == "unsafe":
            outcome.unsafe_left += 1
    for path, wanted in sorted(by_path.items()):
        _fix_file(Path(path), wanted, checked.get(path), outcome)
    return outcome


def _fix_file(
    path: Path, wanted: list[dict], checked_digest: str | None, outcome: FixOutcome
) -> None:
    try:
        data = path.read_bytes()
        text = decode_source(data)
    except (OSError, SkippedFile) as error:
        outcome.not_applied.append(f"{path}: cannot be read ({error}): not fixed")
        return
    if checked_digest is None or digest(data) != checked_digest:
        outcome.not_applied.append(f"{path} changed since it was checked: not fixed")
        return
    lines = LineIndex(text)

    def offset(position: dict) -> int:
        return lines.offset(position["line"] - 1, position["column"] - 1)

    edits: list[tuple[int, int, str]] = []
    done: list[dict] = []
    for diagnostic in sorted(
        wanted, key=lambda d: (offset(d["fix"]["start"]), offset(d["fix"]["end"]))
    ):
        fix = diagnostic["fix"]
        start, end = offset(fix["start"]), offset(fix["end"])
        if edits and (start, end, fix["replacement"]) == edits[-1]:
            done.append(diagnostic)  # the same edit for two findings: made once
        elif not edits or start >= edits[-1][1]:
            edits.append((start, end, fix["replacement"]))
            done.append(diagnostic)
    try:
        write_edits(path, data, edits)
    except Changed:
        outcome.not_applied.append(f"{path} changed since it was checked: not fixed")
        return
    except NotWritten as refused:
        outcome.not_applied.append(f"{path}: fixes not applied: {refused}")
        return
    except OSError as error:
        outcome.not_applied.append(
            f"{path}: cannot be written ({error.strerror or error}): not fixed"
        )
        return
    outcome.applied += done
    outcome.files += 1


def _well_formed(diagnostic: dict) -> bool:
    """A finding whose fix has the shape the JSON output gives it (positions 1-based)."""
    return isinstance(diagnostic.get("path"), str) and is_fix(diagnostic["fix"])


class NotWritten(Exception):
    """The edits may not be written; the message says why."""


class Changed(NotWritten):
    """The file's bytes are no longer those the edits were made for."""


def write_edits(path: Path, data: bytes, edits: Sequence[Edit]) -> None:
    """Write ``edits`` (offsets into the text of ``data``, the bytes read from ``path``)
    into ``path``, in its encoding, as `--fix` writes: only when ``fix_guard`` finds every
    edit inside a docstring and the code unchanged (else NotWritten, with why), and only
    while the file still holds ``data`` (else Changed). OSError when it cannot be written."""
    text = decode_source(data)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise NotWritten(f"its encoding cannot be read ({error})") from None
    fixed = text
    for start, end, replacement in sorted(edits, reverse=True):
        fixed = fixed[:start] + replacement + fixed[end:]
    reason = refusal(path.suffix, text, edits, fixed)
    if reason is not None:
        raise NotWritten(reason)
    _replace(path, fixed.encode(encoding), digest(data))


def _replace(path: Path, data: bytes, checked_digest: str) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, unless the file
    changed since it was checked (looked at again just before the rename)."""
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".docfact"
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        if digest(path.read_bytes()) != checked_digest:
            raise Changed("the file changed since it was read")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
