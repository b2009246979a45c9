"""Javadoc comments into the Docstring model: summary, prose, entries, inline tags."""

from docfact.model import DocstringText, Span
from docfact.source.javadoc import parse_javadoc
from docfact.source.segment import segments


def parse(value, markdown=False):
    return parse_javadoc(
        DocstringText(value, tuple(range(len(value))), Span(0, len(value)), markdown=markdown)
    )


def exact(doc):
    """Every Field of the docstring is a slice of its value."""
    value = doc.text.value
    fields = [doc.summary, *doc.prose, *doc.code_blocks]
    fields += [f for e in doc.entries for f in (e.name, e.type, e.description)]
    fields += [f for t in doc.inline for f in (t.whole, t.body)]
    for field in fields:
        if field is not None:
            assert value[field.start : field.end] == field.text
    return True


DOC = """Returns the element at a position. Negative positions count
from the end.
<p>
For example {@code get(-1)} is the last one; see {@link java.util.List#get(int) get}
and <code>size()</code>.
<pre>
   @Override
   int x = get(0);
</pre>
After the example, &lt;T&gt; stays as written.

@param index the position, {@code 0} first
@param <T> the element type
@return the element
@throws IndexOutOfBoundsException if {@code index} is too large
@exception java.io.IOException never, in fact
@see #set(int, Object)
@since 1.2
@deprecated Use {@link #at(int)} instead. It is faster."""


def test_summary_prose_and_code():
    doc = parse(DOC)
    assert doc.style == "javadoc"
    assert exact(doc)
    assert doc.summary.text == "Returns the element at a position."
    texts = [p.text for p in doc.prose]
    assert texts[0] == doc.summary.text
    assert texts[1] == "Negative positions count\nfrom the end."
    assert texts[2].startswith("For example {@code get(-1)}")
    assert texts[3] == "After the example, &lt;T&gt; stays as written."
    assert texts[-1] == "Use {@link #at(int)} instead. It is faster."  # @deprecated is prose
    assert [c.text.split("\n")[0] for c in doc.code_blocks] == ["<pre>"]
    assert all("@Override" not in p.text for p in doc.prose)


def test_entries():
    doc = parse(DOC)
    shown = [
        (
            e.kind,
            e.name.text if e.name else None,
            e.description.text if e.description else None,
            e.section,
        )
        for e in doc.entries
    ]
    assert shown == [
        ("param", "index", "the position, {@code 0} first", "@param"),
        ("param", "T", "the element type", "@param"),
        ("returns", None, "the element", "@return"),
        ("raises", "IndexOutOfBoundsException", "if {@code index} is too large", "@throws"),
        ("raises", "java.io.IOException", "never, in fact", "@exception"),
        ("see", "#set(int, Object)", None, "@see"),
        ("other", "1.2", None, "@since"),
    ]
    type_parameter = doc.entries[1].name
    assert DOC[type_parameter.start - 1 : type_parameter.end + 1] == "<T>"


def test_see_targets_but_not_titles_or_html_links():
    doc = parse(
        'Text.\n\n@see Cart#add(Item, int) adding one\n@see "The Java Language Specification"\n'
        '@see <a href="https://example.com">a page</a>\n@see'
    )
    assert exact(doc)
    shown = [(e.kind, e.name.text if e.name else None, e.description) for e in doc.entries]
    assert shown == [
        ("see", "Cart#add(Item, int)", None),
        ("other", '"The Java Language Specification"', None),
        ("other", '<a href="https://example.com">a page</a>', None),
        ("other", None, None),
    ]


def test_inline_tags():
    doc = parse(DOC)
    shown = [(t.tag, t.body.text if t.body else None) for t in doc.inline]
    assert shown == [
        ("code", "get(-1)"),
        ("link", "java.util.List#get(int)"),
        ("code", "size()"),
        ("code", "0"),
        ("code", "index"),
        ("link", "#at(int)"),
    ]
    assert doc.inline[1].whole.text == "{@link java.util.List#get(int) get}"


def test_nested_braces_and_opening_return():
    doc = parse("{@return the map, as {@code Map<K, {V}>}} More.\n\n@param k {@code {k}}")
    assert exact(doc)
    assert doc.inline[0].tag == "return"
    assert doc.inline[0].body.text == "the map, as {@code Map<K, {V}>}"
    returns = [e for e in doc.entries if e.kind == "returns"]
    assert [e.description.text for e in returns] == ["the map, as {@code Map<K, {V}>}"]
    param = next(e for e in doc.entries if e.kind == "param")
    assert param.description.text == "{@code {k}}"


def test_tags_only_at_line_start_and_not_in_pre_or_code():
    doc = parse(
        "Mentions @param inline.\n{@code\n@param notATag}\n<pre>\n@return no\n</pre>\n@return yes"
    )
    assert [(e.kind, e.description.text) for e in doc.entries] == [("returns", "yes")]
    doc = parse("@return only a tag")
    assert doc.summary is None and doc.prose == ()
    assert doc.entries[0].description.text == "only a tag"


def test_html_blocks_end_paragraphs_and_the_first_sentence():
    doc = parse("First part<p>Second part.<ul><li>One item.</li><li>Two.</li></ul>")
    assert doc.summary.text == "First part"
    assert [p.text for p in doc.prose] == ["First part", "Second part.", "One item.", "Two."]


def test_segments_roles():
    doc = parse(DOC)
    found = segments(doc)
    assert found[0].role == "summary" and found[0].text == "Returns the element at a position."
    assert {s.role for s in found} >= {"summary", "prose", "param", "returns", "raises"}
    assert not any(s.role == "other" for s in found)  # @see and @since are references


MARKDOWN = """Returns the [element][List#get(int)] at `index`, as [Cart#add] does; see
[Optional], a[i], [a page](https://example.com), [Map.Entry] and [the site][site].

```java
/// @param notATag [Ghost#boo]
```

[site]: https://example.com

@param index the position, not `indx`
@see Cart#remove"""


def test_markdown_code_and_references():
    doc = parse(MARKDOWN, markdown=True)
    assert exact(doc)
    shown = [(t.tag, t.body.text) for t in doc.inline]
    assert shown == [
        ("link", "List#get(int)"),
        ("code", "index"),
        ("link", "Cart#add"),
        ("link", "Map.Entry"),
        ("code", "indx"),
    ]
    assert [c.text.split("\n")[0] for c in doc.code_blocks] == ["```java"]
    assert [(e.kind, e.name.text) for e in doc.entries] == [
        ("param", "index"),
        ("see", "Cart#remove"),
    ]
    lone = parse("A lone ` here.\n\nThen `code` and [Cart#add].", markdown=True)
    assert [(t.tag, t.body.text) for t in lone.inline] == [("code", "code"), ("link", "Cart#add")]
    # The same text as a /** */ comment: backquotes and brackets are plain characters.
    assert [t.tag for t in parse(MARKDOWN).inline] == []
