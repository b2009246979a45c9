"""Python source model: tree-sitter parse of one file into documented Units."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

import tree_sitter
import tree_sitter_python

from ..model import DocstringText, Module, Outdated, Parameter, Signature, Span, Unit
from .files import SkippedFile
from .hazards import check_python_text, check_tree_depth
from .literal import clean, decode_literal
from .reparse import Reparser
from .syntax import byte_to_char_map, statements_by_scope

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_SUPPRESSION = re.compile(r"#\s*docfact:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
_DEFINITIONS = ("function_definition", "class_definition")
_SUPPRESS_ALL = frozenset({"*"})
# Statements whose blocks may hold definitions (expressions never do, lambdas aside).
_COMPOUND = frozenset(
    {
        "block",
        "if_statement",
        "elif_clause",
        "else_clause",
        "for_statement",
        "while_statement",
        "try_statement",
        "except_clause",
        "except_group_clause",
        "finally_clause",
        "with_statement",
        "match_statement",
        "case_clause",
    }
)


_STATEMENTS = ("return", "yield", "raise", "call")


@lru_cache(maxsize=1)
def _query() -> tree_sitter.Query:
    """One pass over the tree for scopes, the statements they own, and imports."""
    language = tree_sitter.Language(tree_sitter_python.language())
    return tree_sitter.Query(
        language,
        """
        (function_definition) @function
        (class_definition) @class
        (lambda) @lambda
        (return_statement) @return
        (yield) @yield
        (raise_statement) @raise
        (call function: [(identifier) (attribute)] @call)
        (import_statement) @import
        (import_from_statement) @import
    """,
    )


# What makes a module's names at run time: ``globals()`` written, kept (``g = globals()``)
# or handed to a call that may write it (multiprocessing's ``globals().update(...)``,
# trio's ``fixup_module_metadata(__name__, globals())``), not deleted from (twisted's
# ``del globals()[name]`` only removes); enums converted into module constants (``ssl``'s
# ``_convert_``), a module ``__getattr__``.
_RUNTIME_NAMES = re.compile(
    r"\bglobals\(\)(?:\.update\(|\.setdefault\(|\[[^\]\n]*\]\s*=(?!=)|\s*(?:[,)]|$))"
    r"|\._convert_\(|^def __getattr__\(",
    re.MULTILINE,
)


def parse_module(text: str) -> Module:
    """Every documentable unit of ``text``, which may contain syntax errors."""
    return ModuleParser().parse(text)


def _made_by_calls(
    callees: Iterable[tree_sitter.Node], text: Callable[[tree_sitter.Node], str]
) -> dict[str, list[str]]:
    """Local name -> the callees whose result the function assigns to it (``error =
    errors.Invalid(...)``), from the callee nodes of its calls."""
    made: dict[str, list[str]] = {}
    for callee in callees:
        call = callee.parent
        assignment = call.parent if call is not None else None
        if assignment is None or assignment.type != "assignment":
            continue
        target = assignment.child_by_field_name("left")
        if (
            target is not None
            and target.type == "identifier"
            and (assignment.child_by_field_name("right") == call)
        ):
            made.setdefault(text(target), []).append(text(callee))
    return made


class ModuleParser:
    """Parses successive versions of one document (an editor buffer): the tree is
    updated from the last one (``reparse.Reparser``), and the statements (top-level, and
    in the bodies of top-level classes) whose text did not change keep their units, moved
    to where the statement now is."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # two versions' analyses may overlap in threads
        self._reparser = Reparser()
        self._pieces: dict[tuple, _Piece] = {}

    def parse(self, text: str, outdated: Callable[[], bool] | None = None) -> Module:
        """The units of ``text``; ``SkippedFile`` if the parser would crash on it or its
        tree is too deep to query."""
        data = text.encode("utf-8", "surrogatepass")
        with self._lock:
            try:
                check_python_text(data)
                tree, alone = self._reparser.parse(data)
                check_tree_depth([*tree.root_node.children, *alone.values()])
            except SkippedFile:
                self._reparser, self._pieces = Reparser(), {}  # the next version starts afresh
                raise
            extractor = _Extractor(text, data, tree, self._pieces, alone, outdated)
            module = extractor.module()
            self._pieces = extractor.fresh
            return module


