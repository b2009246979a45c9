"""Python source model: tree-sitter parse of one file into documented Units."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

import tree_sitter
import tree_sitter_python

from ..model import DocstringText, Module, Parameter, Signature, Span, Unit
from .literal import clean, decode_literal
from .syntax import byte_to_char_map, statements_by_scope

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_SUPPRESSION = re.compile(r"#\s*docfact:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
_DEFINITIONS = ("function_definition", "class_definition")
_SUPPRESS_ALL = frozenset({"*"})
# Statements whose blocks may hold definitions (expressions never do, lambdas aside).
_COMPOUND = frozenset({
    "block", "if_statement", "elif_clause", "else_clause", "for_statement", "while_statement",
    "try_statement", "except_clause", "except_group_clause", "finally_clause", "with_statement",
    "match_statement", "case_clause",
})


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))


_STATEMENTS = ("return", "yield", "raise", "call")


@lru_cache(maxsize=1)
def _query() -> tree_sitter.Query:
    """One pass over the tree for scopes, the statements they own, and imports."""
    language = tree_sitter.Language(tree_sitter_python.language())
    return tree_sitter.Query(language, """
        (function_definition) @function
        (class_definition) @class
        (lambda) @lambda
        (return_statement) @return
        (yield) @yield
        (raise_statement) @raise
        (call function: [(identifier) (attribute)] @call)
        (import_statement) @import
        (import_from_statement) @import
    """)


def parse_module(text: str) -> Module:
    """Every documentable unit of ``text``, which may contain syntax errors."""
    data = text.encode("utf-8", "surrogatepass")
    tree = _parser().parse(data)
    return _Extractor(text, data, tree).module()


class _Extractor:
    def __init__(self, text: str, data: bytes, tree: tree_sitter.Tree):
        self.text = text
        self.tree = tree
        self.char_at = byte_to_char_map(text, data)
        self.units: list[Unit] = []
        self.variables: list[tuple[str, int]] = []
        self.docstring_spans: list[Span] = []
        self.captures = tree_sitter.QueryCursor(_query()).captures(tree.root_node)
        self.by_scope = statements_by_scope(self.captures, ("function", "class", "lambda"), _STATEMENTS)

    def module(self) -> Module:
        root = self.tree.root_node
        docstring = self._docstring(root)
        self._walk(root, prefix="", class_names=None)
        masked = self._masked_text()
        self.masked = masked
        module_names = frozenset(_IDENTIFIER.findall(masked))
        imports = self._imports(self.captures.get("import", ()))
        module_unit = Unit(
            kind="module",
            name="",
            qualname="",
            span=Span(0, len(self.text)),
            name_span=Span(0, 0),
            def_line=0,
            docstring=docstring,
            local_names=module_names,
        )
        class_names: dict[str, frozenset[str]] = {}
        units = [module_unit] + [self._with_names(unit, class_names) for unit in self.units]
        return Module(
            units=tuple(units),
            defined_names=module_names,
            imported_names=frozenset(local for local, _ in imports),
            imports=tuple(sorted(set(imports))),
            variables=tuple(self.variables),
            has_errors=root.has_error,
        )

    # --- walking -------------------------------------------------------------------

    def _walk(self, node: tree_sitter.Node, prefix: str, class_names: frozenset | None) -> None:
        for child in node.named_children:
            definition = child
            decorators: list[str] = []
            if child.type == "decorated_definition":
                definition = child.child_by_field_name("definition")
                decorators = [
                    self._text(d)[1:].strip() for d in child.named_children if d.type == "decorator"
                ]
            if definition is None:
                continue
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
        targets = [left] if left is not None and left.type == "identifier" else [
            n for n in (left.named_children if left is not None else ()) if n.type == "identifier"]
        for target in targets:
            self.variables.append((prefix + self._text(target), target.start_point[0]))

    def _definition(self, outer, node, decorators, prefix, class_names) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        parameters = node.child_by_field_name("parameters")
        if name_node is None or body is None or (parameters is not None and parameters.has_error):
            return  # a half-typed signature may have swallowed the definitions after it
        name = self._text(name_node)
        qualname = f"{prefix}{name}"
        is_class = node.type == "class_definition"
        kind = "class" if is_class else ("method" if class_names is not None else "function")
        unit = Unit(
            kind=kind,
            name=name,
            qualname=qualname,
            span=self._span(outer),
            name_span=self._span(name_node),
            def_line=node.start_point[0],
            docstring=self._docstring(body),
            signature=None if is_class else self._signature(node),
            decorators=tuple(decorators),
            suppressed=self._suppressions(node),
        )
        if is_class:
            superclasses = node.child_by_field_name("superclasses")
            bases = [self._text(b) for b in superclasses.named_children
                     if b.type in ("identifier", "attribute")] if superclasses else []
            unit = replace(unit, bases=tuple(bases))
        else:
            unit = self._with_body_facts(unit, node)
        self.units.append(unit)
        self._walk(body, qualname + ".", frozenset() if is_class else None)

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
        span = self._span(literal)
        self.docstring_spans.append(span)
        return clean("".join(value_parts), offsets, span)

    def _masked_text(self) -> str:
        """The file with docstrings blanked (same length, so offsets stay true), so names
        they mention don't count as code."""
        if not self.docstring_spans:
            return self.text
        parts, last = [], 0
        for span in sorted(self.docstring_spans, key=lambda s: s.start):
            parts.append(self.text[last : span.start])
            parts.append(" " * (span.end - span.start))
            last = span.end
        parts.append(self.text[last:])
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
        name_node = target
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
        for raise_node in statements.get("raise", ()):
            exception = raise_node.named_children[0] if raise_node.named_children else None
            reraises = reraises or exception is None
            if exception is not None and exception.type == "call":
                exception = exception.child_by_field_name("function")
            if exception is not None and exception.type in ("identifier", "attribute"):
                raises.append(self._text(exception))
        return replace(
            unit,
            return_values=tuple(self._text(n) for n in returns),
            has_bare_return=bare,
            is_generator=bool(statements.get("yield")),
            raises=tuple(raises),
            reraises=reraises,
            calls=tuple(dict.fromkeys(self._text(n) for n in statements.get("call", ()))),
        )

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
        return frozenset(_IDENTIFIER.findall(self.masked, span.start, span.end))

    def _imports(self, statements) -> list[tuple[str, str]]:
        """(local name, dotted target) of every import statement, at any depth."""
        found: list[tuple[str, str]] = []
        for node in statements:
            if node.type == "import_statement":
                for item in node.named_children:
                    dotted, alias = self._import_item(item)
                    found.append((alias, dotted) if alias else (dotted.split(".")[0], dotted.split(".")[0]))
            elif node.type == "import_from_statement":
                module = node.child_by_field_name("module_name")
                prefix = self._text(module) if module is not None else ""
                for item in node.children_by_field_name("name"):
                    dotted, alias = self._import_item(item)
                    target = f"{prefix}.{dotted}" if not prefix.endswith(".") else prefix + dotted
                    found.append((alias or dotted, target))
        return found

    def _import_item(self, item: tree_sitter.Node) -> tuple[str, str | None]:
        if item.type == "aliased_import":
            name = item.child_by_field_name("name")
            alias = item.child_by_field_name("alias")
            return self._text(name), self._text(alias) if alias else None
        return self._text(item), None

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
