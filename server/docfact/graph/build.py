"""The project graph: modules, classes and functions of every file and the symbols they
import, with edges for calls, imports, inheritance, instantiation and raises.

Entities live in plain dictionaries (cheap to load for thousands of files); the edges of
a networkx DiGraph are resolved on demand, a file at a time: base classes of every file
first (cheap, and method lookup needs them), a file's other references when a question
reaches it. Names are resolved through enclosing scopes, the module, imports (relative
and aliased) and ``self.``/``cls.`` through the class and its bases. What cannot be
resolved is left out: an unknown never produces a finding.
"""

from __future__ import annotations

import builtins
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, KeysView
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..model import Evidence
from ..source import jdk
from ..source.files import SkippedFile, read_regular
from . import references
from .documentation import NO_DOCUMENTATION, Documentation
from .external import defined_in_stdlib, defined_outside, external_evidence
from .facts import FileFacts, UnitFacts
from .scope import FileScope, imports_module

if TYPE_CHECKING:
    import networkx  # imported with the first edge (see ProjectGraph.graph)

T = TypeVar("T")

_BUILTINS = frozenset(dir(builtins))
# A module's own ``__getattr__`` makes its attributes at run time (a class's makes
# attributes of its instances, not of the module).
_MODULE_GETATTR = "__getattr__"
_NAMESPACE_DEPTH = 3  # namespace packages looked for above a project's top-level package
_EXCERPT_LINES = 12
_EXCERPT_CHARS = 800
_EXCERPT_MAX_BYTES = 16 << 20  # larger source files are not read for an excerpt
_REFERENCES = {
    "imports",
    "calls",
    "instantiates",
    "raises",
    "inherits",
    "annotated with",
    "reads",
    "writes",
}


