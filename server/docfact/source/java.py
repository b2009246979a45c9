"""Java source model: tree-sitter parse of one file into documented Units.

The same Module/Unit model as the Python side, with these readings of Java:

* classes, interfaces, enums, records and annotation types are units of kind "class";
  methods, constructors (named like their class) and annotation elements are "method";
  a field or enum constant with a Javadoc comment is a "field" (it has no Signature).
* A class's Signature holds its type parameters (kind "type_parameter", documented as
  ``@param <T>``) and, for a record, its components (documented as ``@param x``).
* A method's Signature: type parameters first, then the formal parameters with their
  declared types as annotations (``String...`` is "var_positional"); ``returns`` is the
  declared return type; a constructor returns "void": no caller receives a value from
  it that its ``@return`` could describe. ``throws`` is the throws clause as written.
* ``raises``: the types of ``throw new X(...)``; ``reraises``: the method may throw
  what it did not create, because it rethrows a value (``throw e``) or has no body
  (abstract, interface, native), so its implementations decide.
* ``calls``: ``name``, ``Type.name`` and ``this.name`` as written; ``?.name`` on any
  other receiver; ``new Foo(...)`` is a call of Foo's constructor, ``Foo.Foo``;
  ``this(...)`` is ``this.Foo`` and ``super(...)`` the superclass's ``Base.Base``.
* Annotations are the unit's ``decorators`` (without the ``@``).
* ``Module.package`` is the declared package, which is the module name of every symbol;
  the module unit of a file that declares nothing else (package-info.java) is
  documented by the comment before its package declaration.
* ``Module.imports``: (simple name, target) of single-type and static imports, ("*",
  package or class) of wildcard imports; ``imported_names`` holds the public types a
  wildcard import of a JDK package brings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache

import tree_sitter
import tree_sitter_java

from ..model import DocstringText, Module, Parameter, Signature, Span, Unit
from . import jdk
from .literal import clean
from .syntax import byte_to_char_map, statements_by_scope

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
_SUPPRESSION = re.compile(r"//\s*docfact:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_MARKDOWN_LINE = re.compile(r"///(?!/)")  # a line of slashes is a separator
_TYPES = frozenset(
    {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
    }
)
_METHODS = frozenset(
    {
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
        "annotation_type_element_declaration",
    }
)
_BODIES = frozenset(
    {
        "class_body",
        "interface_body",
        "enum_body",
        "enum_body_declarations",
        "annotation_type_body",
    }
)
_STATEMENTS = ("return", "throw", "call", "new")


@lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_java.language())


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(_language())


@lru_cache(maxsize=1)
def _query() -> tree_sitter.Query:
    """One pass over the tree: the scopes that own statements, and the statements."""
    return tree_sitter.Query(
        _language(),
        """
        (method_declaration) @function
        (constructor_declaration) @function
        (compact_constructor_declaration) @function
        (class_body) @class
        (lambda_expression) @lambda
        (return_statement) @return
        (throw_statement) @throw
        (method_invocation) @call
        (object_creation_expression) @new
        (explicit_constructor_invocation) @new
    """,
    )


def parse_module(text: str) -> Module:
    """Every documentable unit of the Java source ``text``, which may not compile."""
    data = text.encode("utf-8", "surrogatepass")
    return _Extractor(text, data, _parser().parse(data)).module()


def javadoc_text(text: str, start: int, end: int) -> DocstringText:
    """The value of the comment text[start:end] (``/** ... */``): the delimiters,
    each line's leading whitespace and stars and trailing blanks removed, then the
    common margin, as
    ``inspect.cleandoc`` would. Every character keeps its offset in ``text``."""
    body_end = end - 2 if text.startswith("*/", end - 2) and end - 2 >= start + 3 else end
    chars: list[str] = []
    offsets: list[int] = []
    line_start = start + 3
    for number, line_end in enumerate(_line_ends(text, line_start, body_end)):
        if number:
            chars.append("\n")
            offsets.append(line_start)
            line_start = _after_break(text, line_start)
            while line_start < line_end and text[line_start] in " \t\f":
                line_start += 1
        while line_start < line_end and text[line_start] == "*":
            line_start += 1
        kept_end = line_end  # trailing blanks (before "*/", mostly) are not the value's
        while kept_end > line_start and text[kept_end - 1] in " \t\f":
            kept_end -= 1
        chars.append(text[line_start:kept_end])
        offsets.extend(range(line_start, kept_end))
        line_start = line_end
    return clean("".join(chars), offsets, Span(start, end))


def markdown_comment_text(text: str, lines: list[Span]) -> DocstringText:
    """The value of a Markdown documentation comment (JEP 467), the ``///`` line comments
    at ``lines``: each line without its slashes and trailing blanks, then the common
    margin, as ``inspect.cleandoc`` would (as for ``/** */``). Every character keeps its
    offset in ``text``."""
    chars: list[str] = []
    offsets: list[int] = []
    for number, line in enumerate(lines):
        if number:
            chars.append("\n")
            offsets.append(lines[number - 1].end)
        start, end = line.start + 3, line.end
        while end > start and text[end - 1] in " \t\f\r":
            end -= 1
        chars.append(text[start:end])
        offsets.extend(range(start, end))
    value = clean("".join(chars), offsets, Span(lines[0].start, lines[-1].end))
    return replace(value, markdown=True)


def _line_ends(text: str, start: int, end: int) -> Iterator[int]:
    """Offset of each line's end (its break, or ``end`` for the last line)."""
    for match in _LINE_BREAK.finditer(text, start, end):
        yield match.start()
    yield end


