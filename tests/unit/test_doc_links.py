"""The README's and docs/' links lead somewhere in the repository: every relative link to a
file that exists here, every ``#anchor`` into a Markdown page to one of its headings."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")  # https:, mailto:, file:


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(anchor(line.lstrip("#")))
    return found


def test_anchors_are_made_as_github_makes_them():
    assert (
        anchor("Scores: SONAR and model understandability")
        == "scores-sonar-and-model-understandability"
    )
    assert anchor(" DF101 unknown-parameter") == "df101-unknown-parameter"
    assert anchor("Why is this bad?") == "why-is-this-bad"


def test_every_relative_link_leads_to_a_file_of_the_repository():
    checked = 0
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if SCHEME.match(target):
                continue
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}: {target}"
            assert linked.is_relative_to(ROOT) and linked.exists(), where
            if fragment and linked.suffix == ".md":
                assert fragment in anchors(linked), where
            checked += 1
    assert checked >= 10  # the pages do link to each other: the pattern finds them


def test_the_readme_names_no_file_outside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.findall(r"`\.\./[^`]*`", readme)
