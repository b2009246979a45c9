"""The tree-sitter Java source model: units, signatures, body facts, Javadoc offsets."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docfact.source.java import javadoc_text, parse_module


def units(source):
    return {u.qualname: u for u in parse_module(source).units}


def assert_offsets_exact(source, docstring):
    """Every character of the value is the file character at its offset (line breaks
    map to the break, whatever it is)."""
    for index, char in enumerate(docstring.value):
        offset = docstring.file_offset(index)
        if char == "\n":
            assert source[offset] in "\r\n"
        else:
            assert source[offset] == char


SHOP = """\
package com.example.shop;

import java.util.List;
import static java.util.Objects.requireNonNull;
import java.io.*;

/** A box. @param <T> what it holds */
@SuppressWarnings("unchecked")
public final class Box<T extends Comparable<T>> extends Base implements Sized {
    private int count = 0, limit;

    /** Makes a box. */
    public Box(T first) throws java.io.IOException { this.first = first; }

    /**
     * Maps the box.
     */
    @Override
    public <U> List<U> map(final int times, String... names) // docfact: ignore[DF101]
            throws IOException, BoxException {
        if (times < 0) throw new IllegalArgumentException("negative");
        helper(times); this.check(); Util.log(); new ArrayList<>(); names.clone().hashCode();
        Runnable later = () -> { throw new IllegalStateException(); };
        return null;
    }

    /** Nothing to run. */
    abstract void run();

    /** Colors. */
    enum Color { RED, GREEN; /** Warmer. */ Color warmer() { return RED; } }

    /** A point. @param x across @param y down */
    record Point(int x, int y) { /** Checks. */ Point { if (x < 0) throw problem; } }

