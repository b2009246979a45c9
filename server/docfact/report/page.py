"""The report's HTML sections. Every string that comes from the checked code (symbols,
paths, messages, sentences) goes through ``escape``: a docstring may hold markup."""

from __future__ import annotations

import os
from html import escape
from urllib.parse import quote

from ..checks.registry import RULES
from ..output import rule_url
from . import data, svg
from .data import SONAR_DIMENSIONS, Function

HOW_TO = {
    "ReFEree": "run with --llm-model MODEL (any litellm model string)",
    "SONAR": "run with --sonar and a configured model",
    "SSC": "run with --ssc and a configured model",
}
_CRITERION_NAMES = {
    "name": "C1 name",
    "type": "C2 type",
    "function": "C3 function",
    "context": "C4 context",
    "structure": "structure",
}


def header(report: dict, items: list[Function], project: str, generated: str) -> str:
    findings = len(report.get("diagnostics", ()))
    cards = [
        ("files checked", report.get("files_checked", 0)),
        ("docstrings checked", report.get("units_checked", 0)),
        ("findings", findings),
        ("functions with a score or finding", len(items)),
    ]
    card_html = "".join(
        f'<div class="card"><div class="number">{n:,}</div><div class="what">{what}</div></div>'
        for what, n in cards
    )
    return (
        f"<header><h1>docfact report: {escape(project)}</h1>"
        f'<p class="meta">Generated {escape(generated)} by docfact '
        f"{escape(str(report.get('version', '?')))}</p></header>"
        f'<main><section aria-labelledby="summary"><h2 id="summary">Summary</h2>'
        f'<div class="cards">{card_html}</div><div class="grid">'
        f"{_criteria_panel(report)}{_codes_panel(report)}{_scores_panel(report, items)}"
        f"</div></section>"
    )


def _criteria_panel(report: dict) -> str:
    rows = "".join(
        f'<tr><td>{escape(_CRITERION_NAMES.get(c, c))}</td><td class="num">{n:,}</td></tr>'
        for c, n in data.by_criterion(report).items()
    )
    return (
        f'<div class="panel"><h3>Findings by criterion</h3>'
        f'<table class="counts">{rows}</table></div>'
    )


def _codes_panel(report: dict) -> str:
    counts = data.by_code(report)
    if not counts:
        return (
            '<div class="panel"><h3>Findings by code</h3><p class="missing">No findings.</p></div>'
        )
    rows = []
    for code, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        rule = RULES.get(code)
        summary = f' <span class="note">{escape(rule.summary)}</span>' if rule else ""
        rows.append(
            f'<tr><td><a href="{escape(rule_url(code))}"><code>{escape(code)}</code></a>'
            f'{summary}</td><td class="num">{n:,}</td></tr>'
        )
    return (
        f'<div class="panel"><h3>Findings by code</h3>'
        f'<table class="counts">{"".join(rows)}</table></div>'
    )


def _scores_panel(report: dict, items: list[Function]) -> str:
    computed = {
        "ReFEree": len(data.referee_scores(items)),
        "SONAR": sum(1 for f in items if any(v is not None for v in f.sonar.values())),
        "SSC": len(data.ssc_scores(items)),
    }
    lines = []
    for name, n in computed.items():
        state = (
            f'<span class="ok">computed</span> for {n:,} functions'
            if n
            else f'<span class="missing">not computed: {escape(HOW_TO[name])}</span>'
        )
        lines.append(f"<li><strong>{name}</strong>: {state}</li>")
    llm = report.get("llm")
    if llm:
        lines.append(
            f'<li class="note">Model {escape(str(llm.get("model")))}: '
            f"{llm.get('calls', 0):,} calls, {llm.get('cache_hits', 0):,} cached</li>"
        )
    return f'<div class="panel"><h3>Scores</h3><ul class="scores">{"".join(lines)}</ul></div>'