def _after_break(text: str, at: int) -> int:
    return at + 2 if text.startswith("\r\n", at) else at + 1


class _Extractor:
    def __init__(self, text: str, data: bytes, tree: tree_sitter.Tree):
        self.text = text
        self.tree = tree
        self.char_at = byte_to_char_map(text, data)
        self.units: list[Unit] = []
        self.variables: list[tuple[str, int]] = []
        self.comment_spans: list[Span] = []
        captures = tree_sitter.QueryCursor(_query()).captures(tree.root_node)
        self.by_scope = statements_by_scope(captures, ("function", "class", "lambda"), _STATEMENTS)

    def module(self) -> Module:
        root = self.tree.root_node
        package, imports, declaration, name = "", [], None, None
        for child in root.named_children:
            if child.type == "package_declaration":
                declaration = child
                name = next(
                    (
                        c
                        for c in child.named_children
                        if c.type in ("identifier", "scoped_identifier")
                    ),
                    None,
                )
                package = self._text(name) if name is not None else ""
            elif child.type == "import_declaration":
                imports += self._import(child)
        self._members(root, prefix="")
        # The package's own comment is that of a file declaring nothing else
        # (package-info.java): elsewhere a comment before `package` is a file header.
        docstring = None
        if declaration is not None and name is not None and not self.units:
            docstring = self._javadoc(declaration)
        self.masked = self._masked_text()
        names = frozenset(_IDENTIFIER.findall(self.masked))
        module_unit = Unit(
            kind="module",
            name="",
            qualname="",
            span=Span(0, len(self.text)),
            name_span=Span(0, 0),
            def_line=0,
            docstring=docstring,
            local_names=names,
        )
        # Placed like a declaration's: suppressed on the package line.
        if docstring is not None and name is not None:
            module_unit = replace(
                module_unit,
                name_span=self._span(name),
                def_line=name.start_point[0],
                suppressed=self._suppressions(name),
            )
        class_names: dict[str, frozenset[str]] = {}
        units = [module_unit] + [self._with_names(unit, class_names) for unit in self.units]
        return Module(
            units=tuple(units),
            defined_names=names,
            imported_names=_imported_names(imports),
            imports=tuple(sorted(set(imports))),
            variables=tuple(self.variables),
            has_errors=root.has_error,
            package=package,
        )

    def _import(self, node: tree_sitter.Node) -> list[tuple[str, str]]:
        """(simple name, dotted target) of a single-type or static import; ("*", package
        or class) of a wildcard import."""
        target = next(
            (c for c in node.named_children if c.type in ("identifier", "scoped_identifier")), None
        )
        if target is None:
            return []
        dotted = self._text(target)
        if any(c.type == "asterisk" for c in node.named_children):
            return [("*", dotted)]
        return [(dotted.rpartition(".")[2], dotted)]

    # --- declarations --------------------------------------------------------------

    def _members(self, node: tree_sitter.Node, prefix: str, owner: str | None = None) -> None:
        for child in node.named_children:
            if child.type in _TYPES:
                self._type(child, prefix)
            elif child.type in _METHODS and owner is not None:
                self._method(child, prefix, owner)
            elif child.type in ("field_declaration", "constant_declaration"):
                names = [
                    d.child_by_field_name("name")
                    for d in child.children_by_field_name("declarator")
                ]
                self._field(child, prefix, [n for n in names if n is not None])
            elif child.type == "enum_constant":
                name = child.child_by_field_name("name")
                self._field(child, prefix, [name] if name is not None else [])
            elif child.type in _BODIES:
                self._members(child, prefix, owner)
            elif child.type == "ERROR":
                self._members(child, prefix, owner)  # what parses inside broken code still counts

    def _type(self, node: tree_sitter.Node, prefix: str) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None:
            return
        name = self._text(name_node)
        qualname = prefix + name
        parameters = self._type_parameters(node)
        if node.type == "record_declaration":  # its components are fields, too
            components = self._formal_parameters(node.child_by_field_name("parameters"))
            parameters += components
            self.variables += [(f"{qualname}.{p.name}", self._line(p.span)) for p in components]
        unit = self._unit(node, "class", name, qualname, name_node)
        self.units.append(
            replace(
                unit,
                signature=Signature(tuple(parameters), None, None),
                bases=tuple(self._bases(node)),
            )
        )
        if body is not None:
            self._members(body, qualname + ".", owner=name)

    def _field(self, node: tree_sitter.Node, prefix: str, names: list[tree_sitter.Node]) -> None:
        """Each name declared is a variable; with a Javadoc comment, the declaration is a
        unit too, named by its first variable (``int a, b;`` shares one comment)."""
        self.variables += [(prefix + self._text(name), name.start_point[0]) for name in names]
        if not names:
            return
        name = self._text(names[0])
        unit = self._unit(node, "field", name, prefix + name, names[0])
        if unit.docstring is not None:
            self.units.append(unit)

    def _method(self, node: tree_sitter.Node, prefix: str, owner: str) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = self._text(name_node)
        returns = node.child_by_field_name("type")
        returns_text: str | None
        returns_span: Span | None
        if node.type in ("constructor_declaration", "compact_constructor_declaration"):
            returns_text, returns_span = "void", self._span(name_node)
        else:
            returns_text = self._text(returns) if returns is not None else None
            returns_span = self._span(returns) if returns is not None else None
        parameters = self._type_parameters(node) + self._formal_parameters(
            node.child_by_field_name("parameters")
        )
        if node.type == "compact_constructor_declaration":  # its parameters are the record's
            record = node.parent.parent if node.parent is not None else None
            if record is not None and record.type == "record_declaration":
                parameters = self._formal_parameters(record.child_by_field_name("parameters"))
        throws = next((c for c in node.named_children if c.type == "throws"), None)
        signature = Signature(
            parameters=tuple(parameters),
            returns=returns_text,
            returns_span=returns_span,
            throws=tuple(self._text(t) for t in throws.named_children) if throws else (),
        )
        unit = replace(
            self._unit(node, "method", name, prefix + name, name_node), signature=signature
        )
        self.units.append(self._with_body_facts(unit, node))

    def _unit(
        self,
        node: tree_sitter.Node,
        kind: str,
        name: str,
        qualname: str,
        name_node: tree_sitter.Node,
    ) -> Unit:
        comment = self._javadoc(node)
        start = comment.literal.start if comment is not None else None
        return Unit(
            kind=kind,
            name=name,
            qualname=qualname,
            span=Span(
                start if start is not None else self.char_at[node.start_byte],
                self.char_at[node.end_byte],
            ),
            name_span=self._span(name_node),
            def_line=name_node.start_point[0],
            docstring=comment,
            decorators=tuple(self._annotations(node)),
            suppressed=self._suppressions(name_node),
        )

    def _javadoc(self, node: tree_sitter.Node) -> DocstringText | None:
        """The documentation comment nearest before the declaration (other comments may
        come between): a ``/** */`` comment, or a run of ``///`` lines (Markdown)."""
        sibling = node.prev_sibling
        while sibling is not None and sibling.type in ("line_comment", "block_comment"):
            text = self._text(sibling)
            if sibling.type == "block_comment" and text.startswith("/**") and text != "/**/":
                span = self._span(sibling)
                self.comment_spans.append(span)
                return javadoc_text(self.text, span.start, span.end)
            if sibling.type == "line_comment" and _MARKDOWN_LINE.match(text):
                lines = [self._span(line) for line in self._markdown_run(sibling)]
                self.comment_spans.append(Span(lines[0].start, lines[-1].end))
                return markdown_comment_text(self.text, lines)
            sibling = sibling.prev_sibling
        return None

    def _markdown_run(self, last: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The ``///`` lines on consecutive lines that end with ``last``, in order (a line
        without ``///`` ends a Markdown comment)."""
        run = [last]
        previous = last.prev_sibling
        while (
            previous is not None
            and previous.type == "line_comment"
            and previous.end_point[0] == run[-1].start_point[0] - 1
            and _MARKDOWN_LINE.match(self._text(previous))
        ):
            run.append(previous)
            previous = previous.prev_sibling
        return run[::-1]

    def _annotations(self, node: tree_sitter.Node) -> list[str]:
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        found = []
        for child in modifiers.named_children if modifiers is not None else ():
            if child.type in ("marker_annotation", "annotation"):
                name = child.child_by_field_name("name")
                if name is not None:
                    found.append(self._text(name))
        return found

    def _bases(self, node: tree_sitter.Node) -> list[str]:
        """Superclass and interfaces, as written, type arguments left out."""
        found = []
        for child in node.named_children:
            if child.type in ("superclass", "super_interfaces", "extends_interfaces"):
                for type_node in _descendants(
                    child, ("type_identifier", "scoped_type_identifier", "generic_type")
                ):
                    found.append(self._type_name(type_node))
        return found

    # --- signatures ----------------------------------------------------------------

    def _type_parameters(self, node: tree_sitter.Node) -> list[Parameter]:
        holder = node.child_by_field_name("type_parameters")
        found = []
        for child in holder.named_children if holder is not None else ():
            name = next(
                (c for c in child.named_children if c.type in ("type_identifier", "identifier")),
                None,
            )
            if child.type == "type_parameter" and name is not None:
                bound = next((c for c in child.named_children if c.type == "type_bound"), None)
                found.append(
                    Parameter(
                        self._text(name),
                        "type_parameter",
                        self._text(bound) if bound is not None else None,
                        None,
                        self._span(name),
                    )
                )
        return found

    def _formal_parameters(self, holder: tree_sitter.Node | None) -> list[Parameter]:
        found = []
        for child in holder.named_children if holder is not None else ():
            if child.type == "formal_parameter":
                name, type_node, kind = (
                    child.child_by_field_name("name"),
                    child.child_by_field_name("type"),
                    "regular",
                )
            elif child.type == "spread_parameter":
                declarator = next(
                    (c for c in child.named_children if c.type == "variable_declarator"), None
                )
                name = declarator.child_by_field_name("name") if declarator is not None else None
                type_node = next(
                    (
                        c
                        for c in child.named_children
                        if c.type not in ("modifiers", "variable_declarator")
                    ),
                    None,
                )
                kind = "var_positional"
            else:
                continue
            if name is None:
                continue
            annotation = self._text(type_node) if type_node is not None else None
            if kind == "var_positional" and annotation is not None:
                annotation += "..."
            found.append(Parameter(self._text(name), kind, annotation, None, self._span(name)))
        return found

    # --- bodies --------------------------------------------------------------------

    def _with_body_facts(self, unit: Unit, node: tree_sitter.Node) -> Unit:
        statements = self.by_scope.get(node.id, {})
        body = node.child_by_field_name("body")
        raises, rethrows, thrown_objects = [], body is None, set()
        for throw in statements.get("throw", ()):
            value = throw.named_children[0] if throw.named_children else None
            if value is not None and value.type == "object_creation_expression":
                thrown_objects.add(value.id)
                raises.append(self._type_name(value.child_by_field_name("type")))
            else:
                rethrows = True
        calls = []
        for call in sorted(
            [*statements.get("call", ()), *statements.get("new", ())], key=lambda n: n.start_byte
        ):
            if call.type == "method_invocation":
                calls.append(self._call_name(call))
            elif call.type == "explicit_constructor_invocation":
                calls.append(self._constructor_call(call, unit))
            elif call.id not in thrown_objects:
                type_name = self._type_name(call.child_by_field_name("type"))
                calls.append(f"{type_name}.{type_name.rpartition('.')[2]}")
        returns = [n.named_children[0] for n in statements.get("return", ()) if n.named_children]
        return replace(
            unit,
            return_values=tuple(self._text(n) for n in returns),
            has_bare_return=any(not n.named_children for n in statements.get("return", ())),
            raises=tuple(r for r in raises if r),
            reraises=rethrows,
            calls=tuple(dict.fromkeys(c for c in calls if c)),
        )

    def _call_name(self, node: tree_sitter.Node) -> str:
        name = node.child_by_field_name("name")
        receiver = node.child_by_field_name("object")
        if name is None:
            return ""
        if receiver is None:
            return self._text(name)
        written = self._text(receiver)
        prefix = (
            written
            if receiver.type in ("identifier", "field_access", "this")
            and _DOTTED.fullmatch(written)
            else "?"
        )
        return f"{prefix}.{self._text(name)}"

    def _constructor_call(self, node: tree_sitter.Node, unit: Unit) -> str:
        """``this(...)``: another constructor of the class; ``super(...)``: the superclass's
        (nothing to call when the class extends nothing but Object)."""
        owner = unit.qualname.rpartition(".")[0]
        if node.children[0].type == "this":
            return f"this.{owner.rpartition('.')[2]}"
        enclosing = node.parent
        while enclosing is not None and enclosing.type not in _TYPES:
            enclosing = enclosing.parent
        superclass = enclosing.child_by_field_name("superclass") if enclosing is not None else None
        if superclass is None:
            return ""
        base = self._type_name(superclass.named_children[0]) if superclass.named_children else ""
        return f"{base}.{base.rpartition('.')[2]}" if base else "?.super"

    def _type_name(self, node: tree_sitter.Node | None) -> str:
        """``Foo`` of ``Foo``, ``Foo<T>`` or ``a.b.Foo`` (dotted as written)."""
        if node is None:
            return ""
        if node.type == "generic_type":
            node = next((c for c in node.named_children if c.type != "type_arguments"), node)
        written = re.sub(r"\s+", "", self._text(node))
        return written if _DOTTED.fullmatch(written) else ""

    def _with_names(self, unit: Unit, class_names: dict[str, frozenset[str]]) -> Unit:
        """Names used in the unit's own text, and in its class for methods and fields."""
        local = frozenset(_IDENTIFIER.findall(self.masked, unit.span.start, unit.span.end))
        if unit.kind == "class":
            class_names[unit.qualname] = local
            return replace(unit, local_names=local, attributes=local)
        owner = unit.qualname.rpartition(".")[0]
        return replace(unit, local_names=local, attributes=class_names.get(owner, frozenset()))

    # --- helpers -------------------------------------------------------------------

    def _masked_text(self) -> str:
        """The file with Javadoc comments blanked (same length), so that names they
        mention don't count as code."""
        parts, last = [], 0
        for span in sorted(self.comment_spans, key=lambda s: s.start):
            parts += [self.text[last : span.start], " " * (span.end - span.start)]
            last = span.end
        parts.append(self.text[last:])
        return "".join(parts)

    def _suppressions(self, name_node: tree_sitter.Node) -> frozenset[str]:
        """Codes silenced by ``// docfact: ignore[...]`` on the declaration's name line."""
        at = self.char_at[name_node.start_byte]
        line_start = max(self.text.rfind("\n", 0, at), self.text.rfind("\r", 0, at)) + 1
        match = _LINE_BREAK.search(self.text, at)
        line = self.text[line_start : match.start() if match else len(self.text)]
        found = _SUPPRESSION.search(line)
        if found is None:
            return frozenset()
        if found.group(1) is None:
            return frozenset({"*"})
        return frozenset(code.strip().upper() for code in found.group(1).split(",") if code.strip())

    def _line(self, span: Span) -> int:
        return self.text.count("\n", 0, span.start)

    def _span(self, node: tree_sitter.Node) -> Span:
        return Span(self.char_at[node.start_byte], self.char_at[node.end_byte])

    def _text(self, node: tree_sitter.Node) -> str:
        span = self._span(node)
        return self.text[span.start : span.end]


def _imported_names(imports: list[tuple[str, str]]) -> frozenset[str]:
    """The names the imports bind: a wildcard import of a JDK package binds its public
    types; one of any other package or class binds names only the project can tell."""
    names = {local for local, _ in imports if local != "*"}
    for local, target in imports:
        if local == "*":
            names |= jdk.package_types(target) or frozenset()
    return frozenset(names)


def _descendants(node: tree_sitter.Node, types: tuple[str, ...]) -> Iterator[tree_sitter.Node]:
    """The outermost descendants of ``node`` whose type is one of ``types``."""
    for child in node.named_children:
        if child.type in types:
            yield child
        else:
            yield from _descendants(child, types)