@dataclass(frozen=True)
class _Piece:
    """What one statement of a module or class body contributes: its units (methods
    without their class's attributes, which depend on the whole class), the variables
    and imports it binds, and the identifiers of its code."""

    start: int  # string offsets of the statement
    end: int
    line: int  # 0-based line of the statement
    units: tuple[Unit, ...]
    variables: tuple[tuple[str, int], ...]
    imports: tuple[tuple[str, str], ...]
    names: frozenset[str]  # docstrings left out

    def moved(self, start: int, line: int) -> _Piece:
        delta, lines = start - self.start, line - self.line
        return _Piece(
            start,
            self.end + delta,
            line,
            tuple(_moved_unit(u, delta, lines) for u in self.units),
            tuple((name, at + lines) for name, at in self.variables),
            self.imports,
            self.names,
        )


class _Extractor:
    def __init__(
        self,
        text: str,
        data: bytes,
        tree: tree_sitter.Tree,
        known: dict[tuple, _Piece] | None = None,
        alone: dict[int, tree_sitter.Node] | None = None,
        outdated: Callable[[], bool] | None = None,
    ):
        self.text = text
        self.data = data
        self.tree = tree
        self.char_at = byte_to_char_map(text, data)
        self.known = known or {}  # the previous version's pieces, by context and text
        self.alone = alone or {}  # definitions parsed on their own, in place of the tree's
        self.fresh: dict[tuple, _Piece] = {}
        self.outdated = outdated or (lambda: False)  # asked between statements

    def module(self) -> Module:
        root = self.tree.root_node
        pieces = self._pieces(root, prefix="", in_class=False)
        names = self._names_around(pieces, Span(0, len(self.text)))
        imports = [item for piece in pieces for item in piece.imports]
        module_unit = Unit(
            kind="module",
            name="",
            qualname="",
            span=Span(0, len(self.text)),
            name_span=Span(0, 0),
            def_line=0,
            docstring=self._docstring(root),
            local_names=names,
        )
        return Module(
            units=(module_unit,) + tuple(u for piece in pieces for u in piece.units),
            defined_names=names,
            imported_names=frozenset(local for local, _ in imports if local != "*"),
            imports=tuple(sorted(set(imports))),
            variables=tuple(v for piece in pieces for v in piece.variables),
            has_errors=root.has_error,
            names_at_run_time=_RUNTIME_NAMES.search(self.text) is not None,
        )

    # --- pieces --------------------------------------------------------------------

    def _pieces(self, container: tree_sitter.Node, prefix: str, in_class: bool) -> list[_Piece]:
        """The pieces of the statements of a module or class body, reused when unchanged."""
        docstring = _docstring_statement(container)
        pieces = []
        for node in container.children:
            if self.outdated():
                raise Outdated
            node = self.alone.get(node.start_byte, node)
            is_docstring = docstring is not None and node.id == docstring.id
            key = (prefix, in_class, is_docstring, self.data[node.start_byte : node.end_byte])
            piece = self.known.get(key)
            start, line = self.char_at[node.start_byte], node.start_point[0]
            if piece is None or node.has_error:
                piece = self._piece(node, prefix, in_class, is_docstring)
            elif piece.start != start or piece.line != line:
                piece = piece.moved(start, line)
            if not node.has_error:  # what error recovery made of a text is no rule for it
                self.fresh[key] = piece
            pieces.append(piece)
        return pieces

    def _piece(
        self, node: tree_sitter.Node, prefix: str, in_class: bool, is_docstring: bool
    ) -> _Piece:
        definition = (
            node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        )
        if prefix == "" and definition is not None and definition.type == "class_definition":
            class_piece = self._class_piece(node, definition)
            if class_piece is not None:
                return class_piece
        self.units: list[Unit] = []
        self.variables: list[tuple[str, int]] = []
        self.captures = tree_sitter.QueryCursor(_query()).captures(node)
        self.by_scope = statements_by_scope(
            self.captures, ("function", "class", "lambda"), _STATEMENTS
        )
        span = self._span(node)
        self._walk_statement(node, prefix, frozenset() if in_class else None)
        docstrings = (
            [span] if is_docstring else [u.docstring.literal for u in self.units if u.docstring]
        )
        self.masked = self._masked_text(span, docstrings)
        self.masked_start = span.start
        class_names: dict[str, frozenset[str]] = {}
        return _Piece(
            start=span.start,
            end=span.end,
            line=node.start_point[0],
            units=tuple(self._with_names(unit, class_names) for unit in self.units),
            variables=tuple(self.variables),
            imports=tuple(self._imports(self.captures.get("import", ()))),
            names=frozenset(_IDENTIFIER.findall(self.masked)),
        )

    def _class_piece(self, outer: tree_sitter.Node, node: tree_sitter.Node) -> _Piece | None:
        """A top-level class, from the pieces of its body: an edit inside one method
        re-extracts that method only."""
        unit = self._class_unit(outer, node, "")
        body = node.child_by_field_name("body")
        if unit is None or body is None:
            return None
        pieces = self._pieces(body, unit.qualname + ".", in_class=True)
        span = self._span(outer)
        names = self._names_around(pieces, span)
        members = tuple(
            replace(member, attributes=names)
            if member.kind == "method" and member.qualname.rpartition(".")[0] == unit.qualname
            else member
            for piece in pieces
            for member in piece.units
        )
        return _Piece(
            start=span.start,
            end=span.end,
            line=outer.start_point[0],
            units=(replace(unit, local_names=names, attributes=names),) + members,
            variables=tuple(v for piece in pieces for v in piece.variables),
            imports=tuple(item for piece in pieces for item in piece.imports),
            names=names,
        )

    def _names_around(self, pieces: list[_Piece], span: Span) -> frozenset[str]:
        """The identifiers in ``span``: those of its pieces and of the text between them
        (a class header, blank lines)."""
        names, last = set(), span.start
        for piece in pieces:
            names.update(_IDENTIFIER.findall(self.text, last, piece.start))
            names |= piece.names
            last = piece.end
        names.update(_IDENTIFIER.findall(self.text, last, span.end))
        return frozenset(names)

    # --- walking -------------------------------------------------------------------

    def _walk(self, node: tree_sitter.Node, prefix: str, class_names: frozenset | None) -> None:
        for child in node.named_children:
            self._walk_statement(child, prefix, class_names)

    def _walk_statement(
        self, child: tree_sitter.Node, prefix: str, class_names: frozenset | None
    ) -> None:
        definition: tree_sitter.Node | None = child
        decorators = _decorators(child, self._text)
        if child.type == "decorated_definition":
            definition = child.child_by_field_name("definition")
        if definition is None:
            return
        if definition.type in _DEFINITIONS:
            self._definition(child, definition, decorators, prefix, class_names)
        elif definition.type == "expression_statement" and (not prefix or class_names is not None):
            self._variables(definition, prefix)
        elif definition.type in _COMPOUND:
            # Definitions inside if/try/with/for blocks are still definitions.
            self._walk(definition, prefix, class_names)

    def _variables(self, statement: tree_sitter.Node, prefix: str) -> None:
        """Names a module- or class-level assignment binds (``TIMEOUT = 30``, ``limit: int``)."""
        assignment = statement.named_children[0] if statement.named_children else None
        if assignment is None or assignment.type != "assignment":
            return
        left = assignment.child_by_field_name("left")
        targets = (
            [left]
            if left is not None and left.type == "identifier"
            else [
                n
                for n in (left.named_children if left is not None else ())
                if n.type == "identifier"
            ]
        )
        for target in targets:
            self.variables.append((prefix + self._text(target), target.start_point[0]))

    def _definition(
        self,
        outer: tree_sitter.Node,
        node: tree_sitter.Node,
        decorators: list[str],
        prefix: str,
        class_names: frozenset | None,
    ) -> None:
        body = node.child_by_field_name("body")  # (the grammar gives every definition one)
        if node.type == "class_definition":
            unit = self._class_unit(outer, node, prefix)
            if unit is not None:
                self.units.append(unit)
                if body is not None:
                    self._walk(body, unit.qualname + ".", frozenset())
            return
        unit = self._unit(
            outer, node, decorators, prefix, "method" if class_names is not None else "function"
        )
        if unit is not None:
            self.units.append(self._with_body_facts(unit, node))
            if body is not None:
                self._walk(body, unit.qualname + ".", None)

    def _class_unit(
        self, outer: tree_sitter.Node, node: tree_sitter.Node, prefix: str
    ) -> Unit | None:
        decorators = _decorators(outer, self._text)
        unit = self._unit(outer, node, decorators, prefix, "class")
        if unit is None:
            return None
        superclasses = node.child_by_field_name("superclasses")
        bases = (
            [
                self._text(_generic_origin(b))
                for b in superclasses.named_children
                if b.type not in ("keyword_argument", "comment")  # ``metaclass=``
            ]
            if superclasses
            else []
        )
        return replace(unit, bases=tuple(bases))

    def _unit(
        self,
        outer: tree_sitter.Node,
        node: tree_sitter.Node,
        decorators: list[str],
        prefix: str,
        kind: str,
    ) -> Unit | None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        parameters = node.child_by_field_name("parameters")
        if name_node is None or body is None or (parameters is not None and parameters.has_error):
            return None  # a half-typed signature may have swallowed the definitions after it
        return Unit(
            kind=kind,
            name=self._text(name_node),
            qualname=prefix + self._text(name_node),
            span=self._span(outer),
            name_span=self._span(name_node),
            def_line=node.start_point[0],
            docstring=self._docstring(body),
            signature=None if kind == "class" else self._signature(node),
            decorators=tuple(decorators),
            suppressed=self._suppressions(node),
        )

    # --- docstrings ----------------------------------------------------------------

    def _docstring(self, block: tree_sitter.Node) -> DocstringText | None:
        first = next((c for c in block.named_children if c.type != "comment"), None)
        if first is None or first.type != "expression_statement" or first.named_child_count != 1:
            return None
        literal = first.named_children[0]
        pieces = [literal]
        if literal.type == "concatenated_string":
            pieces = [p for p in literal.named_children if p.type == "string"]
        elif literal.type != "string":
            return None
        value_parts: list[str] = []
        offsets: list[int] = []
        for piece in pieces:
            start, end = self.char_at[piece.start_byte], self.char_at[piece.end_byte]
            decoded = decode_literal(self.text, start, end)
            if decoded is None:
                return None
            value_parts.append(decoded[0])
            offsets.extend(decoded[1])
        return clean("".join(value_parts), offsets, self._span(literal))

    def _masked_text(self, within: Span, docstrings: list[Span]) -> str:
        """The text of ``within`` with ``docstrings`` blanked (same length, so offsets
        stay true), so names they mention don't count as code."""
        parts, last = [], within.start
        for span in sorted(docstrings, key=lambda s: s.start):
            parts.append(self.text[last : span.start])
            parts.append(" " * (span.end - span.start))
            last = span.end
        parts.append(self.text[last : within.end])
        return "".join(parts)

    # --- signatures ----------------------------------------------------------------

    def _signature(self, node: tree_sitter.Node) -> Signature:
        parameters: list[Parameter] = []
        keyword_only = False
        params_node = node.child_by_field_name("parameters")
        for child in params_node.named_children if params_node else ():
            kind = "keyword_only" if keyword_only else "regular"
            if child.type == "positional_separator":
                parameters = [
                    replace(p, kind="positional_only") if p.kind == "regular" else p
                    for p in parameters
                ]
                continue
            if child.type == "keyword_separator":
                keyword_only = True
                continue
            parameter = self._parameter(child, kind)
            if parameter is None:
                continue
            if parameter.kind == "var_positional":
                keyword_only = True
            parameters.append(parameter)
        returns = node.child_by_field_name("return_type")
        is_async = any(c.type == "async" for c in node.children)
        return Signature(
            parameters=tuple(parameters),
            returns=self._text(returns) if returns else None,
            returns_span=self._span(returns) if returns else None,
            is_async=is_async,
        )

    def _parameter(self, node: tree_sitter.Node, kind: str) -> Parameter | None:
        annotation = node.child_by_field_name("type")
        default = node.child_by_field_name("value")
        target = node.child_by_field_name("name")
        if target is None:
            target = next(
                (c for c in node.named_children if c.type != "type" and c is not default), None
            )
            if node.type in ("identifier", "list_splat_pattern", "dictionary_splat_pattern"):
                target = node
        if target is None:
            return None
        if target.type == "list_splat_pattern":
            kind = "var_positional"
        elif target.type == "dictionary_splat_pattern":
            kind = "var_keyword"
        name_node: tree_sitter.Node | None = target
        if target.type in ("list_splat_pattern", "dictionary_splat_pattern"):
            name_node = next((c for c in target.named_children if c.type == "identifier"), None)
        if name_node is None or name_node.type != "identifier":
            return None
        return Parameter(
            name=self._text(name_node),
            kind=kind,
            annotation=self._text(annotation) if annotation else None,
            default=self._text(default) if default else None,
            span=self._span(name_node),
        )

    # --- bodies --------------------------------------------------------------------

    def _with_body_facts(self, unit: Unit, node: tree_sitter.Node) -> Unit:
        statements = self.by_scope.get(node.id, {})
        returns = [n.named_children[0] for n in statements.get("return", ()) if n.named_children]
        bare = any(not n.named_children for n in statements.get("return", ()))
        raises = []
        reraises = False
        made = _made_by_calls(statements.get("call", ()), self._text)
        for raise_node in statements.get("raise", ()):
            exception = raise_node.named_children[0] if raise_node.named_children else None
            reraises = reraises or exception is None
            if exception is not None and exception.type == "call":
                exception = exception.child_by_field_name("function")
            if exception is not None and exception.type in ("identifier", "attribute"):
                # ``error = Invalid(...)`` then ``raise error from caught``: what it made.
                named = self._text(exception)
                raises += made.get(named, [named])
                # ``raise self.error``, ``raise exc``: a value, of a type the body does not say
                value = named.rpartition(".")[2][:1].islower() and named not in made
                reraises = reraises or (raise_node.named_children[0] is exception and value)
        return replace(
            unit,
            return_values=tuple(self._text(n) for n in returns),
            has_bare_return=bare,
            is_generator=bool(statements.get("yield")),
            raises=tuple(raises),
            reraises=reraises,
            calls=tuple(dict.fromkeys(self._text(n) for n in statements.get("call", ()))),
            **self._instance_attributes(unit, node),
        )

    def _instance_attributes(self, unit: Unit, node: tree_sitter.Node) -> dict:
        """The attributes a method writes and reads through its receiver (``self``)."""
        receiver = _receiver(unit)
        body = node.child_by_field_name("body")
        if receiver is None or body is None:
            return {}
        start, end = self.char_at[body.start_byte], self.char_at[body.end_byte]
        code = self.text[start:end]
        if unit.docstring is not None:  # its examples are not code
            literal = unit.docstring.literal
            code = (
                code[: literal.start - start]
                + " " * (literal.end - literal.start)
                + code[literal.end - start :]
            )
        writes: dict[str, int] = {}
        reads: dict[str, None] = {}
        for match in _ATTRIBUTE.finditer(code):
            if match["owner"] != receiver:
                continue
            if match["write"]:
                writes.setdefault(
                    match["name"], body.start_point[0] + code.count("\n", 0, match.start())
                )
            elif not match["call"]:
                reads[match["name"]] = None
        through = {
            match["name"]: None for match in _THROUGH.finditer(code) if match["owner"] == receiver
        }
        return {
            "attribute_writes": tuple(writes.items()),
            "attribute_reads": tuple(n for n in reads if n not in writes),
            "attributes_through": tuple(through),
        }

    def _with_names(self, unit: Unit, class_names: dict[str, frozenset[str]]) -> Unit:
        """Names used in the unit's own text, and in its class for methods."""
        local = self._names_in(unit.span)
        if unit.kind == "class":
            class_names[unit.qualname] = local
            return replace(unit, local_names=local, attributes=local)
        owner = unit.qualname.rpartition(".")[0]
        if unit.kind == "method" and owner in class_names:
            return replace(unit, local_names=local, attributes=class_names[owner])
        return replace(unit, local_names=local)

    def _names_in(self, span: Span) -> frozenset[str]:
        return frozenset(
            _IDENTIFIER.findall(
                self.masked, span.start - self.masked_start, span.end - self.masked_start
            )
        )

    def _imports(self, statements: Iterable[tree_sitter.Node]) -> list[tuple[str, str]]:
        """(local name, dotted target) of every import statement, at any depth."""
        found: list[tuple[str, str]] = []
        for node in statements:
            if node.type == "import_statement":
                for item in node.named_children:
                    dotted, alias = self._import_item(item)
                    found.append(
                        (alias, dotted) if alias else (dotted.split(".")[0], dotted.split(".")[0])
                    )
            elif node.type == "import_from_statement":
                module = node.child_by_field_name("module_name")
                prefix = self._text(module) if module is not None else ""
                for item in node.children_by_field_name("name"):
                    dotted, alias = self._import_item(item)
                    target = f"{prefix}.{dotted}" if not prefix.endswith(".") else prefix + dotted
                    found.append((alias or dotted, target))
                if any(child.type == "wildcard_import" for child in node.children):
                    found.append(("*", prefix))  # ``from x import *``: x's names, best effort
        return found

    def _import_item(self, item: tree_sitter.Node) -> tuple[str, str | None]:
        name = item.child_by_field_name("name") if item.type == "aliased_import" else None
        if name is None:
            return self._text(item), None
        alias = item.child_by_field_name("alias")
        return self._text(name), self._text(alias) if alias else None

    # --- helpers -------------------------------------------------------------------

    def _suppressions(self, node: tree_sitter.Node) -> frozenset[str]:
        """Codes silenced by ``# docfact: ignore[...]`` on the def/class line."""
        line_start = self.char_at[node.start_byte]
        line_start = self.text.rfind("\n", 0, line_start) + 1
        line_end = self.text.find("\n", line_start)
        line = self.text[line_start : line_end if line_end != -1 else len(self.text)]
        match = _SUPPRESSION.search(line)
        if match is None:
            return frozenset()
        if match.group(1) is None:
            return _SUPPRESS_ALL
        return frozenset(code.strip().upper() for code in match.group(1).split(",") if code.strip())

    def _span(self, node: tree_sitter.Node) -> Span:
        return Span(self.char_at[node.start_byte], self.char_at[node.end_byte])

    def _text(self, node: tree_sitter.Node) -> str:
        span = self._span(node)
        return self.text[span.start : span.end]


