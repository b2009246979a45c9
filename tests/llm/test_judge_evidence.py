"""The 1-hop evidence the judge is shown: builtins carry their own documentation, and a
module global that a parameter shadows in the unit is left out."""

from docfact.config import Settings
from docfact.engine import analyze
from docfact.llm.judge import judge_input
from docfact.model import Evidence

SOURCE = '''\
month = 3


def days(month, items):
    """Days of the month, or ValueError when there are no items."""
    if not items:
        raise ValueError("none")
    return len(items) + month
'''


def test_builtins_carry_their_documentation_and_shadowed_globals_are_left_out():
    analysis = analyze(SOURCE, "/project/cal.py", "cal", Settings())
    [report] = [r for r in analysis.units if r.unit.qualname == "days"]
    evidence = [
        Evidence("cal.month", "/project/cal.py", 1, "# reads: cal.month\nmonth = 3"),
        Evidence("ValueError", "", 0, "# raises: ValueError"),
        Evidence("builtins.len", "", 0, "# calls: builtins.len"),
        Evidence("somewhere.else", "", 0, "# calls: somewhere.else"),
    ]
    shown = {e.symbol: e.text for e in judge_input(report, SOURCE, evidence).evidence}
    assert "cal.month" not in shown  # in days, ``month`` is the parameter
    assert shown["ValueError"].startswith("# raises: ValueError  (builtin)\n")
    assert "Inappropriate argument value" in shown["ValueError"]
    assert "Return the number of items in a container" in shown["builtins.len"]
    assert shown["somewhere.else"] == "# calls: somewhere.else"


def test_a_global_no_parameter_shadows_stays():
    source = SOURCE.replace("def days(month, items)", "def days(items)")
    analysis = analyze(source, "/project/cal.py", "cal", Settings())
    [report] = [r for r in analysis.units if r.unit.qualname == "days"]
    evidence = [Evidence("cal.month", "/project/cal.py", 1, "# reads: cal.month\nmonth = 3")]
    assert [e.symbol for e in judge_input(report, source, evidence).evidence] == ["cal.month"]
