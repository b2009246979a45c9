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