# ``owner.name``, and what follows it: an assignment (``=``, ``+=``, ``: int =``) or a call.
_ATTRIBUTE = re.compile(
    r"(?<![\w.])(?P<owner>[A-Za-z_]\w*)\.(?P<name>[A-Za-z_]\w*)\b"
    r"(?:(?P<write>\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)|\s*:\s*[\w.\[\], |'\"]+=(?!=))"
    r"|(?P<call>\s*\())?"
)


# ``self.credentials.decrypted_data``, not called: an attribute of an attribute's value.
_THROUGH = re.compile(
    r"(?<![\w.])(?P<owner>[A-Za-z_]\w*)\.[A-Za-z_]\w*\.(?P<name>[A-Za-z_]\w*)\b(?!\s*\()"
)


def _receiver(unit: Unit) -> str | None:
    """The name a method's instance goes by: its first parameter (not for static methods)."""
    if unit.kind != "method" or unit.signature is None or "staticmethod" in unit.decorators:
        return None
    first = next(iter(unit.signature.parameters), None)
    return (
        first.name if first is not None and first.kind in ("positional_only", "regular") else None
    )


def _decorators(outer: tree_sitter.Node, text_of: Callable[[tree_sitter.Node], str]) -> list[str]:
    if outer.type != "decorated_definition":
        return []
    return [text_of(d)[1:].strip() for d in outer.named_children if d.type == "decorator"]


