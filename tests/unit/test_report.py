"""`docfact report`: the HTML page built from the JSON contract, and the subcommand."""

import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from docfact.report import MAX_ROWS, data, render
from docfact.report.svg import hbars, histogram

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WHEN = datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc)


def diagnostic(
    symbol,
    path="pkg/mod.py",
    line=5,
    code="DF101",
    criterion="name",
    message="`x` is not a parameter",
    sentence="x: The thing.",
):
    return {
        "path": path,
        "symbol": symbol,
        "code": code,
        "criterion": criterion,
        "severity": "warning",
        "message": message,
        "start": {"line": line, "column": 9},
        "end": {"line": line, "column": 10},
        "sentence": sentence,
        "evidence": [],
        "fix": None,
    }


def score(symbol, path="pkg/mod.py", line=3, referee=0.8, ssc=0.7, tau=0.5, sonar=0.6):
    return {
        "symbol": symbol,
        "path": path,
        "line": line,
        "referee": referee,
        "sonar": {d: sonar for d in data.SONAR_DIMENSIONS},
        "ssc": None
        if ssc is None
        else {
            "value": ssc,
            "label": "high" if ssc >= tau else "low",
            "tau": 1 - tau,
            "threshold": tau,
            "k": 5,
        },
    }


def report(diagnostics=(), scores=()):
    return {
        "tool": "docfact",
        "version": "9.9.9",
        "files_checked": 2,
        "units_checked": 7,
        "diagnostics": list(diagnostics),
        "scores": list(scores),
    }


def page(rep, tmp_path=Path("/project/out"), **kwargs):
    return render(
        rep, project="pkg", output_dir=tmp_path, cwd=Path("/project"), generated=WHEN, **kwargs
    )


def test_functions_merge_scores_and_findings_line_from_first_finding():
    unplaced = score("pkg.mod.f")
    del unplaced["line"]
    rep = report(
        [diagnostic("pkg.mod.f", line=9), diagnostic("pkg.mod.f", line=7), diagnostic("pkg.mod.g")],
        [unplaced, score("pkg.mod.h", line=20)],
    )
    items = {f.symbol: f for f in data.functions(rep)}
    assert items["pkg.mod.f"].line == 7 and len(items["pkg.mod.f"].findings) == 2
    assert items["pkg.mod.f"].referee == 0.8
    assert items["pkg.mod.g"].referee is None and items["pkg.mod.g"].line == 5
    assert items["pkg.mod.h"].line == 20 and not items["pkg.mod.h"].findings


def test_header_counts_version_time_and_scores_computed():
    rep = report(
        [
            diagnostic("a.f"),
            diagnostic("a.g", code="DF201", criterion="type"),
            diagnostic("a.h", code="DF201", criterion="type"),
        ],
        [score("a.f")],
    )
    html = page(rep)
    assert "docfact report: pkg" in html and "9.9.9" in html and "2026-01-02 03:04 UTC" in html
    criteria = dict(re.findall(r"<td>(C\d \w+)</td><td class=\"num\">(\d+)</td>", html))
    assert criteria == {"C1 name": "1", "C2 type": "2", "C3 function": "0", "C4 context": "0"}
    assert re.search(r"DF201</code></a>.*?<td class=\"num\">2</td>", html)
    assert html.count('<span class="ok">computed</span> for 1 functions') == 3


def test_absent_scores_say_not_computed_and_how():
    html = page(
        report(
            [diagnostic("a.f")],
            [{"symbol": "a.f", "path": "pkg/mod.py", "referee": None, "sonar": None, "ssc": None}],
        )
    )
    assert "SSC not computed: run with --ssc and a configured model" in html
    assert "SONAR not computed: run with --sonar and a configured model" in html
    assert "ReFEree not computed: run with --llm-model MODEL" in html
    assert "<rect" not in html.split('id="scores"')[1].split("Sentences with most")[0]


def test_no_findings_and_no_scores():
    html = page(report())
    assert "No findings." in html and "No findings: no sentence to show." in html
    assert "No function has a score or a finding." in html
    assert "<tbody" not in html


def test_plots_histograms_tau_and_lowest_ssc():
    scores = [score(f"pkg.mod.f{i}", ssc=i / 10, referee=1 - i / 10) for i in range(10)]
    html = page(report([diagnostic("pkg.mod.f1")] * 3, scores))
    plots = html.split('id="scores"')[1].split('id="functions-h"')[0]
    assert plots.count('<svg class="plot"') == 1 + 1 + 4 + 1 + 1
    assert "1 − τ = 0.50" in plots and 'class="marker"' in plots
    lowest = plots.split("lowest SSC)", 1)[1]
    assert lowest.index("pkg.mod.f0") < lowest.index("pkg.mod.f1") < lowest.index("pkg.mod.f9")
    assert ">x: The thing.</text>" in plots and ">3</text>" in plots


