"""docs/rules.md documents every rule under the same headings, and a diagnostic's code
links to its rule's own section there."""

import re
from pathlib import Path

from docfact.checks.registry import RULES
from docfact.lsp.convert import rule_link
from docfact.output import rule_url

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
# The headings of a rule's section, in order (ruff documents its rules the same way).
RULE_HEADINGS = ["What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"]
RULE_TITLE = re.compile(r"DF\d{3} [a-z0-9-]+")


def rule_sections(text: str) -> dict[str, dict[str, str]]:
    """Each ``## DFnnn name`` section of ``text``: its ``### `` headings, in order, each
    with the text under it."""
    sections: dict[str, dict[str, str]] = {}
    headings: dict[str, str] | None = None
    heading = None
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
            headings = sections.setdefault(title, {}) if RULE_TITLE.fullmatch(title) else None
            heading = None
        elif headings is not None and line.startswith("### "):
            heading = line[4:].strip()
            headings[heading] = ""
        elif headings is not None and heading is not None:
            headings[heading] += line + "\n"
    return sections


def test_every_rule_has_its_section_with_every_heading():
    sections = rule_sections(RULES_MD.read_text(encoding="utf-8"))
    for code, rule in RULES.items():
        title = f"{code} {rule.name}"
        assert title in sections, f"docs/rules.md has no section '## {title}'"
        assert list(sections[title]) == RULE_HEADINGS, title
        empty = [heading for heading, body in sections[title].items() if not body.strip()]
        assert not empty, f"{title}: nothing under {empty}"
    assert set(sections) == {f"{code} {rule.name}" for code, rule in RULES.items()}, (
        "a section of docs/rules.md names no rule"
    )


def test_the_rules_include_those_of_the_model_and_the_scores():
    """The table the docs test reads is the whole registry, not only the check functions."""
    assert {rule.made_by for rule in RULES.values()} == {"check", "project", "judge", "scores"}


def test_the_section_reader_sees_a_missing_or_empty_heading():
    text = (
        "## DF999 made-up\n### What it does\nSomething.\n### Example\n\n"
        "## Choosing rules\n### What it does\nNot a rule.\n"
    )
    assert rule_sections(text) == {
        "DF999 made-up": {"What it does": "Something.\n", "Example": "\n"}
    }


def test_every_rule_links_to_the_line_of_its_heading():
    lines = RULES_MD.read_text(encoding="utf-8").splitlines()
    for code, rule in RULES.items():
        href = rule_link(code)
        location, _, line = href.partition("#L")
        assert location == RULES_MD.as_uri(), href
        assert lines[int(line) - 1] == f"## {code} {rule.name}"


def test_the_public_link_uses_the_heading_anchor():
    assert rule_url("DF101").endswith("rules.md#df101-unknown-parameter")
