"""Orchestration: from a file's text to the findings of every documented unit.

Findings that depend on the rest of the project (``Finding.condition``: a name defined
in another file, an exception raised by a callee) are kept per file and settled by the
project graph, so a file's result depends on its content alone and can be cached by it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from .analysis import FileAnalysis, UnitAnalysis
from .checks import evidence
from .checks.context import CheckContext
from .checks.lookups import Answers, Lookups
from .checks.python2 import compared_with_successor, python2_evidence
from .checks.registry import RULES
from .config import Settings
from .graph.build import ProjectGraph
from .graph.facts import FileFacts, file_facts
from .graph.references import names_near
from .model import (
    Docstring,
    Finding,
    Fix,
    Module,
    Outdated,
    Signature,
    Span,
    Unit,
)
from .rule_settings import codes_for
from .source import java, python
from .source.docstring import parse_docstring
from .source.files import SkippedFile
from .source.javadoc import parse_javadoc
from .source.lines import LineIndex
from .source.segment import segments as split_segments

# A name-existence finding told by the name's history in git (``history.py``), or None;
# the second argument says whether the project still defines a name (moved, not removed).
History = Callable[[Finding, Callable[[str], bool]], Finding | None]

EMPTY_MODULE = Module(units=(), defined_names=frozenset(), imported_names=frozenset())


class UnitMemo:
    """A document's previous analysis. An edited document is reparsed incrementally, and
    re-checks only the units whose text changed or whose checks would now get another
    answer from the code around them (checks.lookups); the others keep their results,
    moved to where the unit now starts."""

    def __init__(self) -> None:
        self.parser = python.ModuleParser()
        self._entries: dict[tuple, tuple[int, int, UnitAnalysis, Answers]] = {}
        self._fresh: dict[tuple, tuple[int, int, UnitAnalysis, Answers]] = {}

    def start(self) -> None:
        """Begin an analysis: what the last one kept becomes what this one may reuse (so
        units that disappeared are forgotten)."""
        if self._fresh:
            self._entries = self._fresh
        self._fresh = {}

    def reuse(
        self, key: tuple, unit: Unit, module: Module, lines: LineIndex, path: str
    ) -> UnitAnalysis | None:
        found = self._entries.get(key)
        if found is None:
            return None
        start, line, report, asked = found
        answers = asked.still_hold(module, unit)
        if answers is None:
            return None
        moved = _moved(
            report, unit, unit.span.start - start, lines.line(unit.span.start) - line, path
        )
        self.keep(key, unit, lines, moved, answers)
        return moved

    def finish(self) -> None:
        """End an analysis: the version before it is no longer needed (after a large paste
        is undone, its reports would otherwise stay in memory until the next edit)."""
        self._entries = {}

    def keep(
        self,
        key: tuple,
        unit: Unit,
        lines: LineIndex,
        report: UnitAnalysis,
        answers: Answers | None,
    ) -> None:
        if answers is not None:
            self._fresh[key] = (unit.span.start, lines.line(unit.span.start), report, answers)


def analyze(
    text: str,
    path: str,
    module_name: str,
    settings: Settings,
    relative_path: str | None = None,
    memo: UnitMemo | None = None,
    outdated: Callable[[], bool] | None = None,
) -> FileAnalysis:
    """Parse ``text`` (Java when ``path`` ends with .java, else Python) and run every
    enabled rule on each documented unit. A Java file's module name is its package.
    ``outdated`` is asked between statements and units: when it says yes, ``Outdated``
    ends the analysis (the editor has a newer version)."""
    lines = LineIndex(text)
    if path.endswith(".java"):
        module = java.parse_module(text)
        module_name = module.package or ""  # the parser says "" for the default package
    else:
        try:
            module = (
                memo.parser.parse(text, outdated) if memo is not None else python.parse_module(text)
            )
        except SkippedFile as reason:
            return FileAnalysis(path, module_name, text, lines, EMPTY_MODULE, [], str(reason))
    reports = check_units(
        module.units, module, module_name, path, lines, settings, relative_path, memo, outdated
    )
    return FileAnalysis(path, module_name, text, lines, module, reports)


def check_units(
    units: tuple[Unit, ...],
    module: Module,
    module_name: str,
    path: str,
    lines: LineIndex,
    settings: Settings,
    relative_path: str | None = None,
    memo: UnitMemo | None = None,
    outdated: Callable[[], bool] | None = None,
) -> list[UnitAnalysis]:
    """Run every enabled rule on each documented unit of ``units`` (names resolve in
    ``module``; offsets and lines are those of the text ``lines`` indexes). Severities and
    suppression comments are not applied here but where findings are shown
    (``rule_settings``)."""
    codes = codes_for(settings, relative_path or path)
    init_signatures = _init_signatures(units)
    context_key = (codes, settings.docstring_style, path, module_name)
    if memo is not None:
        memo.start()
    reports = []
    for unit in units:
        if unit.docstring is None or not unit.docstring.value.strip():
            continue
        if outdated is not None and outdated():
            raise Outdated
        key = (context_key, unit.qualname, lines.text[unit.span.start : unit.span.end])
        reused = memo.reuse(key, unit, module, lines, path) if memo is not None else None
        if reused is not None:
            reports.append(reused)
            continue
        docstring = (
            parse_javadoc(unit.docstring)
            if module.package is not None
            else parse_docstring(unit.docstring, settings.docstring_style)
        )
        report = UnitAnalysis(
            unit=unit,
            symbol=".".join(p for p in (module_name, unit.qualname) if p),
            docstring=docstring,
            segments=tuple(split_segments(docstring)),
        )
        lookups = Lookups(module, unit)
        context = CheckContext(
            unit=unit,
            docstring=docstring,
            segments=report.segments,
            lookups=lookups,
            symbol=report.symbol,
            path=path,
            lines=lines,
            init_signature=init_signatures.get(unit.span),
        )
        for code in sorted(codes):
            check = RULES[code].check
            if check is not None:
                report.findings.extend(check(context))
        reports.append(report)
        if memo is not None:
            memo.keep(key, unit, lines, report, lookups.answers())
    if memo is not None:
        memo.finish()
    return reports


def _moved(report: UnitAnalysis, unit: Unit, offset: int, line: int, path: str) -> UnitAnalysis:
    """``report`` for the same unit text, now at ``unit``'s place in the file."""
    assert unit.docstring is not None  # the same text as the reported unit's
    return UnitAnalysis(
        unit=unit,
        symbol=report.symbol,
        docstring=replace(report.docstring, text=unit.docstring),
        segments=report.segments,
        findings=[_moved_finding(f, offset, line, path) for f in report.findings]
        if offset or line
        else list(report.findings),
    )


