"""Re-analysis of an edited document reuses unchanged units, with identical results."""

from pathlib import Path

from docfact.config import Settings
from docfact.engine import UnitMemo, analyze

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "inventory" / "stock.py").read_text()


def findings(analysis):
    return sorted((f.code, f.span, f.sentence_span, f.message, f.fix,
                   tuple(e.line for e in f.evidence)) for f in analysis.findings)


def test_edits_above_and_inside_units_give_the_results_of_a_fresh_analysis():
    memo = UnitMemo()
    text = EXAMPLE
    analyze(text, "stock.py", "stock", Settings(), memo=memo)
    edits = [
        lambda t: "# a comment line\n# and another 😀\n" + t,  # moves every unit down
        lambda t: t.replace("ammount", "amount", 1),  # fixes one finding
        lambda t: t.replace("count (str)", "count (int)", 1),  # fixes another
        lambda t: t.replace("def find(", "def find_items(", 1),  # changes code
        lambda t: t.replace("`qty`", "`qtty`", 1),  # breaks one anew
    ]
    for edit in edits:
        text = edit(text)
        reused = analyze(text, "stock.py", "stock", Settings(), memo=memo)
        fresh = analyze(text, "stock.py", "stock", Settings())
        assert findings(reused) == findings(fresh)
        assert [r.unit.span for r in reused.units] == [r.unit.span for r in fresh.units]
        for report in reused.units:
            text_of = report.docstring.text
            assert text_of == report.unit.docstring
    assert any(f.code == "DF102" and "qtty" in f.message for f in reused.findings)
