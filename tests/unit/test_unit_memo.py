"""Re-analysis of an edited document reuses unchanged units, with identical results."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from docfact.config import Settings
from docfact.engine import UnitMemo, analyze

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "inventory" / "stock.py").read_text()


# Findings of DF102 too: a preview rule, selected by its code.
WITH_DF102 = Settings(select=("DF102",))


def findings(analysis):
    return sorted(
        (
            (f.code, f.span, f.sentence_span, f.message, f.fix, tuple(e.line for e in f.evidence))
            for f in analysis.findings
        ),
        key=repr,
    )


def test_edits_above_and_inside_units_give_the_results_of_a_fresh_analysis():
    memo = UnitMemo()
    text = EXAMPLE
    analyze(text, "stock.py", "stock", WITH_DF102, memo=memo)
    edits = [
        lambda t: "# a comment line\n# and another 😀\n" + t,  # moves every unit down
        lambda t: t.replace("ammount", "amount", 1),  # fixes one finding
        lambda t: t.replace("count (str)", "count (int)", 1),  # fixes another
        lambda t: t.replace("def find(", "def find_items(", 1),  # changes code
        lambda t: t.replace("`itme`", "`qtty`", 1),  # breaks one anew
    ]
    for edit in edits:
        text = edit(text)
        reused = analyze(text, "stock.py", "stock", WITH_DF102, memo=memo)
        fresh = analyze(text, "stock.py", "stock", WITH_DF102)
        assert findings(reused) == findings(fresh)
        assert [r.unit.span for r in reused.units] == [r.unit.span for r in fresh.units]
        for report in reused.units:
            text_of = report.docstring.text
            assert text_of == report.unit.docstring
    assert any(f.code == "DF102" and "qtty" in f.message for f in reused.findings)


CLASS_FILE = '''"""Shapes."""


class Grid:
    """A grid of cells."""

    def resize(self, rows):
        """Resize to ``rows`` rows, keeping `margin` cells free."""
        self.rows = rows

    def fill(self, value):
        """Fill every cell with ``value``."""
        return [value] * self.rows


def area(grid):
    """The area of ``grid``, a `Grid`."""
    return grid.rows
'''


def checked_units(monkeypatch) -> list[str]:
    """The first words of the docstrings the engine checks (rather than reuses)."""
    import docfact.engine as engine

    checked, parse = [], engine.parse_docstring
    monkeypatch.setattr(
        engine,
        "parse_docstring",
        lambda text, style: checked.append(text.value.split(" ")[0]) or parse(text, style),
    )
    return checked


def unresolved(analysis) -> set[str]:
    return {f.message.split("`")[1] for f in analysis.findings if f.code in ("DF101", "DF102")}


def test_a_new_name_rechecks_only_the_units_that_asked_about_it(monkeypatch):
    memo, text = UnitMemo(), CLASS_FILE
    assert unresolved(analyze(text, "grid.py", "grid", WITH_DF102, memo=memo)) == {"margin"}
    checked = checked_units(monkeypatch)

    text = text.replace("return [value]", "unrelated = 1\n        return [value]")
    analyze(text, "grid.py", "grid", WITH_DF102, memo=memo)
    # The module, the class and `fill` changed text; `resize` has a finding whose
    # suggestions come from every name. `area` asked only about `Grid`: reused.
    assert sorted(checked) == ["A", "Fill", "Resize", "Shapes."]

    checked.clear()
    text = text.replace("unrelated = 1", "margin = 1")
    assert unresolved(analyze(text, "grid.py", "grid", WITH_DF102, memo=memo)) == set()
    assert "Resize" in checked and "The" not in checked

    checked.clear()
    text = text.replace("class Grid:", "class Board:")
    # The answer `area` was given about `Grid` changed: it is checked again.
    assert unresolved(analyze(text, "grid.py", "grid", WITH_DF102, memo=memo)) == {"Grid"}
    assert "The" in checked


EDIT_TEXTS = [
    "",
    "x",
    "\n",
    "    ",
    "margin",
    "helper = 1\n",
    "units",
    "def spacing(a):\n    ",
    "import helper\n",
    '"""',
    "qtty",
    ")",
]


@given(
    st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.sampled_from(EDIT_TEXTS)),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([EXAMPLE, CLASS_FILE]),
)
@settings(max_examples=120)
def test_every_version_gets_the_findings_of_a_fresh_analysis(edits, text):
    memo = UnitMemo()
    analyze(text, "f.py", "f", Settings(), memo=memo)
    for at, removed, inserted in edits:
        at = min(at, len(text))
        text = text[:at] + inserted + text[at + removed :]
        reused = analyze(text, "f.py", "f", Settings(), memo=memo)
        assert findings(reused) == findings(analyze(text, "f.py", "f", Settings()))


def fresh_and_reused(versions: list[str]) -> None:
    """Each version's findings, reused from the one before, equal a fresh analysis's."""
    memo, every_rule = UnitMemo(), Settings(select=("ALL",))
    for text in versions:
        reused = analyze(text, "m.py", "m", every_rule, memo=memo)
        assert findings(reused) == findings(analyze(text, "m.py", "m", every_rule))


TWICE = '''import sys


class Err(Exception):
    """An error."""


if sys.version_info >= (3, 8):
    def load(x):
        """Load x.

        Raises:
            Err: when it fails.
        """
        return x

    class C:
        """A C.

        Args:
            a: the a.
        """
else:
    def load(x):
        def inner():
            raise Err()
        return inner()

    class C:
        def __init__(self, b):
            pass
'''


def test_a_name_defined_twice_lends_nothing_to_its_twin():
    # The first `load` raises nothing whatever the second nests; the first `C` has no
    # constructor whatever the second's takes. Editing the twin must not leave stale
    # findings on the documented one.
    fresh_and_reused(
        [
            TWICE,
            TWICE.replace(
                "        def inner():\n            raise Err()\n        return inner()\n",
                "        return x\n",
            ),
        ]
    )
    fresh_and_reused([TWICE, TWICE.replace("self, b", "self, a")])


def test_an_edit_in_one_java_method_rechecks_that_method(monkeypatch):
    import docfact.engine as engine

    source = (
        "package p;\nclass A {\n    /** Adds {@code x}.\n     * @param x the x */\n"
        "    void add(int x) {}\n    /** Removes one. */\n    void remove() {}\n}\n"
    )
    memo = UnitMemo()
    analyze(source, "A.java", "p", Settings(), memo=memo)
    checked, parse = [], engine.parse_javadoc
    monkeypatch.setattr(
        engine, "parse_javadoc", lambda text: checked.append(text.value) or parse(text)
    )
    analyze(
        source.replace("void remove() {}", "void remove() { int y = 1; }"),
        "A.java",
        "p",
        Settings(),
        memo=memo,
    )
    assert checked == ["Removes one."]