def plots(report: dict, items: list[Function]) -> str:
    ssc = data.ssc_scores(items)
    tau = data.ssc_threshold(items)
    marker = (tau, f"1 − τ = {tau:.2f}") if tau is not None else None
    ssc_plot = (
        svg.histogram(ssc, title=f"SSC of {len(ssc)} functions", bins=20, width=520, marker=marker)
        if ssc
        else _not_computed("SSC")
    )
    referee = data.referee_scores(items)
    referee_plot = (
        svg.histogram(referee, title=f"ReFEree score of {len(referee)} functions", width=520)
        if referee
        else _not_computed("ReFEree")
    )
    dims = {d: data.sonar_scores(items, d) for d in SONAR_DIMENSIONS}
    if any(dims.values()):
        sonar_plot = (
            '<div class="small-multiples">'
            + "".join(
                f"<div><h3>{d}</h3>"
                + (
                    svg.histogram(
                        v, title=f"SONAR {d} of {len(v)} functions", width=240, height=120, bins=5
                    )
                    if v
                    else _not_computed("SONAR")
                )
                + "</div>"
                for d, v in dims.items()
            )
            + "</div>"
        )
    else:
        sonar_plot = _not_computed("SONAR")
    return (
        '<section aria-labelledby="scores"><h2 id="scores">Scores</h2><div class="plots">'
        + _figure(
            "Semantic self-consistency (SSC)",
            ssc_plot,
            "How alike a model's descriptions of a function are; below 1 − τ it is "
            "labelled low (hard to understand).",
        )
        + _figure(
            "ReFEree score",
            referee_plot,
            "The share of a docstring's sentences the model judged true of the code.",
        )
        + _figure(
            "SONAR dimensions",
            sonar_plot,
            "How well each docstring lets a model regenerate the function, and how it reads.",
        )
        + _figure("Least understandable functions (lowest SSC)", _least_understood(items, tau))
        + _figure("Sentences with most findings", _sentences(report), wide=True)
        + "</div></section>"
    )


def _least_understood(items: list[Function], tau: float | None) -> str:
    lowest = data.least_understood(items)
    if not lowest:
        return _not_computed("SSC")
    bars = [(f.symbol, value, f"{f.symbol} ({f.path}): SSC {value:.2f}") for f, value in lowest]
    marker = (tau, f"1 − τ = {tau:.2f}") if tau is not None else None
    return svg.hbars(
        bars,
        title=f"The {len(bars)} functions with the lowest SSC",
        width=520,
        label_width=260,
        scale=1.0,
        digits=2,
        marker=marker,
    )


def _sentences(report: dict) -> str:
    ranked = data.sentences_with_most_findings(report)
    if not ranked:
        return '<p class="empty">No findings: no sentence to show.</p>'
    bars = [(text, n, f"{text}\n{where}: {n} findings") for text, where, n in ranked]
    return svg.hbars(
        bars, title=f"The {len(bars)} sentences with the most findings", width=1100, label_width=780
    )


def _figure(caption: str, body: str, note: str = "", wide: bool = False) -> str:
    kind = ' class="wide"' if wide else ""
    note = f'<p class="note">{escape(note)}</p>' if note else ""
    return f"<figure{kind}><figcaption>{escape(caption)}</figcaption>{note}{body}</figure>"


def _not_computed(score: str) -> str:
    return f'<p class="empty">{score} not computed: {escape(HOW_TO[score])}.</p>'


_COLUMNS = [
    ("symbol", "Function", False),
    ("loc", "Location", False),
    ("referee", "ReFEree", True),
    ("correctness", "Correct.", True),
    ("abstraction", "Abstract.", True),
    ("conciseness", "Concise.", True),
    ("fluency", "Fluency", True),
    ("ssc", "SSC", True),
    ("findings", "Findings", True),
]