class ProjectGraph:
    """The project's index: every file's facts, its entities by qualified and simple name,
    and the edges between them (resolved per file by its FileScope, on demand). Rules ask
    it what the project defines and binds, what a class has, what a unit may raise
    (one reachability walk), and settle the conditions findings wait on."""

    def __init__(self) -> None:
        self._graph: networkx.DiGraph | None = None  # the edges, made when first needed
        self._files: dict[str, FileFacts] = {}  # path -> facts (see facts.file_facts)
        self._units: dict[str, UnitFacts] = {}  # qualified name -> unit facts, with "path"
        self._modules: dict[str, str] = {}  # module name -> path
        self._names: Counter[str] = Counter()  # defined name -> files defining it
        self._by_simple_name: dict[str, set[str]] = defaultdict(set)  # entities, variables too
        self._guesses: dict[str, list[str]] = {}  # unit -> methods called on unknown values
        self._dynamic_callers: set[str] = set()  # units calling a callable bound at run time
        self._unlinked_refs: set[str] = set()
        self._scopes: dict[str, FileScope] = {}
        self._bases: dict[str, list[str]] = {}  # class -> its resolved project bases
        self._children: dict[str, set[str]] | None = None  # base simple name -> subclasses
        self._documented_methods: set[str] | None = None  # simple names of documented methods
        self._namespaces: dict[str, str] | None = None  # "google.cloud.storage" -> "storage"
        self._packages: frozenset[str] | None = None  # imported from outside the project
        self.generation = 0
        self._members: tuple[int, dict[str, set[str]]] | None = None  # by generation
        # (generation, symbol, condition) -> judgement
        self._judgements: dict[tuple[int, str, tuple[str, str]], references.Judgement | None] = {}
        self._cache: dict[str, tuple[int, Any]] = {}  # see cached(): a value of any type
        # The names the project's Sphinx pages define (``use_documentation``).
        self.documentation: Documentation = NO_DOCUMENTATION

    # --- building ----------------------------------------------------------------------

    def set_file(self, facts: FileFacts, importers_too: bool = True) -> None:
        """Add or replace one file's entities (``facts`` from ``file_facts``).

        ``importers_too``: also resolve again the files that import it (needless while
        building a whole project, where every file is resolved anyway).
        """
        path = facts["path"]
        self.remove_file(path)
        self._files[path] = facts
        self._names.update(facts["names"].split())  # Counter.update counts in C
        self._names.update(facts["module"].split("."))
        self._modules[facts["module"]] = path
        for unit in facts["units"]:
            unit["path"] = path  # not stored per unit in the cache: it is the file's
            self._units[unit["q"]] = unit
            self._by_simple_name[unit["q"].rsplit(".", 1)[-1]].add(unit["q"])
        for name, line in facts.get("variables", ()):
            if name not in self._units:  # a def or class of the same name wins
                self._units[name] = _variable(name, path, line)
                self._by_simple_name[name.rsplit(".", 1)[-1]].add(name)
        for name, line in facts.get("attributes", ()):
            if name not in self._units:  # so does a class-level variable
                self._units[name] = _variable(name, path, line, "attribute")
                self._by_simple_name[name.rsplit(".", 1)[-1]].add(name)
        self._invalidate({path})
        if importers_too:
            module = facts["module"]
            self._invalidate({p for p, f in self._files.items() if imports_module(f, module)})

    def remove_file(self, path: str) -> None:
        facts = self._files.pop(path, None)
        if facts is None:
            return
        for name in [*facts["names"].split(), *facts["module"].split(".")]:
            self._names[name] -= 1
            if self._names[name] <= 0:
                del self._names[name]  # a name no file binds any more costs nothing
        if self._modules.get(facts["module"]) == path:  # a Java package has many files
            del self._modules[facts["module"]]
        affected: set[str] = set()
        for node in _nodes_of(facts):
            self._units.pop(node, None)
            self._guesses.pop(node, None)
            self._dynamic_callers.discard(node)
            simple = node.rsplit(".", 1)[-1]
            self._by_simple_name[simple].discard(node)
            if not self._by_simple_name[simple]:
                del self._by_simple_name[simple]
            if node in self.graph:
                # Files pointing at what disappears must resolve their references again.
                affected.update(filter(None, map(self._path_of, self.graph.pred[node])))
                self.graph.remove_node(node)
        self._unlinked_refs.discard(path)
        self._invalidate(affected - {path})

    def _invalidate(self, paths: set[str]) -> None:
        self._unlinked_refs |= paths
        self._scopes.clear()
        self._bases.clear()
        self._children = None
        self._documented_methods = None
        self._namespaces = None
        self._packages = None
        self.generation += 1

    def use_documentation(self, documentation: Documentation) -> None:
        """Take the names the project's documentation defines (a new reading of it)."""
        if documentation.digest != self.documentation.digest:
            self.documentation = documentation
            self.generation += 1

    def _scope(self, path: str) -> FileScope:
        if path not in self._scopes:
            self._scopes[path] = FileScope(self, self._files[path])
        return self._scopes[path]

    def imported_modules(self) -> frozenset[str]:
        """The targets of the project's imports from outside the project
        (``http.cookiejar``, ``numpy.random.MT19937``)."""
        if self._packages is None:
            self._packages = frozenset(
                target
                for facts in self._files.values()
                for local, target in facts["imports"]
                if not target.startswith(".")
                and self.kind(self.unaliased(target).split(".")[0]) != "module"
            )
        return self._packages

    def unaliased(self, dotted: str) -> str:
        """``dotted`` as the project names it. A package checked below namespace packages
        (PEP 420 folders without ``__init__.py``, as ``google/cloud/storage``) is named from
        its own folder (``storage``), while its files import it by the full name
        (``google.cloud.storage._helpers``)."""
        if self._namespaces is None:
            self._namespaces = _namespace_aliases(self._files.values())
        parts = dotted.split(".")
        for cut in range(min(len(parts), _NAMESPACE_DEPTH + 1), 1, -1):
            top = self._namespaces.get(".".join(parts[:cut]))
            if top is not None:
                return ".".join([top, *parts[cut:]])
        return dotted

    def bases_of(self, cls: str) -> list[str]:
        """The project classes (or external names) ``cls`` inherits from, resolved."""
        if cls not in self._bases:
            unit = self._units.get(cls)
            found: list[str] = []
            self._bases[cls] = found  # a cycle (class A(B), class B(A)) ends here
            if unit is not None and unit.get("bases", ()):
                scope = self._scope(unit["path"])
                for base in unit.get("bases", ()):
                    found += [t for t in scope.resolve(cls, base) or () if t != cls]
        return self._bases[cls]

    def _link_refs(self, path: str | None) -> None:
        """Resolve the imports, calls and raises of one file."""
        if path not in self._unlinked_refs:
            return
        self._unlinked_refs.discard(path)
        facts = self._files[path]
        self._drop_edges(facts, _REFERENCES)
        scope = self._scope(path)
        for unit in facts["units"]:
            for base in self.bases_of(unit["q"]):
                self._edge(unit["q"], base, "inherits")
        for _, target in facts["imports"]:
            self._edge(facts["module"], scope.absolute(target), "imports")
        for unit in facts["units"]:
            guesses = []
            self._dynamic_callers.discard(unit["q"])
            for call in unit.get("calls", ()):
                targets = scope.resolve(unit["q"], call)
                if targets is None:
                    guesses.append(call.rsplit(".", 1)[-1])
                elif not targets and "." not in call and call not in _BUILTINS:
                    # A callable bound at run time (a parameter, a local looked up in
                    # data): it may raise anything.
                    self._dynamic_callers.add(unit["q"])
                for target in targets or ():
                    self._edge(
                        unit["q"],
                        target,
                        "instantiates" if self.kind(target) == "class" else "calls",
                    )
            # Methods called on values of unknown type: any project method so named may
            # run (kept for raises, too vague to be evidence).
            self._guesses[unit["q"]] = guesses
            for raised in unit.get("raises", ()):
                for target in scope.resolve(unit["q"], raised) or ():
                    self._edge(unit["q"], target, "raises")
            owner = unit["q"].rpartition(".")[0]
            for name in unit.get("uses", ()):  # class variables of its class, else the module's
                for target in (f"{owner}.{name}", f"{facts['module']}.{name}"):
                    if self.kind(target) == "variable":
                        self._edge(unit["q"], target, "reads")
                        break
            for name in unit.get("writes", ()):
                self._edge(unit["q"], f"{owner}.{name}", "writes")
            for name in unit.get("reads_attrs", ()):  # its class's attributes, or its bases'
                attribute = self._attribute(owner, name)
                if attribute is not None:
                    self._edge(unit["q"], attribute, "reads")
            for name in unit.get(
                "types", ()
            ):  # only project classes: `int` or `Optional` say nothing
                for target in scope.resolve(unit["q"], name) or ():
                    if self.kind(target) == "class":
                        self._edge(unit["q"], target, "annotated with")

    def _drop_edges(self, facts: FileFacts, kinds: set[str]) -> None:
        for node in _nodes_of(facts):
            if node not in self.graph:
                continue
            for target, data in list(self.graph.succ[node].items()):
                data["kinds"] -= kinds
                if not data["kinds"]:
                    self.graph.remove_edge(node, target)

    def _edge(self, source: str, target: str, kind: str) -> None:
        if source == target:
            return
        # One edge per pair, carrying every relation (a class both raised and instantiated).
        if self.graph.has_edge(source, target):
            self.graph.edges[source, target]["kinds"].add(kind)
        else:
            self.graph.add_edge(source, target, kinds={kind})

    # --- questions -----------------------------------------------------------------------

    def _attribute(self, cls: str, name: str) -> str | None:
        """The instance attribute or class variable ``name`` of ``cls`` or its bases."""
        for owner in [cls, *self.bases_of(cls)]:
            if self.kind(f"{owner}.{name}") in ("attribute", "variable"):
                return f"{owner}.{name}"
        return None

    def kind(self, name: str) -> str | None:
        """ "module", "class", "function", "method", "variable" or "attribute" for project
        entities, else None."""
        unit = self._units.get(name)
        if unit is not None:
            return unit["kind"]
        return "module" if name in self._modules else None

    def where_defined(self, name: str, near: str) -> tuple[str, int] | None:
        """Path and line of the project's definition of ``name`` (dotted or simple), the
        one closest to the unit ``near`` when there are several, else of the directive
        of its documentation that defines it; None when it has none (a parameter, a
        local, a library's name)."""
        candidates = [name] if name in self._units else sorted(self._by_simple_name.get(name, ()))
        units = [self._units[c] for c in candidates if c in self._units]
        if not units:
            return self.documentation.where.get(name)  # a name a page of the docs defines
        here = self._path_of(near)
        unit = min(units, key=lambda u: (u["path"] != here, u["q"]))
        return unit["path"], unit["line"]

    def _path_of(self, name: str) -> str | None:
        unit = self._units.get(name)
        return unit["path"] if unit is not None else self._modules.get(name)

    @property
    def graph(self) -> networkx.DiGraph:
        """The edges (a networkx DiGraph). networkx is imported with the first edge: an
        editor's first diagnostics seldom need one, and the import is a tenth of a second."""
        if self._graph is None:
            import networkx

            self._graph = networkx.DiGraph()
        return self._graph

    def networkx(self) -> networkx.DiGraph:
        """The graph with every reference resolved."""
        for path in list(self._unlinked_refs):
            self._link_refs(path)
        return self.graph

    def defines(self, name: str) -> bool:
        """Whether a file of the project uses ``name`` anywhere in its code (its comments
        and strings too)."""
        return self._names.get(name, 0) > 0

    def binds(self, name: str) -> bool:
        """Whether a file of the project binds ``name``, as a documentation tool can see
        it: defines it (a function, class, method, variable or attribute), names a module
        so, or imports it. A word of a comment or a string binds nothing."""
        return bool(self._by_simple_name.get(name)) or name in self.cached(
            "bound names", _bound_names
        )

    def evidence(self, symbol: str, limit: int = 12) -> list[Evidence]:
        """The 1-hop neighbourhood of ``symbol``, as ReFEree takes it: what it calls,
        instantiates, raises, inherits from and is annotated with, each with its signature,
        docstring summary and an excerpt of its code."""
        if self.kind(symbol) is None:
            return []
        self._link_refs(self._path_of(symbol))
        if symbol not in self.graph:
            return []
        neighbours = []
        for target, data in self.graph.succ[symbol].items():
            relations = data["kinds"] - {"imports"}
            if relations:
                neighbours.append(self._evidence(target, "/".join(sorted(relations))))
        return neighbours[:limit]

    def _evidence(self, node: str, relation: str) -> Evidence:
        unit = self._units.get(node)
        if unit is None and node not in self._modules:  # outside the project
            return external_evidence(node, relation) or Evidence(
                node, "", 0, f"# {relation}: {node}"
            )
        if unit is None:
            return Evidence(node, self._modules[node], 1, f"# {relation}: {node}")
        header = f"# {relation}: {node}{unit['sig']}"
        code = definition_excerpt(unit["path"], unit["line"])
        return Evidence(node, unit["path"], unit["line"], f"{header}\n{code}".rstrip())

    # --- what docstring references need (graph/references.py) ----------------------------

    def resolve_from(self, symbol: str, dotted: str) -> list[str] | None:
        """What ``dotted`` names in the code of ``symbol``'s module (imports included)."""
        path = self._path_of(symbol)
        return self._scope(path).resolve(symbol, dotted) if path is not None else None

    def modules(self) -> KeysView[str]:
        return self._modules.keys()

    def module_names(self, module: str) -> frozenset[str] | None:
        """The names ``module`` has as an object: what its file defines at its top level
        and imports, and what the project modules it imports with ``*`` have; None when
        it may have any name (such a module is not the project's, or its code makes
        names at run time through ``globals()`` or a module ``__getattr__``)."""
        found, seen, frontier = set(), set(), [module]
        while frontier:
            current = frontier.pop()
            path = self._modules.get(current)
            if current in seen or path is None:
                continue
            seen.add(current)
            facts = self._files[path]
            members = self.members(current)
            if _MODULE_GETATTR in members or facts["names_at_run_time"]:
                return None
            found |= members
            for local, target in facts["imports"]:
                found.add(local)
                if local == "*":
                    target = self._scope(path).absolute(target)
                    if target not in self._modules:
                        return None
                    frontier.append(target)
        return frozenset(found)

    def members(self, owner: str) -> set[str]:
        """The names of the entities defined directly in ``owner`` (a module or class)."""
        if self._members is None or self._members[0] != self.generation:
            index: dict[str, set[str]] = defaultdict(set)
            for q in self._units:
                parent, _, name = q.rpartition(".")
                index[parent].add(name)
            self._members = (self.generation, index)
        return self._members[1].get(owner, set())

    def class_members(
        self, cls: str, outside: Callable[[str], Iterable[str] | None] | None = None
    ) -> set[str] | None:
        """The members of ``cls`` and its bases; None when a base is outside the project
        (or cannot be found), so that any name may be inherited. ``outside``, if given,
        tells the members of a class outside the project by its dotted name (None when
        it cannot): then only a base it cannot tell makes them unknown."""
        found, seen, frontier = set(), set(), [cls]
        while frontier:
            current = frontier.pop()
            if current in seen:
                continue
            seen.add(current)
            project_bases = [b for b in self.bases_of(current) if self.kind(b) == "class"]
            unit = self._units.get(current)
            written = [b for b in (unit.get("bases", ()) if unit else ()) if b != "object"]
            if len(project_bases) < len(written):
                inherited = self._outside_members(current, outside) if outside else None
                if inherited is None:
                    return None
                found |= inherited
            found |= self.members(current)
            frontier += project_bases
        return found

    def _outside_members(
        self, cls: str, outside: Callable[[str], Iterable[str] | None]
    ) -> set[str] | None:
        """The members ``cls`` inherits from its bases outside the project: a builtin's
        ``dir()``, else what ``outside`` reads of the class the base's name resolves to."""
        unit = self._units[cls]
        found: set[str] = set()
        for base in unit["bases"]:
            targets = self._scope(unit["path"]).resolve(cls, base) if base != "object" else [base]
            if targets and self.kind(targets[0]) == "class":
                continue
            builtin = getattr(builtins, base, None)
            members = (
                dir(builtin)
                if isinstance(builtin, type) and not targets
                else outside(targets[0])
                if targets
                else None
            )
            if members is None:
                return None
            found.update(members)
        return found

    def parameters(self, callable_: str) -> list[str] | None:
        """The parameters a call of ``callable_`` accepts by keyword (a class: its
        constructor's, its own or a project base's); None when it takes ``**kwargs`` or
        its parameters are unknown."""
        unit = self._units.get(callable_)
        if unit is None:
            return None
        if unit["kind"] == "class":
            for owner in [callable_, *self.bases_of(callable_)]:
                for name in ("__init__", "__new__"):
                    if f"{owner}.{name}" in self._units:
                        return self.parameters(f"{owner}.{name}")
            return None
        if (
            unit["kind"] not in ("function", "method")
            or unit.get("kwargs")
            or unit["path"].endswith(".pyi")
        ):
            return None  # a stub's overloads each take only part of the parameters
        return unit.get("params", [])

    def named_parameters(self, callable_: str) -> list[str]:
        """The parameters ``callable_`` names, whatever ``**kwargs`` it takes besides (none
        when it is no project function)."""
        unit = self._units.get(callable_)
        return list(unit.get("params", ())) if unit is not None else []

    def ancestors(self, cls: str) -> set[str]:
        """The project classes ``cls`` inherits from, at any depth."""
        return self._ancestors(cls)

    def simple_names(self) -> set[str]:
        """The own names of the project's entities (``add`` of ``shop.Cart.add``)."""
        return {name for name, entities in self._by_simple_name.items() if entities}

    def named(self, simple: str) -> set[str]:
        """The project's entities whose own name is ``simple``."""
        return self._by_simple_name.get(simple, set())

    def has_suffix(self, suffix: str) -> bool:
        """Whether an entity or module of the project has a name ending with ``suffix``
        (which starts with a dot)."""
        last = suffix.rpartition(".")[2]
        return any(q.endswith(suffix) for q in self.named(last)) or any(
            name.endswith(suffix) or "." + name == suffix for name in self._modules
        )

    def is_project_exception(self, name: str) -> bool:
        """Whether ``name`` (simple or dotted) is a class defined in the project."""
        simple = name.rsplit(".", 1)[-1]
        return any(self.kind(q) == "class" for q in self._by_simple_name.get(simple, ()))

    def may_raise(self, symbol: str, exception: str) -> bool:
        """Whether ``symbol`` or anything it calls in the project (transitively) may raise
        ``exception`` or a subclass of it. A bare ``raise`` may raise anything. A method
        runs as any project override of it may (a base documents what its overrides
        raise); ``raise self.make_error(...)`` raises what the called factory makes.

        A depth-first search that stops at the first raiser found."""
        wanted = self._subclasses(exception.rsplit(".", 1)[-1]) | {"*"}
        factories: set[str] = set()  # functions whose result is raised

        def step(node: str) -> tuple[set[str], list[str]] | None:
            unit = self._units.get(node)
            if unit is None:
                return set(), []
            self._link_refs(unit["path"])
            raised = {r.rsplit(".", 1)[-1] for r in unit.get("raises", ())}
            if unit.get("reraises", False) or node in self._dynamic_callers:
                raised.add("*")
            callees = [
                q
                for name in self._guesses.get(node, ())
                for q in self._by_simple_name.get(name, ())
                if self.kind(q) == "method"
            ]
            if unit["kind"] == "method":
                callees += self.overrides(node)
            callees += [  # a property of what an attribute holds (its type is unknown)
                q
                for name in unit.get("through_attrs", ())
                for q in self._by_simple_name.get(name, ())
                if q in self._units and self._units[q].get("property")
            ]
            for target, edge in self.graph.succ[node].items() if node in self.graph else ():
                if "raises" in edge["kinds"]:  # resolved through aliases: the real class name
                    if self.kind(target) in ("function", "method"):
                        factories.add(target)
                        callees.append(target)
                    else:
                        raised.add(target.rsplit(".", 1)[-1])
                if edge["kinds"] & {"calls", "instantiates"}:
                    callees.append(target)
                elif edge["kinds"] & {"reads", "writes"} and self.kind(target) == "method":
                    callees.append(target)  # a property: ``self.rules = rules`` runs its setter
                if node in factories and "instantiates" in edge["kinds"]:
                    raised.add(target.rsplit(".", 1)[-1])
            return raised, callees

        return _reaches_raiser(symbol, wanted, step)

    def overrides(self, method: str) -> list[str]:
        """The methods of the project's subclasses (at any depth) of ``method``'s class
        that override it."""
        owner, _, name = method.rpartition(".")
        return [
            q
            for q in self._by_simple_name.get(name, ())
            if q != method
            and self.kind(q) == "method"
            and owner in self._ancestors(q.rpartition(".")[0])
        ]

    def _ancestors(self, cls: str) -> set[str]:
        found, frontier = set(), list(self.bases_of(cls))
        while frontier:
            base = frontier.pop()
            if base not in found:
                found.add(base)
                frontier += self.bases_of(base)
        return found

    def may_throw(self, symbol: str, exception: str) -> bool:
        """Java: whether ``symbol`` or anything it calls may throw ``exception``, a
        subclass or a superclass of it: thrown, declared in a throws clause, or (for a
        callee) documented with ``@throws``. A call that leaves the project, or whose
        target is unknown, may throw any unchecked exception: then True."""
        simple = exception.rsplit(".", 1)[-1]
        wanted = (
            self._subclasses(simple)
            | self._superclasses(simple)
            | {name for name in jdk.EXCEPTION_PARENTS if simple in jdk.ancestors(name)}
            | {"*"}
        )

        def step(node: str) -> tuple[set[str], list[str]] | None:
            unit = self._units.get(node)
            if unit is None:
                return None
            names = list(unit.get("raises", ())) + list(unit.get("throws", ()))
            if node != symbol:  # its own documentation is what is being checked
                names += unit.get("doc_raises", ())
            raised = {name.rsplit(".", 1)[-1] for name in names}
            if unit.get("reraises", False):
                return None
            scope = self._scope(unit["path"])
            callees = []
            for call in unit.get("calls", ()):
                targets = scope.resolve(node, call)
                # Unknown, outside the project, or a method of a field's value.
                if not targets or any(
                    self.kind(t) not in ("method", "function", "class") for t in targets
                ):
                    return None
                callees += [t for t in targets if self.kind(t) in ("method", "function")]
            return raised, callees

        return _reaches_raiser(symbol, wanted, step)

    def _superclasses(self, simple: str) -> set[str]:
        """The simple names of the bases of project classes named ``simple``, transitively,
        and of their JDK ancestors."""
        found, frontier = set(), [simple]
        while frontier:
            name = frontier.pop()
            for q in self._by_simple_name.get(name, ()):
                for base in self._units[q].get("bases", ()):
                    base = base.rsplit(".", 1)[-1]
                    if base not in found:
                        found.add(base)
                        frontier.append(base)
            found.update(jdk.ancestors(name))
        return found

    def _subclasses(self, simple: str) -> set[str]:
        """``simple`` and the simple names of every project class inheriting from it (by
        the names its bases are written with: loose, so it errs towards "may raise")."""
        if self._children is None:
            self._children = defaultdict(set)
            for unit in self._units.values():
                for base in unit.get("bases", ()):
                    self._children[base.rsplit(".", 1)[-1]].add(unit["q"].rsplit(".", 1)[-1])
        found, frontier = {simple}, [simple]
        while frontier:
            for child in self._children.get(frontier.pop(), ()):
                if child not in found:
                    found.add(child)
                    frontier.append(child)
        return found

    def method_units(self, path: str) -> list[UnitFacts]:
        """The facts of the methods ``path`` defines."""
        facts = self._files.get(path)
        return [u for u in facts["units"] if u["kind"] == "method"] if facts else []

    def has_documented_method(self, name: str) -> bool:
        """Whether a method of this simple name has a docstring anywhere in the project."""
        if self._documented_methods is None:
            self._documented_methods = {
                q.rpartition(".")[2]
                for q, unit in self._units.items()
                if unit["kind"] == "method" and unit.get("has_doc")
            }
        return name in self._documented_methods

    def inherited_docstring(self, cls: str, name: str) -> UnitFacts | None:
        """The nearest method ``name`` with a docstring in the project bases of ``cls`` (the
        one ``inspect.getdoc`` finds for an undocumented override)."""
        seen, frontier = {cls}, list(self.bases_of(cls))
        while frontier:
            base = frontier.pop(0)
            if base in seen:
                continue
            seen.add(base)
            method = self._units.get(f"{base}.{name}")
            if method is not None and method.get("has_doc"):
                return method
            frontier += self.bases_of(base)
        return None

    def settling_evidence(self, symbol: str, condition: tuple[str, str] | None) -> list[Evidence]:
        """What a conditional finding that stands was judged on: for a documented
        exception, the callees that were looked through."""
        if condition is None or condition[0] not in ("raised", "thrown"):
            return []
        return [e for e in self.evidence(symbol) if not e.text.startswith("# raises")]

    def cancels(self, symbol: str, condition: tuple[str, str] | None) -> bool:
        """Whether the project makes a conditional finding void (see ``Finding.condition``)."""
        if condition is None:
            return False
        kind, value = condition
        if kind == "defined":
            return (
                self.defines(value)
                or defined_outside(value, self.imported_modules())
                or self.documentation.documents(value)
            )
        if kind == "called":  # what an example calls may be the standard library's too
            return (
                self.defines(value)
                or defined_outside(value, self.imported_modules())
                or defined_in_stdlib(value)
            )
        if kind == "visible":  # Java
            return self.defines(value) or self._imports_unlisted(symbol)
        if kind == "raised":
            # Only exceptions the project defines can be judged; others are unknown. The
            # file's own import decides which class a name is: one imported from another
            # package is not the project's class of the same name.
            simple = value.rsplit(".", 1)[-1]
            return (
                self._imported_from_outside(symbol, value)
                or not self.is_project_exception(simple)
                or self.may_raise(symbol, simple)
            )
        if kind == "raised builtin":  # the function cannot raise it itself (checks/function.py)
            return self.may_raise(symbol, value)
        if kind in references.KINDS:
            return self._judgement(symbol, condition) is None
        if kind == "thrown":  # Java: the JDK's exceptions are known too
            known = jdk.is_checked(value) is not None or self.is_project_exception(value)
            return not known or self.may_throw(symbol, value)
        return False

    def settled_finding(
        self, symbol: str, condition: tuple[str, str] | None
    ) -> tuple[str, str | None] | None:
        """For a finding that stands, what the project adds: (a message naming what is
        missing, the replacement text of its fix or None); None when nothing."""
        if condition is None or condition[0] not in references.KINDS:
            return None
        judgement = self._judgement(symbol, condition)
        return None if judgement is None else (judgement.message, judgement.replacement)

    def cached(self, key: str, make: Callable[[ProjectGraph], T]) -> T:
        """``make(self)``, computed once per version of the project."""
        found = self._cache.get(key)
        if found is None or found[0] != self.generation:
            found = self._cache[key] = (self.generation, make(self))
        return found[1]

    def _judgement(self, symbol: str, condition: tuple[str, str]) -> references.Judgement | None:
        """references.judge, once per question and version of the project."""
        key = (self.generation, symbol, condition)
        if key not in self._judgements:
            if len(self._judgements) > 100_000:
                self._judgements.clear()
            self._judgements[key] = references.judge(self, symbol, condition)
        return self._judgements[key]

    def _imported_from_outside(self, symbol: str, dotted: str) -> bool:
        """Whether the file of ``symbol`` imports the head of ``dotted`` from a module that
        is not the project's."""
        unit = self._units.get(symbol)
        if unit is None:
            return False
        scope = self._scope(unit["path"])
        head = dotted.split(".")[0]
        if head not in scope.imports:
            return False
        return self.kind(scope.absolute(scope.imports[head]).split(".")[0]) != "module"

    def _imports_unlisted(self, symbol: str) -> bool:
        """Whether the file of ``symbol`` imports with a wildcard names docfact cannot list:
        those of a package or class neither in the project nor among the JDK's packages
        (a JDK class's members, ``import static java.lang.Math.*``, count as unlisted). A
        package (documented in package-info.java) has many files: any of them counts."""
        unit = self._units.get(symbol)
        files = (
            [self._files[unit["path"]]]
            if unit is not None
            else [facts for facts in self._files.values() if facts["module"] == symbol]
        )
        return any(
            self.kind(target) is None and jdk.package_types(target) is None
            for facts in files
            for local, target in facts["imports"]
            if local == "*"
        )


