"""Code actions: quick fixes, "ignore this rule for this function", and fix-all."""

from __future__ import annotations

import re

from lsprotocol import types

from ..model import Span
from .convert import PositionMapper, range_from_json

FIX_ALL_KIND = types.CodeActionKind.SourceFixAll + ".docfact"
_SUPPRESSION = re.compile(r"(?:#|//)\s*docfact:\s*ignore(\[[^\]]*\])?")


def code_actions(uri: str, state, mapper: PositionMapper,
                 params: types.CodeActionParams) -> list[types.CodeAction]:
    wanted = params.context.only
    result: list[types.CodeAction] = []
    if _wants(wanted, types.CodeActionKind.QuickFix):
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != "docfact":
                continue
            fix = (diagnostic.data or {}).get("fix") if isinstance(diagnostic.data, dict) else None
            if fix:
                result.append(_edit_action(uri, fix["title"], types.CodeActionKind.QuickFix,
                                           [types.TextEdit(range=range_from_json(fix["range"]),
                                                           new_text=fix["replacement"])],
                                           [diagnostic], preferred=True))
            ignore = _ignore_action(uri, state, mapper, diagnostic)
            if ignore is not None:
                result.append(ignore)
    if _wants(wanted, FIX_ALL_KIND):
        edits = fix_all_edits(state, mapper)
        if edits:
            result.append(_edit_action(uri, "docfact: apply every safe fix", FIX_ALL_KIND, edits))
    return result


def fix_all_edits(state, mapper: PositionMapper) -> list[types.TextEdit]:
    """One edit per fixable finding, skipping fixes that overlap an earlier one."""
    edits, taken = [], []
    for finding in sorted(state.findings, key=lambda f: f.span.start):
        fix = finding.fix
        if fix is None or any(fix.span.start < end and start < fix.span.end for start, end in taken):
            continue
        taken.append((fix.span.start, fix.span.end))
        edits.append(types.TextEdit(range=mapper.range(fix.span), new_text=fix.replacement))
    return edits


def _wants(only: list[str] | None, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _edit_action(uri, title, kind, edits, diagnostics=None, preferred=False) -> types.CodeAction:
    return types.CodeAction(
        title=title, kind=kind, diagnostics=diagnostics, is_preferred=preferred or None,
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def _ignore_action(uri, state, mapper: PositionMapper, diagnostic) -> types.CodeAction | None:
    """Add the diagnostic's code to ``# docfact: ignore[...]`` on its unit's def line."""
    report = state.analysis.unit_at(mapper.offset(diagnostic.range.start))
    if report is None or report.unit.kind == "module":
        return None
    code = str(diagnostic.code)
    lines = state.analysis.lines
    line = report.unit.def_line
    text = lines.line_text(line)
    existing = _SUPPRESSION.search(text)
    if existing and existing.group(1) is None:
        return None  # everything is already ignored there
    comment = "//" if state.analysis.path.endswith(".java") else "#"
    if existing:
        codes = [c.strip() for c in existing.group(1)[1:-1].split(",") if c.strip()]
        start, end = existing.start(), existing.end()
        new_text = f"{comment} docfact: ignore[{', '.join(codes + [code])}]"
    else:
        start = end = len(text)
        new_text = f"  {comment} docfact: ignore[{code}]"
    base = lines.starts[line]
    edit = types.TextEdit(range=mapper.range(Span(base + start, base + end)), new_text=new_text)
    return _edit_action(uri, f"Ignore {code} for `{report.unit.name}`",
                        types.CodeActionKind.QuickFix, [edit], [diagnostic])