def _docstring_statement(block: tree_sitter.Node) -> tree_sitter.Node | None:
    """The statement of a module or class body that is its docstring, if any."""
    first = next((c for c in block.named_children if c.type != "comment"), None)
    if first is None or first.type != "expression_statement" or first.named_child_count != 1:
        return None
    return first if first.named_children[0].type in ("string", "concatenated_string") else None


def _moved_unit(unit: Unit, delta: int, lines: int) -> Unit:
    """``unit`` with its offsets moved by ``delta`` characters and ``lines`` lines."""
    signature = unit.signature
    if signature is not None:
        signature = replace(
            signature,
            parameters=tuple(
                replace(p, span=_moved_span(p.span, delta)) for p in signature.parameters
            ),
            returns_span=signature.returns_span and _moved_span(signature.returns_span, delta),
        )
    docstring = unit.docstring
    if docstring is not None:
        docstring = replace(docstring, literal=_moved_span(docstring.literal, delta))
    return replace(
        unit,
        span=_moved_span(unit.span, delta),
        name_span=_moved_span(unit.name_span, delta),
        def_line=unit.def_line + lines,
        docstring=docstring,
        signature=signature,
        attribute_writes=tuple((name, at + lines) for name, at in unit.attribute_writes),
    )


def _moved_span(span: Span, delta: int) -> Span:
    return Span(span.start + delta, span.end + delta)


def _generic_origin(base: tree_sitter.Node) -> tree_sitter.Node:
    """A base as the class it names: ``Stream`` of ``Stream[T]``. Any other expression
    (``namedtuple(...)``, ``*mixins``) is kept whole: a base that cannot be resolved, so
    that the class may have any member."""
    value = base.child_by_field_name("value") if base.type == "subscript" else None
    return value if value is not None else base
