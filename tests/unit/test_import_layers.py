"""docfact's modules import in one direction: faces -> passes -> layers -> source and
model, never upwards, and no two modules import each other (even through others).
Imports inside functions (the lazy ones) count too. docs/architecture.md names them all."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "docfact"
ARCHITECTURE = PACKAGE.parents[1] / "docs" / "architecture.md"

# Rank of each module, by its dotted name's longest listed prefix: it may import modules of
# its own rank or lower.
RANKS = {
    # source and model: what everything reads
    "docfact": 0,
    "docfact.model": 0,
    "docfact.analysis": 0,
    "docfact.config": 0,
    "docfact.cache": 0,
    "docfact.prompt_files": 0,
    "docfact.finding_json": 0,
    "docfact.fix_guard": 0,
    "docfact.source": 0,
    # layers: the rules, the project graph, the model layers and their faces
    "docfact.checks": 1,
    "docfact.graph": 1,
    "docfact.llm": 1,
    "docfact.sonar": 1,
    "docfact.understand": 1,
    "docfact.sonar_ssc": 1,
    "docfact.rule_settings": 1,
    "docfact.model_layers": 1,
    # passes: one file, many files, the model passes of `check`
    "docfact.engine": 2,
    "docfact.runner": 2,
    "docfact.model_passes": 2,
    "docfact.history": 2,
    # faces: the command line and its outputs, the editor
    "docfact.cli": 3,
    "docfact.__main__": 3,
    "docfact.output": 3,
    "docfact.report": 3,
    "docfact.baseline": 3,
    "docfact.gitdiff": 3,
    "docfact.fixes": 3,
    "docfact.lsp": 3,
}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of docfact that ``name`` imports anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def rank(name: str) -> int:
    prefix = max((p for p in RANKS if name == p or name.startswith(p + ".")), key=len)
    return RANKS[prefix]


def test_no_module_imports_one_above_it():
    known = modules()
    upward = sorted(
        f"{name} -> {target}"
        for name, path in known.items()
        for target in imports(name, path, known)
        if rank(target) > rank(name)
    )
    assert upward == []


def test_no_import_cycles():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}

    def reaches(start: str) -> set[str]:
        seen, todo = set(), list(graph[start])
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(graph[current])
        return seen

    assert sorted(name for name in graph if name in reaches(name)) == []


def test_the_architecture_notes_name_every_module():
    """A module by its file name (`scope.py`) or path; a package by its folder (`prompts/`)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    unnamed = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__init__.py":
            named = path.parent == PACKAGE or f"`{path.parent.name}/`" in text
        else:
            named = f"`{path.name}`" in text or f"{path.relative_to(PACKAGE).as_posix()}`" in text
        if not named:
            unnamed.append(path.relative_to(PACKAGE).as_posix())
    assert sorted(unnamed) == []
