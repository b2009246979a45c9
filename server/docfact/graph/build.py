"""The project graph: a networkx DiGraph of modules, classes, functions and the external
symbols they import, with edges for calls, imports, inheritance, instantiation and raises.

It is assembled from per-file facts (``facts.file_facts``) and updated a file at a time.
Names are resolved through local definitions, the module, imports (relative and aliased)
and ``self.``/``cls.`` through the class and its bases. What cannot be resolved is left
out: an unknown never produces a finding.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from ..model import Evidence

EXTERNAL = "external"


class ProjectGraph:
    def __init__(self) -> None:
        self.graph = nx.DiGraph()
        self._files: dict[str, dict] = {}  # path -> facts
        self._names: dict[str, int] = defaultdict(int)  # defined name -> files defining it
        self._by_simple_name: dict[str, set[str]] = defaultdict(set)
        # References are resolved on demand, a file at a time: base classes for every
        # file first (cheap, and method lookup needs them), the rest when a question
        # reaches the file. A change marks the file, and those that point into it, again.
        self._unlinked_bases: set[str] = set()
        self._unlinked_refs: set[str] = set()
        self.generation = 0

    # --- building ----------------------------------------------------------------------

    def set_file(self, facts: dict, importers_too: bool = True) -> None:
        """Add or replace one file's entities (``facts`` from ``file_facts``).

        ``importers_too``: also resolve again the files that import it (needless while
        building a whole project, where every file is resolved anyway).
        """
        path = facts["path"]
        self.remove_file(path)
        self._files[path] = facts
        for name in facts["names"]:
            self._names[name] += 1
        for part in facts["module"].split("."):
            self._names[part] += 1
        module = facts["module"]
        self.graph.add_node(module, kind="module", path=path, line=1, sig="",
                            doc=facts.get("doc", ""), excerpt="")
        for unit in facts["units"]:
            self.graph.add_node(unit["q"], kind=unit["kind"], path=path, line=unit["line"],
                                sig=unit["sig"], doc=unit["doc"], excerpt=unit["excerpt"],
                                raises=unit["raises"], reraises=unit["reraises"])
            self._by_simple_name[unit["q"].rsplit(".", 1)[-1]].add(unit["q"])
            self.graph.add_edge(module, unit["q"], kinds={"defines"})
        self._invalidate({path})
        if importers_too:
            self._invalidate({other for other, f in self._files.items() if _imports_module(f, module)})

    def remove_file(self, path: str) -> None:
        facts = self._files.pop(path, None)
        if facts is None:
            return
        for name in facts["names"]:
            self._names[name] -= 1
        for part in facts["module"].split("."):
            self._names[part] -= 1
        affected = set()
        for node in _nodes_of(facts):
            if not self.graph.has_node(node):
                continue
            # Files pointing at what disappears must resolve their references again.
            affected.update(self.graph.nodes[p].get("path") for p in self.graph.pred[node])
            self._by_simple_name[node.rsplit(".", 1)[-1]].discard(node)
            self.graph.remove_node(node)
        self._invalidate(affected - {path, "", None})
        self._unlinked_bases.discard(path)
        self._unlinked_refs.discard(path)

    def _invalidate(self, paths: set[str]) -> None:
        self._unlinked_bases |= paths
        self._unlinked_refs |= paths
        self.generation += 1

    def _link_bases(self) -> None:
        for path in list(self._unlinked_bases):
            facts = self._files.get(path)
            self._unlinked_bases.discard(path)
            if facts is None:
                continue
            self._drop_edges(facts, {"inherits"})
            scope = _Scope(self, facts)
            for unit in facts["units"]:
                for base in unit["bases"]:
                    for target in scope.resolve(unit["q"], base) or ():
                        self._edge(unit["q"], target, "inherits")

    def _link_refs(self, path: str) -> None:
        """Resolve the imports, calls and raises of one file."""
        if path not in self._unlinked_refs:
            return
        self._unlinked_refs.discard(path)
        facts = self._files.get(path)
        if facts is None:
            return
        self._link_bases()
        self._drop_edges(facts, {"imports", "calls", "instantiates", "raises"})
        scope = _Scope(self, facts)
        for _, target in facts["imports"]:
            self._edge(facts["module"], scope.absolute(target), "imports")
        for unit in facts["units"]:
            guesses = []
            for call in unit["calls"]:
                targets = scope.resolve(unit["q"], call)
                if targets is None:
                    guesses.append(call.rsplit(".", 1)[-1])
                for target in targets or ():
                    kind = "instantiates" if self._kind(target) == "class" else "calls"
                    self._edge(unit["q"], target, kind)
            # Methods called on values of unknown type: any project method so named may
            # run (kept for raises, too vague to be evidence).
            self.graph.nodes[unit["q"]]["guesses"] = guesses
            for raised in unit["raises"]:
                for target in scope.resolve(unit["q"], raised) or ():
                    self._edge(unit["q"], target, "raises")

    def _link_node(self, node: str) -> None:
        path = self.graph.nodes[node].get("path") if self.graph.has_node(node) else None
        if path:
            self._link_refs(path)

    def _drop_edges(self, facts: dict, kinds: set[str]) -> None:
        for node in _nodes_of(facts):
            for target, data in list(self.graph.succ[node].items()):
                data["kinds"] -= kinds
                if not data["kinds"]:
                    self.graph.remove_edge(node, target)

    def _edge(self, source: str, target: str, kind: str) -> None:
        if source == target:
            return
        if not self.graph.has_node(target):
            self.graph.add_node(target, kind=EXTERNAL, path="", line=0, sig="", doc="", excerpt="")
        # One edge per pair, carrying every relation (a class both raised and instantiated).
        if self.graph.has_edge(source, target):
            self.graph.edges[source, target]["kinds"].add(kind)
        else:
            self.graph.add_edge(source, target, kinds={kind})

    def _kind(self, node: str) -> str | None:
        return self.graph.nodes[node].get("kind") if self.graph.has_node(node) else None

    # --- questions -----------------------------------------------------------------------

    def networkx(self) -> nx.DiGraph:
        """The graph with every reference resolved."""
        self._link_bases()
        for path in list(self._unlinked_refs):
            self._link_refs(path)
        return self.graph

    def defines(self, name: str) -> bool:
        return self._names.get(name, 0) > 0

    def evidence(self, symbol: str, limit: int = 12) -> list[Evidence]:
        """The 1-hop neighbourhood of ``symbol``, as ReFEree takes it: what it calls,
        instantiates, raises and inherits from, each with its signature, docstring summary
        and an excerpt of its code."""
        if not self.graph.has_node(symbol):
            return []
        self._link_node(symbol)
        neighbours = []
        for target, data in self.graph.succ[symbol].items():
            relations = data["kinds"] - {"defines", "imports"}
            if relations:
                neighbours.append((target, "/".join(sorted(relations))))
        return [self._evidence(node, relation) for node, relation in neighbours[:limit]]

    def _evidence(self, node: str, relation: str) -> Evidence:
        data = self.graph.nodes[node]
        parts = [f"# {relation}: {node}{data.get('sig', '')}"]
        if data.get("doc"):
            parts.append(f'"""{data["doc"]}"""')
        if data.get("excerpt"):
            parts.append(data["excerpt"])
        return Evidence(node, data.get("path", ""), data.get("line", 0), "\n".join(parts))

    def is_project_exception(self, name: str) -> bool:
        """Whether ``name`` (simple or dotted) is a class defined in the project."""
        simple = name.rsplit(".", 1)[-1]
        return any(self._kind(q) == "class" for q in self._by_simple_name.get(simple, ()))

    def may_raise(self, symbol: str, exception: str) -> bool:
        """Whether ``symbol`` or anything it calls in the project (transitively) may raise
        ``exception`` or a subclass of it. A bare ``raise`` may raise anything.

        A depth-first search that stops at the first raiser found."""
        self._link_bases()
        wanted = self._subclasses(exception.rsplit(".", 1)[-1]) | {"*"}
        seen, stack = {symbol}, [symbol]
        while stack:
            node = stack.pop()
            if not self.graph.has_node(node):
                continue
            self._link_node(node)
            data = self.graph.nodes[node]
            raised = {r.rsplit(".", 1)[-1] for r in data.get("raises", ())}
            if data.get("reraises"):
                raised.add("*")
            callees = []
            for target, edge in self.graph.succ[node].items():
                if "raises" in edge["kinds"]:  # resolved through aliases: the real class name
                    raised.add(target.rsplit(".", 1)[-1])
                if edge["kinds"] & {"calls", "instantiates"}:
                    callees.append(target)
            if raised & wanted:
                return True
            for name in data.get("guesses", ()):
                callees += [q for q in self._by_simple_name.get(name, ()) if self._kind(q) == "method"]
            for target in callees:
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return False

    def _subclasses(self, simple: str) -> set[str]:
        """``simple`` and the simple names of every project class inheriting from it."""
        found = {simple}
        frontier = [q for q in self._by_simple_name.get(simple, ()) if self._kind(q) == "class"]
        while frontier:
            node = frontier.pop()
            for source, data in self.graph.pred[node].items():
                name = source.rsplit(".", 1)[-1]
                if "inherits" in data["kinds"] and name not in found:
                    found.add(name)
                    frontier.append(source)
        return found

    def cancels(self, symbol: str, condition: tuple[str, str] | None) -> bool:
        """Whether the project makes a conditional finding void (see ``Finding.condition``)."""
        if condition is None:
            return False
        kind, value = condition
        if kind == "defined":
            return self.defines(value)
        if kind == "raised":
            # Only exceptions the project defines can be judged; others are unknown.
            return not self.is_project_exception(value) or self.may_raise(symbol, value)
        return False


def _nodes_of(facts: dict) -> list[str]:
    return [facts["module"]] + [unit["q"] for unit in facts["units"]]


def _imports_module(facts: dict, module: str) -> bool:
    scope = _Scope(None, facts)
    return any(
        target == module or target.startswith(module + ".")
        for target in (scope.absolute(t) for _, t in facts["imports"])
    )


class _Scope:
    """Resolution of dotted names as written in one file."""

    def __init__(self, project: ProjectGraph, facts: dict):
        self.project = project
        self.module = facts["module"]
        self.package = facts["module"] if facts["package"] else facts["module"].rpartition(".")[0]
        self.imports = dict(facts["imports"])

    def absolute(self, target: str) -> str:
        """An import target with its leading dots resolved against this module."""
        if not target.startswith("."):
            return target
        dots = len(target) - len(target.lstrip("."))
        base = self.package.split(".") if self.package else []
        base = base[: len(base) - (dots - 1)] if dots > 1 else base
        rest = target[dots:]
        return ".".join(part for part in (*base, rest) if part)

    def resolve(self, unit: str, dotted: str) -> list[str] | None:
        """Qualified names ``dotted`` refers to from ``unit``; None for a method called on
        a value of unknown type (a guess by name is all that is possible)."""
        head, _, rest = dotted.partition(".")
        if head in ("self", "cls") and rest:
            return self._method(unit, rest.split(".")[0])
        # Enclosing scopes, innermost first: nested definitions, then the module.
        scope = unit
        while scope:
            candidate = f"{scope}.{dotted}"
            if self.project.graph.has_node(candidate):
                return [candidate]
            if scope == self.module:
                break
            scope = scope.rpartition(".")[0]
        if head in self.imports:
            full = self.absolute(self.imports[head]) + (f".{rest}" if rest else "")
            return [self._nearest_known(full)]
        return None if rest else []

    def _nearest_known(self, dotted: str) -> str:
        """``dotted`` itself when known; else the project node it is an attribute of."""
        probe = dotted
        while probe and not self.project.graph.has_node(probe):
            probe = probe.rpartition(".")[0]
        return probe if probe and self.project._kind(probe) != "module" else dotted

    def _method(self, unit: str, name: str) -> list[str] | None:
        """``self.name`` inside ``unit``: in the class or its project bases; else None
        (a subclass or a mixin may define it)."""
        owner = unit
        while owner and self.project._kind(owner) != "class":
            owner = owner.rpartition(".")[0]
        seen = set()
        frontier = [owner] if owner else []
        while frontier:
            cls = frontier.pop(0)
            if cls in seen:
                continue
            seen.add(cls)
            if self.project.graph.has_node(f"{cls}.{name}"):
                return [f"{cls}.{name}"]
            frontier += [t for t, d in self.project.graph.succ[cls].items() if "inherits" in d["kinds"]]
        return None
