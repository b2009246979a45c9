"""Names as one file writes them, resolved in the project's entities: enclosing scopes,
the module, imports (relative and aliased), star imports, and ``self.``/``cls.`` through
the class and its bases."""

from __future__ import annotations

from typing import Protocol

from .facts import FileFacts


class Entities(Protocol):
    """What resolution asks of the project graph."""

    def kind(self, name: str) -> str | None: ...

    def bases_of(self, cls: str) -> list[str]: ...

    def unaliased(self, dotted: str) -> str: ...


def imports_module(facts: FileFacts, module: str) -> bool:
    """Whether the file imports ``module`` or anything inside it."""
    scope = FileScope(None, facts)
    return any(
        target == module or target.startswith(module + ".")
        for target in (scope.absolute(t) for _, t in facts["imports"])
    )


class FileScope:
    """Resolution of dotted names as written in one file, in the project's entities."""

    def __init__(self, project: Entities | None, facts: FileFacts):
        self.project = project
        self.module = facts["module"]
        self.package = facts["module"] if facts["package"] else facts["module"].rpartition(".")[0]
        self.imports = {local: target for local, target in facts["imports"] if local != "*"}
        self.star_imports = [target for local, target in facts["imports"] if local == "*"]

    def absolute(self, target: str) -> str:
        """An import target with its leading dots resolved against this module (and an
        absolute one through the namespace packages above the project's packages)."""
        if not target.startswith("."):
            return self.project.unaliased(target) if self.project is not None else target
        dots = len(target) - len(target.lstrip("."))
        base = self.package.split(".") if self.package else []
        base = base[: len(base) - (dots - 1)] if dots > 1 else base
        rest = target[dots:]
        return ".".join(part for part in (*base, rest) if part)

    @property
    def _resolving_in(self) -> Entities:
        """The project names resolve in (a scope made only for ``absolute`` has none)."""
        assert self.project is not None
        return self.project

    def resolve(self, unit: str, dotted: str) -> list[str] | None:
        """Qualified names ``dotted`` refers to from ``unit``; None for a method called on
        a value of unknown type (a guess by name is all that is possible)."""
        head, _, rest = dotted.partition(".")
        if head in ("self", "cls", "this") and rest:
            first, _, deeper = rest.partition(".")
            found = self._method(unit, first)
            if deeper and found and self._resolving_in.kind(found[0]) != "class":
                # A method of an attribute's value, or of what a property returns
                # (``self.screen.mount()``): its type is unknown.
                return None
            return found
        # Enclosing scopes, innermost first: nested definitions, then the module.
        scope = unit
        while scope:
            candidate = f"{scope}.{dotted}"
            if self._resolving_in.kind(candidate):
                return [candidate]
            if scope == self.module:
                break
            scope = scope.rpartition(".")[0]
        if head in self.imports:
            full = self.absolute(self.imports[head]) + (f".{rest}" if rest else "")
            known = self._nearest_known(full)
            if known != full and self._resolving_in.kind(known) in ("variable", "attribute"):
                return None  # a method of an imported value (tortoise's ``connections.get``)
            return [known]
        for module in self.star_imports:  # ``from x import *``: a name x defines
            candidate = f"{self.absolute(module)}.{dotted}"
            if self._resolving_in.kind(candidate):
                return [candidate]
        return None if rest else []

    def _nearest_known(self, dotted: str) -> str:
        """``dotted`` itself when known; else the project entity it is an attribute of."""
        probe = dotted
        while probe and self._resolving_in.kind(probe) is None:
            probe = probe.rpartition(".")[0]
        return probe if probe and self._resolving_in.kind(probe) != "module" else dotted

    def _method(self, unit: str, name: str) -> list[str] | None:
        """``self.name`` inside ``unit``: in the class or its project bases; else None
        (a subclass or a mixin may define it)."""
        owner = unit
        while owner and self._resolving_in.kind(owner) != "class":
            owner = owner.rpartition(".")[0]
        seen = set()
        frontier = [owner] if owner else []
        while frontier:
            cls = frontier.pop(0)
            if cls in seen:
                continue
            seen.add(cls)
            if self._resolving_in.kind(f"{cls}.{name}"):
                return [f"{cls}.{name}"]
            frontier += self._resolving_in.bases_of(cls)
        return None