def _moved_finding(finding: Finding, offset: int, line: int, path: str) -> Finding:
    def moved(span: Span) -> Span:
        return Span(span.start + offset, span.end + offset)

    return replace(
        finding,
        span=moved(finding.span),
        sentence_span=moved(finding.sentence_span),
        fix=None if finding.fix is None else replace(finding.fix, span=moved(finding.fix.span)),
        evidence=tuple(
            replace(e, line=e.line + line) if e.path == path else e for e in finding.evidence
        ),
    )


def resolve(
    findings: Iterable[Finding], project: ProjectGraph, history: History | None = None
) -> list[Finding]:
    """Findings that stand once the whole project is known, with the project evidence
    they were settled on. A finding that says a name does not exist stands only with
    evidence of what was meant (a near miss; with ``history``, the name's past in git);
    without, it is the preview rule's (``checks/evidence.py``)."""
    standing = []
    for finding in findings:
        if project.cancels(finding.symbol, finding.condition):
            continue
        extra = project.settling_evidence(finding.symbol, finding.condition)
        if extra:
            finding = replace(finding, evidence=finding.evidence + tuple(extra))
        settled = project.settled_finding(finding.symbol, finding.condition)
        if settled is not None:
            message, replacement = settled
            fix = (
                Fix(f"Replace with `{replacement}`", replacement, finding.span, "unsafe")
                if replacement
                else finding.fix
            )
            finding = replace(finding, message=message, fix=fix)
        if finding.code in evidence.NAME_EXISTENCE_RULES:
            finding = _with_evidence(finding, project, history)
        standing.append(finding)
    return standing


# What a stale dotted path may have meant at another place of the project.
_MOVABLE = frozenset({"class", "function"})


def _with_evidence(finding: Finding, project: ProjectGraph, history: History | None) -> Finding:
    """A name-existence finding with what shows what was meant, else a preview one."""
    if evidence.has_evidence(finding):
        return finding
    if compared_with_successor(finding):
        return evidence.unverified(finding)
    ported = python2_evidence(finding)
    if ported is not None:
        return ported
    if finding.fix is None and finding.code in ("DF102", "DF103", "DF107"):
        meant = evidence.builtin_near_miss(finding) or evidence.project_near_miss(
            finding, names_near(project, finding.subject)
        )
        if meant is not None:
            message = f"{finding.message}; did you mean `{meant}`?"
            fix = Fix(f"Replace with `{meant}`", meant, finding.span, "unsafe")
            finding = replace(finding, message=message, fix=fix)
    near = evidence.near_miss_evidence(finding, project.where_defined)
    if near is not None:
        return replace(finding, evidence=(*finding.evidence, near))
    told = history(finding, lambda name: bool(project.named(name))) if history else None
    if told is None and finding.code == "DF107":
        told = evidence.moved_evidence(
            finding,
            lambda name: project.kind(name) == "module",
            lambda name: sorted(q for q in project.named(name) if project.kind(q) in _MOVABLE),
            project.where_defined,
        )
    if told is None:
        told = evidence.builtins_misspelt(finding)
    return told if told is not None else evidence.unverified(finding)


def facts_of(analysis: FileAnalysis, is_package: bool = False) -> FileFacts:
    """What the analysed file contributes to the project graph."""
    documented: dict[str, list[str]] = {}
    raises: dict[str, list[str]] = {}
    for report in analysis.units:  # Java overloads share a qualname: what any documents
        documented.setdefault(report.unit.qualname, []).extend(
            _documented(report.docstring, "param")
        )
        raises.setdefault(report.unit.qualname, []).extend(_documented(report.docstring, "raises"))
    return file_facts(
        analysis.module, analysis.module_name, analysis.path, is_package, documented, raises
    )


def _documented(docstring: Docstring, kind: str) -> list[str]:
    return [e.name.text for e in docstring.entries if e.kind == kind and e.name is not None]


def _init_signatures(units: tuple[Unit, ...]) -> dict[Span, Signature]:
    """Class span -> the signature its docstring documents: that of its own __init__, else
    of its __new__ (so a class defined twice, in an if and its else, has each its own,
    and the class's text alone decides it)."""
    classes = [u for u in units if u.kind == "class"]
    found: dict[Span, Signature] = {}
    for name in ("__new__", "__init__"):  # __init__ wins when both exist
        for unit in units:
            owner, _, method = unit.qualname.rpartition(".")
            if method != name or unit.kind != "method" or unit.signature is None:
                continue
            for cls in classes:
                if cls.qualname == owner and cls.span.start <= unit.span.start <= cls.span.end:
                    found[cls.span] = unit.signature
    return found
