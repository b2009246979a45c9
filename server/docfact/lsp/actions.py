"""Code actions: quick fixes, "ignore this rule for this function", and fix-all."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from ..model import Span
from ..sonar_ssc import rewrite_edit, scorable
from .convert import PositionMapper, range_from_json
from .rewrite_pass import ABSTRACT

if TYPE_CHECKING:
    from ..analysis import UnitAnalysis
    from .state import DocumentState, Offers

# ``rewrites(key, unit_text)``: the verified rewrites found so far for a unit (None when
# none were looked for); ``key`` is (symbol, ABSTRACT or a sentence).
FoundRewrites = Callable[[tuple[str, str], str], "Offers | None"]

FIX_ALL_KIND = types.CodeActionKind.SourceFixAll + ".docfact"
REWRITE_KIND = types.CodeActionKind.RefactorRewrite + ".docfact"
REWRITE_COMMAND = "docfact.rewrite"
_SUPPRESSION = re.compile(r"(?:#|//)\s*docfact:\s*ignore(\[[^\]]*\])?")


def code_actions(
    uri: str,
    state: DocumentState,
    mapper: PositionMapper,
    params: types.CodeActionParams,
    rewrites: FoundRewrites | None = None,
) -> list[types.CodeAction]:
    """``rewrites`` is only given when a model is configured and usable."""
    wanted = params.context.only
    result: list[types.CodeAction] = []
    if _wants(wanted, types.CodeActionKind.QuickFix):
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != "docfact":
                continue
            fix = (diagnostic.data or {}).get("fix") if isinstance(diagnostic.data, dict) else None
            if fix and fix.get("safety") != "display-only":
                # An unsafe fix is offered on its own, never as the preferred one.
                result.append(
                    _edit_action(
                        uri,
                        fix["title"],
                        types.CodeActionKind.QuickFix,
                        [
                            types.TextEdit(
                                range=range_from_json(fix["range"]), new_text=fix["replacement"]
                            )
                        ],
                        [diagnostic],
                        preferred=fix.get("safety") == "safe",
                    )
                )
            ignore = _ignore_action(uri, state, mapper, diagnostic)
            if ignore is not None:
                result.append(ignore)
    if _wants(wanted, FIX_ALL_KIND):
        edits = fix_all_edits(state, mapper)
        if edits:
            result.append(_edit_action(uri, "docfact: apply every safe fix", FIX_ALL_KIND, edits))
    if rewrites is not None:
        if _wants(wanted, types.CodeActionKind.QuickFix):
            asked: set[tuple[object, object]] = set()  # one offer per sentence, not per finding
            for diagnostic in params.context.diagnostics:
                data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
                sentence = (data.get("symbol"), data.get("sentence"))
                if sentence not in asked:
                    asked.add(sentence)
                    result += _sentence_actions(uri, state, mapper, diagnostic, rewrites)
        if _wants(wanted, REWRITE_KIND):
            result += _abstract_actions(
                uri, state, mapper, mapper.offset(params.range.start), rewrites
            )
    return result


def _abstract_actions(
    uri: str, state: DocumentState, mapper: PositionMapper, offset: int, rewrites: FoundRewrites
) -> list[types.CodeAction]:
    """On a function's docstring: its verified, more abstract descriptions, or the command
    that looks for them."""
    report = state.analysis.unit_at(offset)
    if report is None or not scorable(report) or not _inside(report.docstring.text.literal, offset):
        return []
    unit_text = _unit_text(state, report)
    found = rewrites((report.symbol, ABSTRACT), unit_text)
    if not found:  # never looked for, or none kept the behaviour: asking again may find one
        again = "" if found is None else " again"
        return [
            _command_action(
                f"Describe `{report.unit.name}` more abstractly{again} "
                "(rewrites verified by SONAR)",
                REWRITE_KIND,
                [uri, report.symbol],
            )
        ]
    actions = []
    for rewrite in found:
        if isinstance(rewrite, str):  # a sentence's correction: not offered here
            continue
        start, end, text = rewrite_edit(state.analysis.text, report, rewrite)
        actions.append(
            _edit_action(
                uri,
                rewrite.title,
                REWRITE_KIND,
                [types.TextEdit(range=mapper.range(Span(start, end)), new_text=text)],
            )
        )
    return actions


def _sentence_actions(
    uri: str,
    state: DocumentState,
    mapper: PositionMapper,
    diagnostic: types.Diagnostic,
    rewrites: FoundRewrites,
) -> list[types.CodeAction]:
    """On a finding: the judge-checked correction of its sentence, or the command that asks
    for one."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    if diagnostic.source != "docfact" or not data.get("sentence"):
        return []
    report = next((r for r in state.analysis.units if r.symbol == data.get("symbol")), None)
    if report is None or not scorable(report):
        return []
    sentence = data["sentence"]
    found = rewrites((report.symbol, sentence), _unit_text(state, report))
    if not found:  # never looked for, or none was consistent: asking again may find one
        again = "" if found is None else " again"
        return [
            _command_action(
                f"Rewrite this sentence{again} (checked by the model judge)",
                types.CodeActionKind.QuickFix,
                [uri, report.symbol, sentence, diagnostic.message],
                [diagnostic],
            )
        ]
    segment = next((s for s in report.segments if " ".join(s.text.split()) == sentence), None)
    corrected = next((r for r in found if isinstance(r, str)), None)
    if corrected is None or segment is None:
        return []
    span = report.docstring.text.span_of(segment.start, segment.end)
    return [
        _edit_action(
            uri,
            f"Replace with: {corrected}",
            types.CodeActionKind.QuickFix,
            [types.TextEdit(range=mapper.range(span), new_text=corrected)],
            [diagnostic],
        )
    ]


def _command_action(
    title: str, kind: str, arguments: list, diagnostics: list[types.Diagnostic] | None = None
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=kind,
        diagnostics=diagnostics,
        command=types.Command(title=title, command=REWRITE_COMMAND, arguments=arguments),
    )


def _unit_text(state: DocumentState, report: UnitAnalysis) -> str:
    return state.analysis.text[report.unit.span.start : report.unit.span.end]


def _inside(span: Span, offset: int) -> bool:
    return span.start <= offset <= span.end


def fix_all_edits(state: DocumentState, mapper: PositionMapper) -> list[types.TextEdit]:
    """One edit per finding with a safe fix, skipping fixes that overlap an earlier one."""
    edits: list[types.TextEdit] = []
    taken: list[tuple[int, int]] = []
    for finding in sorted(state.findings, key=lambda f: f.span.start):
        fix = finding.fix
        if (
            fix is None
            or fix.safety != "safe"
            or any(fix.span.start < end and start < fix.span.end for start, end in taken)
        ):
            continue
        taken.append((fix.span.start, fix.span.end))
        edits.append(types.TextEdit(range=mapper.range(fix.span), new_text=fix.replacement))
    return edits


def _wants(only: Sequence[str] | None, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _edit_action(
    uri: str,
    title: str,
    kind: str,
    edits: list[types.TextEdit],
    diagnostics: list[types.Diagnostic] | None = None,
    preferred: bool = False,
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=kind,
        diagnostics=diagnostics,
        is_preferred=preferred or None,
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def _ignore_action(
    uri: str, state: DocumentState, mapper: PositionMapper, diagnostic: types.Diagnostic
) -> types.CodeAction | None:
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
    return _edit_action(
        uri,
        f"Ignore {code} for `{report.unit.name}`",
        types.CodeActionKind.QuickFix,
        [edit],
        [diagnostic],
    )