def table(items: list[Function], total: int, page_size: int, output_dir: str, cwd: str) -> str:
    """The functions' table; ``items`` may be fewer than ``total`` (then a note says so)."""
    note = ""
    if len(items) < total:
        note = (
            f'<p class="note">Showing the {len(items):,} functions most worth a look '
            f"(most findings, then lowest scores) of {total:,}; "
            f"<code>docfact check --format json</code> lists them all.</p>"
        )
    heads = "".join(
        f'<th scope="col" class="{"num" if numeric else ""}"><button type="button" '
        f'data-key="{key}" data-numeric="{int(numeric)}">{label}</button></th>'
        for key, label, numeric in _COLUMNS
    )
    if not items:
        return (
            '<section aria-labelledby="functions-h"><h2 id="functions-h">Functions</h2>'
            '<p class="empty">No function has a score or a finding.</p></section>'
        )
    rows = "".join(_row(f, output_dir, cwd) for f in items)
    return (
        f'<section aria-labelledby="functions-h"><h2 id="functions-h">Functions</h2>{note}'
        f'<div class="controls" id="controls" hidden><label>Filter '
        f'<input id="filter" type="search" placeholder="symbol, path or code"></label>'
        f'<button type="button" id="prev">Previous</button><span id="page-info" '
        f'class="num" aria-live="polite"></span><button type="button" id="next">Next</button>'
        f'</div><div class="table-wrap"><table class="functions" id="functions" '
        f'data-page-size="{page_size}"><caption class="note">Documented functions with a '
        f"score or a finding; click a column to sort.</caption><thead><tr>{heads}</tr>"
        f"</thead>{rows}</table></div></section>"
    )


def _row(f: Function, output_dir: str, cwd: str) -> str:
    absolute = os.path.abspath(os.path.join(cwd, f.path))
    try:
        relative = os.path.relpath(absolute, output_dir)
    except ValueError:  # another drive (Windows): no relative path exists
        relative = absolute
    editor_path = absolute.replace("\\", "/")
    editor_path = editor_path if editor_path.startswith("/") else "/" + editor_path
    href = quote(relative.replace("\\", "/")) + (f"#L{f.line}" if f.line else "")
    editor = f"vscode://file{quote(editor_path, safe='/:')}" + (f":{f.line}" if f.line else "")
    where = f"{f.path}:{f.line}" if f.line else f.path
    values = {
        "referee": f.referee,
        **{d: f.sonar.get(d) for d in SONAR_DIMENSIONS},
        "ssc": f.ssc_value,
    }
    search = " ".join([f.symbol, f.path, *sorted({d["code"] for d in f.findings})]).lower()
    sort_data = "".join(
        f' data-{key}="{"" if v is None else escape(str(v))}"' for key, v in values.items()
    )
    cells = "".join(
        f'<td class="num">{_score(values[key])}</td>' for key in ("referee", *SONAR_DIMENSIONS)
    )
    ssc = _score(f.ssc_value)
    if f.ssc and f.ssc.get("label"):
        label = escape(str(f.ssc["label"]))
        ssc += f' <span class="label-{label}">{label}</span>'
    body = (
        f'<tbody data-symbol="{escape(f.symbol.lower())}" '
        f'data-loc="{escape(f.path.lower())}:{f.line or 0:08d}" '
        f'data-findings="{len(f.findings)}"'
        f'{sort_data} data-search="{escape(search)}"><tr>'
        f'<td class="symbol"><code>{escape(f.symbol)}</code></td>'
        f'<td class="where"><a href="{escape(href)}">{escape(where)}</a>'
        f'<a href="{escape(editor)}" title="Open in VS Code">VS&nbsp;Code</a></td>'
        f'{cells}<td class="num">{ssc}</td><td class="num">{len(f.findings)}</td></tr>'
    )
    if f.findings:
        body += (
            f'<tr class="findings"><td colspan="{len(_COLUMNS)}"><ul>'
            + "".join(_finding(d) for d in f.findings)
            + "</ul></td></tr>"
        )
    return body + "</tbody>"


def _finding(d: dict) -> str:
    severity = escape(d.get("severity", ""))
    sentence = d.get("sentence") or ""
    quoted = f'<span class="sentence">{escape(sentence)}</span>' if sentence else ""
    return (
        f'<li><a href="{escape(rule_url(d["code"]))}"><code>{escape(d["code"])}</code></a> '
        f'<span class="sev sev-{severity}">{severity}</span> line {d["start"]["line"]}: '
        f"{escape(d['message'])}{quoted}</li>"
    )


def _score(value: float | None) -> str:
    return '<span class="none" title="not computed">–</span>' if value is None else f"{value:.2f}"
