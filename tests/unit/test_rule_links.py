"""A diagnostic's code links to its rule's own section of docs/rules.md."""

from pathlib import Path

from docfact.checks.registry import RULES
from docfact.lsp.convert import rule_link
from docfact.output import rule_url

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_every_rule_links_to_the_line_of_its_heading():
    lines = RULES_MD.read_text(encoding="utf-8").splitlines()
    for code, rule in RULES.items():
        href = rule_link(code)
        location, _, line = href.partition("#L")
        assert location == RULES_MD.as_uri(), href
        assert lines[int(line) - 1] == f"## {code} {rule.name}"


def test_the_public_link_uses_the_heading_anchor():
    assert rule_url("DF101").endswith("rules.md#df101-unknown-parameter")