def _reaches_raiser(
    symbol: str, wanted: set[str], step: Callable[[str], tuple[set[str], list[str]] | None]
) -> bool:
    """Whether a depth-first walk from ``symbol`` meets a unit raising one of ``wanted``
    ("*": anything). ``step(unit)`` gives what the unit raises and the units it calls, or
    None when it may raise anything (code the project cannot see)."""
    seen, stack = {symbol}, [symbol]
    while stack:
        found = step(stack.pop())
        if found is None:
            return True
        raised, callees = found
        if raised & wanted:
            return True
        for target in callees:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return False


def definition_excerpt(path: str, line: int) -> str:
    """The first lines of the definition at ``line`` (1-based) of ``path``, docstring
    included (ReFEree shows definitions with their docstrings), read now from the file."""
    try:  # the file may have changed since it was indexed: a FIFO now, or huge
        lines = (
            read_regular(Path(path), _EXCERPT_MAX_BYTES)
            .decode("utf-8", "replace")
            .splitlines()[line - 1 :]
        )
    except SkippedFile:
        return ""
    if not lines:
        return ""
    indent = len(lines[0]) - len(lines[0].lstrip())
    taken = [lines[0]]
    for text in lines[1:_EXCERPT_LINES]:
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break  # the definition ended
        taken.append(text)
    return "\n".join(taken)[:_EXCERPT_CHARS]


