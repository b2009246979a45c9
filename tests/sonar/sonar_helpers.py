"""Helpers the SONAR tests share."""

from pathlib import Path


def package_project(tmp_path: Path, package: str, modules: dict[str, bytes]) -> Path:
    """A project with one package ``package`` of the module files ``modules`` (name ->
    content), readable by the sandbox's user; its root."""
    root = tmp_path / "project"
    (root / package).mkdir(parents=True)
    (root / "pyproject.toml").write_text(f"[project]\nname = '{package}'\n")
    (root / package / "__init__.py").write_text("")
    for name, content in modules.items():
        (root / package / name).write_bytes(content)
    for folder in (tmp_path, root, root / package):
        folder.chmod(0o755)  # the sandbox reads the project as nobody
    return root


async def module_correctness(
    path: Path,
    text: str,
    module: str,
    programs: dict[str, str],
    qualnames,
    client,
    writer,
    cases: int,
) -> dict:
    """SONAR Correctness of the units ``qualnames`` of the module ``module`` (file ``path``
    of a ``package_project``, content ``text``), the scripted ``writer`` answering each
    docstring with its program in ``programs`` (docstring -> code); qualname -> Measure."""
    from docfact.cache import Cache
    from docfact.config import Settings, SonarSettings
    from docfact.engine import analyze
    from docfact.sonar_ssc import score_units

    analysis = analyze(text, str(path), module, Settings())
    writer.programs.update({docstring: [code] for docstring, code in programs.items()})
    items = [(analysis, r) for r in analysis.units if r.unit.qualname in qualnames]
    sonar = SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=cases)
    found = await score_units(
        items,
        Settings(sonar=sonar),
        Cache(path.parents[2] / "cache"),
        client,
        sonar=True,
        ssc=False,
    )
    return {r.unit.qualname: found[r.symbol].sonar.correctness for _, r in items}


async def named_correctness(
    project: Path, package: str, text: str, docstrings: dict, programs: dict, client, writer
) -> dict:
    """SONAR Correctness of the units of module ``package/package.py`` (content ``text``,
    in a ``package_project``) that ``programs`` names (qualname -> the code the scripted
    model writes for its docstring, ``docstrings``: qualname -> docstring), on 60 cases."""
    written = {docstrings[name]: code for name, code in programs.items()}
    path = project / package / f"{package}.py"
    return await module_correctness(
        path, text, f"{package}.{package}", written, set(programs), client, writer, 60
    )


def assert_all_score_one(found: dict, expected: dict) -> None:
    """Every unit of ``expected`` was measured at 1.0 (qualname -> Measure in ``found``)."""
    assert set(found) == set(expected)
    for name, measured in found.items():
        assert measured.value == 1.0 and not measured.approximate, (name, measured.how)