    interface Sized { /** Size. */ int size(); }
}
"""


def test_kinds_qualified_names_and_package():
    module = parse_module(SHOP)
    found = {u.qualname: u.kind for u in module.units}
    assert found == {
        "": "module",
        "Box": "class",
        "Box.Box": "method",
        "Box.map": "method",
        "Box.run": "method",
        "Box.Color": "class",
        "Box.Color.warmer": "method",
        "Box.Point": "class",
        "Box.Point.Point": "method",
        "Box.Sized": "class",
        "Box.Sized.size": "method",
    }
    assert module.package == "com.example.shop"
    assert ("List", "java.util.List") in module.imports
    assert ("requireNonNull", "java.util.Objects.requireNonNull") in module.imports
    assert ("*", "java.io") in module.imports  # a wildcard import
    assert {"File", "IOException"} <= module.imported_names  # the types of java.io
    assert "List" in module.imported_names


def test_signatures_generics_varargs_throws_and_constructors():
    found = units(SHOP)
    mapped = found["Box.map"].signature
    assert [(p.name, p.kind, p.annotation) for p in mapped.parameters] == [
        ("U", "type_parameter", None),
        ("times", "regular", "int"),
        ("names", "var_positional", "String..."),
    ]
    assert mapped.returns == "List<U>"
    assert SHOP[mapped.returns_span.start : mapped.returns_span.end] == "List<U>"
    assert mapped.throws == ("IOException", "BoxException")
    constructor = found["Box.Box"].signature
    assert constructor.returns == "void" and constructor.throws == ("java.io.IOException",)
    box = found["Box"]
    assert [(p.name, p.kind) for p in box.signature.parameters] == [("T", "type_parameter")]
    assert box.bases == ("Base", "Sized")
    assert box.decorators == ("SuppressWarnings",)
    assert found["Box.map"].decorators == ("Override",)


def test_records_have_components_as_parameters_and_fields():
    module = parse_module(SHOP)
    found = {u.qualname: u for u in module.units}
    assert [p.name for p in found["Box.Point"].signature.parameters] == ["x", "y"]
    assert [p.name for p in found["Box.Point.Point"].signature.parameters] == ["x", "y"]
    names = [name for name, _ in module.variables]
    assert {"Box.count", "Box.limit", "Box.Point.x", "Box.Color.RED"} <= set(names)


def test_documented_fields_and_enum_constants_are_units():
    source = """class Shop {
    /** The most, as {@code MAX}. */
    @Deprecated static final int LIMIT = MAX + 1, OTHER = 2;
    int plain;
    enum Color { /** Red. */ RED, GREEN, /** Blue. */ BLUE { int shade() { return 1; } } }
    interface Sized { /** None. */ int NONE = 0; }
}"""
    module = parse_module(source)
    fields = {u.qualname: u for u in module.units if u.kind == "field"}
    assert {q: u.docstring.value for q, u in fields.items()} == {
        "Shop.LIMIT": "The most, as {@code MAX}.",
        "Shop.Color.RED": "Red.",
        "Shop.Color.BLUE": "Blue.",
        "Shop.Sized.NONE": "None.",
    }
    limit = fields["Shop.LIMIT"]
    assert limit.signature is None and limit.decorators == ("Deprecated",)
    assert source[limit.name_span.start : limit.name_span.end] == "LIMIT"
    assert "MAX" in limit.local_names and "plain" in limit.attributes
    assert {"Shop.OTHER", "Shop.plain", "Shop.Color.GREEN"} <= {n for n, _ in module.variables}
    assert "most" not in module.defined_names  # the comment is not code


def test_package_info_documents_the_module():
    source = "/* License. */\n/**\n * The shop.\n */\n@Deprecated\npackage com.example.shop;\n"
    module = parse_module(source)
    [unit] = module.units
    assert unit.kind == "module" and unit.docstring.value == "The shop."
    assert source[unit.name_span.start : unit.name_span.end] == "com.example.shop"
    assert "shop" not in parse_module("/** The shop. */\npackage a;\n").defined_names
    assert parse_module("/** Header. */\npackage a;\nclass A {}\n").units[0].docstring is None


def test_markdown_comments_are_runs_of_triple_slash_lines():
    source = (
        "class A {\r\n    /// Old.\r\n\r\n"
        "    /// Sums `a`.\r\n    ///\r\n    ///   @param a the first\r\n"
        "    // a note\r\n    @Override\r\n    int f(int a) { return a; }\r\n"
        "    ////////////\r\n    void g() {}\r\n}\r\n"
    )
    found = units(source)
    docstring = found["A.f"].docstring
    assert docstring.markdown and docstring.value == "Sums `a`.\n\n@param a the first"
    assert_offsets_exact(source, docstring)
    assert source[found["A.f"].span.start :].startswith(
        "/// Sums"
    )  # the comment before the blank line is not it
    assert found["A.g"].docstring is None  # a line of slashes is no comment
    assert not units("class A { /** Doc. */ void f() {} }")["A.f"].docstring.markdown


def test_body_facts():
    found = units(SHOP)
    mapped = found["Box.map"]
    assert mapped.raises == ("IllegalArgumentException",)  # not the lambda's
    assert not mapped.reraises
    assert mapped.calls == (
        "helper",
        "this.check",
        "Util.log",
        "ArrayList.ArrayList",
        "?.hashCode",
        "names.clone",
    )
    assert mapped.return_values == ("null",)
    assert mapped.suppressed == frozenset({"DF101"})
    assert found["Box.run"].reraises  # no body: implementations decide
    assert found["Box.Point.Point"].reraises  # throws a value it did not create
    assert found["Box.Sized.size"].reraises
    assert {"times", "helper"} <= mapped.local_names
    assert "count" in mapped.attributes  # fields of the enclosing class


def test_javadoc_found_before_annotations_and_between_other_comments():
    found = units(SHOP)
    assert found["Box"].docstring.value == "A box. @param <T> what it holds"
    assert found["Box.map"].docstring.value == "Maps the box."
    assert found["Box.Color.warmer"].docstring.value == "Warmer."
    assert (
        units("class A {\n/** Doc. */\n// note\n/* more */\nvoid f() {}\n}")["A.f"].docstring.value
        == "Doc."
    )
    assert units("class A {\n/* not javadoc */\nvoid f() {}\n}")["A.f"].docstring is None
    assert units("class A { /** For x. */ int x; void f() {} }")["A.f"].docstring is None
    # The unit's span covers its comment, so editing the comment re-checks the unit.
    unit = found["Box.map"]
    assert SHOP[unit.span.start :].startswith("/**")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_javadoc_value_offsets_through_stars_and_line_breaks(newline):
    source = newline.join(
        [
            "class A {",
            "    /**",
            "     * Summary line.",
            "     *",
            "     *   indented {@code x}",
            "     ** two stars",
            "     */",
            "    void f() {}",
            "}",
        ]
    )
    doc = units(source)["A.f"].docstring
    assert doc.value == "Summary line.\n\n  indented {@code x}\ntwo stars"
    assert_offsets_exact(source, doc)
    start = doc.value.index("indented")
    span = doc.span_of(start, start + len("indented"))
    assert source[span.start : span.end] == "indented"


def test_javadoc_offsets_with_tabs_and_unicode():
    source = "class A {\n\t/**\n\t * Größe in µm — 𝔘nicode.\n\t *\tTabbed.\n\t */\n\tvoid f() {}\n}"
    doc = units(source)["A.f"].docstring
    assert doc.value == "Größe in µm — 𝔘nicode.\nTabbed."
    assert_offsets_exact(source, doc)
    start = doc.value.index("𝔘nicode")
    span = doc.span_of(start, start + len("𝔘nicode"))
    assert source[span.start : span.end] == "𝔘nicode"
    assert units(source)["A.f"].name_span.start == source.index("f()")


def test_one_line_and_unterminated_comments():
    assert javadoc_text("/** One. */", 0, 11).value == "One."
    assert javadoc_text("/***/", 0, 5).value == ""
    source = "/** Open"
    assert javadoc_text(source, 0, len(source)).value == "Open"


def test_broken_java_still_yields_what_parses():
    source = (
        "package p;\n"
        "class A {\n"
        "    /** Fine. @param x a value */\n"
        "    void good(int x) { }\n"
        "    void broken() { int y = ; call(; }\n"
        "    /** Also fine. */\n"
        "    int later() { return 1; }\n"
    )  # and no closing brace
    module = parse_module(source)
    found = {u.qualname: u for u in module.units}
    assert module.has_errors
    assert found["A.good"].docstring.value == "Fine. @param x a value"
    assert "A.later" in found and found["A.later"].docstring.value == "Also fine."


def test_nested_and_anonymous_classes():
    found = units(
        "class Outer {\n"
        "  /** In. */ static class Inner { /** Deep. */ void deep() { new Runnable() {"
        " public void run() { throw new IllegalStateException(); } }; } }\n"
        "}\n"
    )
    assert found["Outer.Inner.deep"].docstring.value == "Deep."
    assert found["Outer.Inner.deep"].raises == ()  # the anonymous class's method throws
    assert "Outer.Inner.deep.run" not in found
    assert found["Outer.Inner.deep"].calls == ("Runnable.Runnable",)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/"),
            max_size=20,
        ),
        max_size=6,
    ),
    margins=st.lists(
        st.sampled_from(["", " ", "\t", "   * ", " ** ", "*"]), min_size=6, max_size=6
    ),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_javadoc_offsets_property(lines, margins, newline):
    body = newline.join(margin + line for margin, line in zip(margins, lines))
    source = f"class A {{{newline}/**{body}*/{newline}void f() {{}}{newline}}}"
    doc = units(source)["A.f"].docstring
    assert doc is not None
    assert_offsets_exact(source, doc)