def _nodes_of(facts: FileFacts) -> list[str]:
    return (
        [facts["module"]]
        + [unit["q"] for unit in facts["units"]]
        + [name for name, _ in facts.get("variables", ())]
        + [name for name, _ in facts.get("attributes", ())]
    )


def _bound_names(project: ProjectGraph) -> frozenset[str]:
    """The names the project's files import, the parts of its modules' names, and every
    name the code of a module with a ``__getattr__`` uses (it makes attributes at run
    time: werkzeug.http gives deprecated functions by the names of a dictionary's keys)."""
    found: set[str] = set()
    for facts in project._files.values():
        found.update(local for local, _ in facts["imports"])
        found.update(facts["module"].split("."))
        if project.kind(f"{facts['module']}.__getattr__") == "function":
            found.update(facts["names"].split())
    return frozenset(found)


def _variable(name: str, path: str, line: int, kind: str = "variable") -> UnitFacts:
    """A module- or class-level variable (or an instance attribute), shaped like a unit's
    facts."""
    return {"q": name, "kind": kind, "path": path, "line": line, "sig": ""}


def _namespace_aliases(files: Iterable[FileFacts]) -> dict[str, str]:
    """Full dotted name -> the project's top-level package, for each top-level package
    whose folder sits in folders named like packages (``.../google/cloud/storage``)."""
    aliases: dict[str, str] = {}
    seen: set[str] = set()
    for facts in files:
        module, path = facts["module"], facts["path"]
        top = module.split(".")[0]
        if top in seen or path.endswith(".java") or not module:
            continue
        seen.add(top)
        folders = os.path.abspath(path).split(os.sep)[:-1]
        depth = module.count(".") + (1 if facts["package"] else 0)
        at = len(folders) - depth  # the top-level package's folder
        if not 0 < at < len(folders) or folders[at] != top:
            continue
        prefix: list[str] = []
        for folder in reversed(folders[max(0, at - _NAMESPACE_DEPTH) : at]):
            if not folder.isidentifier():
                break
            prefix.insert(0, folder)
            aliases[".".join([*prefix, top])] = top
    return aliases