def test_table_row_links_and_sort_data(tmp_path):
    rep = report(
        [diagnostic("pkg.mod.f", path="src/pkg/mod.py", line=12)],
        [score("pkg.mod.f", path="src/pkg/mod.py", line=10, ssc=0.25)],
    )
    html = page(rep, tmp_path=Path("/project/build"))
    assert 'href="../src/pkg/mod.py#L10"' in html
    assert 'href="vscode://file/project/src/pkg/mod.py:10"' in html
    assert 'data-ssc="0.25"' in html and 'data-findings="1"' in html
    assert '<span class="label-low">low</span>' in html
    row = html.split("<tbody")[1]
    assert "DF101" in row and "`x` is not a parameter" in row and "x: The thing." in row


def test_every_string_from_the_code_is_escaped():
    evil = "<script>alert(1)</script>"
    rep = report(
        [
            diagnostic(
                f"pkg.{evil}",
                path=f"pkg/{evil}.py",
                message=f"bad {evil}",
                sentence=f"Returns {evil} & more\"'",
            )
        ],
        [score(f"pkg.{evil}", path=f"pkg/{evil}.py")],
    )
    html = render(rep, project=evil, output_dir=Path("/out"), cwd=Path("/"), generated=WHEN)
    assert "alert(1)</script>" not in html
    assert html.count("<script>") == 1  # the page's own table script
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_thousands_of_functions_are_capped_and_fast():
    diagnostics = [
        diagnostic(f"pkg.m{i // 100}.f{i}", path=f"pkg/m{i // 100}.py", line=i)
        for i in range(0, 6000, 3)
    ]
    scores = [
        score(f"pkg.m{i // 100}.f{i}", path=f"pkg/m{i // 100}.py", line=i, ssc=(i % 97) / 97)
        for i in range(6000)
    ]
    started = time.perf_counter()
    html = page(report(diagnostics, scores))
    assert time.perf_counter() - started < 5
    assert html.count("<tbody") == MAX_ROWS
    assert f"Showing the {MAX_ROWS:,} functions most worth a look" in html and "6,000" in html
    kept = re.findall(r'data-findings="(\d)"', html)
    assert kept.count("1") == 2000  # the 2,000 with a finding are the ones kept


def test_histogram_counts_and_widens_its_range():
    svg = histogram([0.05, 0.05, 0.95, 1.0], title="t", bins=10)
    heights = [float(h) for h in re.findall(r'<rect class="bar"[^>]*height="([\d.]+)"', svg)]
    assert len(heights) == 10 and heights[0] == max(heights) and heights[1:9] == [0.0] * 8
    wide = histogram([-0.5, 2.0], title="t")
    assert ">-0.5</text>" in wide and ">2</text>" in wide
    assert histogram([], title="empty").count('class="bar"') == 10


def test_hbars_truncate_long_labels_keep_full_text_in_tooltip():
    svg = hbars([("a" * 300, 2, "full " + "a" * 300), ("b", 1, "<b>")], title="t", label_width=100)
    assert "…" in svg and "full " + "a" * 300 in svg and "&lt;b&gt;" in svg


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "docfact", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def test_cli_writes_the_page_and_exits_0_despite_findings(tmp_path):
    out = tmp_path / "nested" / "report.html"
    done = run("report", "inventory", "-o", out, "--ignore", "DF3", cwd=EXAMPLES)
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert "docfact report: inventory" in html and "inventory.pricing.apply_discount" in html
    assert "DF302" not in html  # --ignore is honoured, as in check
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html.replace(
        "https://github.com/docfact/docfact/blob/main/docs/rules.md", ""
    )


def test_cli_usage_errors_exit_2(tmp_path):
    assert run("report", EXAMPLES).returncode == 2  # -o is required
    done = run("report", tmp_path / "nowhere", "-o", tmp_path / "r.html")
    assert done.returncode == 2 and "no such file" in done.stderr
    assert not (tmp_path / "r.html").exists()
    done = run("report", EXAMPLES, "-o", tmp_path)  # a folder cannot be written as a file
    assert done.returncode == 2 and "cannot write" in done.stderr and "Traceback" not in done.stderr


def test_report_and_check_share_their_options():
    text = run("report", "--help").stdout
    for option in (
        "--select",
        "--ignore",
        "--config",
        "--docstring-style",
        "--llm-model",
        "--output",
    ):
        assert option in text
    assert "--format" not in text and "--fail-on" not in text


def test_lone_surrogate_in_a_docstring_is_written(tmp_path):
    (tmp_path / "odd.py").write_bytes(b'def f(count):\n    """Uses `coutn` and \\ud800 here."""\n')
    odd, page = tmp_path / "odd.py", tmp_path / "r.html"
    done = run("report", odd, "-o", page, "--no-cache", "--select", "DF102")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "and \\ud800 here." in (tmp_path / "r.html").read_bytes().decode("utf-8")
