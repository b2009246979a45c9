"""Push diagnostics: what an open document gets, and how edits change it."""

from __future__ import annotations

import asyncio

from lsp_harness import EDITOR, USES, codes, find_position, linked_heading, wait_until
from lsprotocol import types


def _by_code(diagnostics, code):
    found = [d for d in diagnostics if d.code == code]
    assert len(found) == 1, (code, diagnostics)
    return found[0]


async def test_open_publishes_findings_with_all_fields(start, workspace):
    client = await start()
    path = workspace / "shop" / "orders.py"
    uri = client.open(path)
    diagnostics = await client.diagnostics_for(uri, version=1)
    text = path.read_text()

    assert codes(diagnostics) == ["DF101", "DF102", "DF202"]
    df101, df102, df202 = (_by_code(diagnostics, c) for c in ("DF101", "DF102", "DF202"))

    # `ammount` in restock's Args: line 9 (1-based), columns 9-16 -> 0-based 8..15.
    assert df101.range == types.Range(
        start=types.Position(line=8, character=8), end=types.Position(line=8, character=15)
    )
    assert df101.range.start == find_position(text, "ammount")
    assert df202.range.start == find_position(text, "str: The sum")
    assert df202.range.end.character - df202.range.start.character == len("str")
    assert df102.range.start == find_position(text, "cuont")

    for d in diagnostics:
        assert d.source == "docfact"
        assert d.message
        assert d.code_description is not None
        assert linked_heading(d.code_description.href).startswith(f"## {d.code} ")
        assert d.severity == types.DiagnosticSeverity.Warning
        assert isinstance(d.data, dict) and d.data["symbol"].startswith("shop.orders.")
    assert linked_heading(df101.code_description.href) == "## DF101 unknown-parameter"
    assert "did you mean `amount`" in df101.message

    # Evidence: the signature, in the same document, on the `def` line (line 4 -> 3).
    assert df101.related_information
    related = df101.related_information[0]
    assert related.location.uri == uri
    assert related.location.range.start.line == 3
    assert "restock" in related.message
    assert (
        df202.related_information and df202.related_information[0].location.range.start.line == 18
    )
    # The near miss that makes `cuont` stand: the parameter `count`, on reserve's line.
    [near] = df102.related_information
    assert near.location.uri == uri and near.location.range.start.line == 30
    assert near.message.endswith("`cuont` and `count`: one letter apart")

    # Fixes travel in `data` (the near miss's is unsafe: `count` is a guess).
    fix = df101.data["fix"]
    assert fix["title"] == "Rename to `amount`" and fix["replacement"] == "amount"
    assert fix["range"] == {
        "start": {"line": 8, "character": 8},
        "end": {"line": 8, "character": 15},
    }
    assert df202.data["fix"]["replacement"] == "float"
    assert df102.data["fix"]["replacement"] == "count"
    assert df102.data["fix"]["safety"] == "unsafe"


async def test_fixing_the_mistake_removes_the_diagnostic_and_a_new_one_appears(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    text = client.texts[uri]

    # Fix `ammount` with an incremental edit of exactly that word.
    begin = find_position(text, "ammount")
    end = types.Position(line=begin.line, character=begin.character + len("ammount"))
    version = client.edit(
        uri, [types.TextEdit(range=types.Range(start=begin, end=end), new_text="amount")]
    )
    diagnostics = await client.diagnostics_for(uri, version=version)
    assert codes(diagnostics) == ["DF102", "DF202"]

    # Introduce a mistake: label's `item` documented as `itm`.
    text = client.texts[uri]
    begin = find_position(text, "item: The item to describe.")
    end = types.Position(line=begin.line, character=begin.character + len("item"))
    version = client.edit(
        uri, [types.TextEdit(range=types.Range(start=begin, end=end), new_text="itm")]
    )
    diagnostics = await client.diagnostics_for(uri, version=version)
    assert codes(diagnostics) == ["DF101", "DF102", "DF202"]
    new = _by_code(diagnostics, "DF101")
    assert "`itm` is not a parameter of `label`" in new.message
    assert new.range.start == begin


async def test_rapid_edits_publish_only_the_newest_version(start, workspace):
    # A debounce long enough that even a slow machine sends all the edits within it.
    client = await start(options={"docfact": {**EDITOR, "debounceMs": 150}})
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    original = client.texts[uri]

    # 30 full-text edits with no pause: alternately correct and wrong.
    last = 0
    for i in range(30):
        text = original.replace("ammount", "amount") if i % 2 else original
        last = client.replace_all(uri, text)
    # The last text (i = 29, odd) is the corrected one.
    diagnostics = await client.diagnostics_for(uri, version=last)
    assert codes(diagnostics) == ["DF102", "DF202"]

    versions = [p.version for p in client.published_for(uri)]
    assert versions == sorted(versions), f"an older version came after a newer one: {versions}"
    assert versions[-1] == last
    assert len(versions) < 10, f"debouncing should coalesce rapid edits: {versions}"
    # Nothing arrives later for a stale version either.
    await asyncio.sleep(0.3)
    assert [p.version for p in client.published_for(uri)][-1] == last


async def test_rapid_incremental_typing_ends_on_the_newest_version(start, workspace):
    """Typing a word letter by letter (incremental edits, no pause) over the mistake."""
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    begin = find_position(client.texts[uri], "ammount")
    end = types.Position(line=begin.line, character=begin.character + len("ammount"))
    client.edit(uri, [types.TextEdit(range=types.Range(start=begin, end=end), new_text="")])
    for i, letter in enumerate("amount"):
        at = types.Position(line=begin.line, character=begin.character + i)
        client.edit(uri, [types.TextEdit(range=types.Range(start=at, end=at), new_text=letter)])
    last = client.versions[uri]
    diagnostics = await client.diagnostics_for(uri, version=last)
    assert codes(diagnostics) == ["DF102", "DF202"]
    assert "        amount: How many units arrived." in client.texts[uri]
    versions = [p.version for p in client.published_for(uri)]
    assert versions == sorted(versions)


async def test_did_close_clears_the_diagnostics(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    assert await client.diagnostics_for(uri, version=1)
    client.close(uri)
    await wait_until(
        lambda: len(client.published_for(uri)[-1].diagnostics) == 0,
        what="an empty publishDiagnostics after didClose",
        seen=lambda: [(p.version, len(p.diagnostics)) for p in client.published_for(uri)],
    )
    # The server keeps serving: re-opening publishes again.
    client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF101", "DF102", "DF202"]


async def test_save_rechecks(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    count = len(client.published_for(uri))
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await wait_until(lambda: len(client.published_for(uri)) > count, what="a re-check on save")
    assert codes(client.published_for(uri)[-1].diagnostics) == ["DF101", "DF102", "DF202"]


# --- bad input -------------------------------------------------------------------------

BROKEN = '''"""A module being edited."""


def half_written(x):
    """Unfinished: the body is not."""
    return x +


def restock(item: dict, amount: int) -> dict:
    """Add stock.

    Args:
        item: The item.
        ammount: How many.
    """
    return item


class Broken
    def method(self, a):
        """Do it.

        Args:
            b: Not a parameter.
        """
        if a ==
'''


async def test_syntax_errors_still_report_units_that_parse(start, workspace):
    client = await start()
    path = workspace / "shop" / "broken.py"
    path.write_text(BROKEN)
    uri = client.open(path)
    diagnostics = await client.diagnostics_for(uri, version=1)
    restock = [d for d in diagnostics if d.data["symbol"].endswith("restock")]
    assert [d.code for d in restock] == ["DF101"], diagnostics
    assert restock[0].range.start == find_position(BROKEN, "ammount")


async def test_half_typed_docstring_does_not_stop_the_server(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    text = client.texts[uri]
    # The user starts a docstring in `label`'s body: an unterminated triple quote that
    # swallows the rest of the file, typed a character at a time.
    anchor = find_position(text, "    return f\"{item['sku']}")
    for i, ch in enumerate('"""Wh'):
        at = types.Position(line=anchor.line, character=anchor.character + i)
        client.edit(uri, [types.TextEdit(range=types.Range(start=at, end=at), new_text=ch)])
    broken_version = client.versions[uri]
    await client.diagnostics_for(uri, version=broken_version)
    # Still answering requests.
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=find_position(client.texts[uri], "restock", within=2),
        )
    )
    assert hover is None or "docfact" in hover.contents.value
    # Undo: the findings come back.
    version = client.replace_all(uri, text)
    assert codes(await client.diagnostics_for(uri, version=version)) == ["DF101", "DF102", "DF202"]

    # Unterminated docstring right after a def, at the end of the file.
    version = client.replace_all(uri, text + '\n\ndef tail(a):\n    """Docs for `b`\n')
    await client.diagnostics_for(uri, version=version)
    version = client.replace_all(uri, text + "\n\ndef tail(a):\n    '''")
    await client.diagnostics_for(uri, version=version)
    version = client.replace_all(uri, text)
    assert codes(await client.diagnostics_for(uri, version=version)) == ["DF101", "DF102", "DF202"]


def _huge(functions: int) -> str:
    parts = ['"""A generated module of many small functions."""\n']
    for i in range(functions):
        parts.append(
            f"\n\ndef f{i}(a: int, b: str) -> int:\n"
            f'    """Function {i}.\n\n'
            f'    Args:\n        a: The first.\n        b: The second.\n    """\n'
            f"    return a\n"
        )
    parts.append(
        '\n\ndef last(value: int) -> int:\n    """The end.\n\n    Args:\n'
        '        valeu: The value.\n    """\n    return value\n'
    )
    return "".join(parts)


async def test_huge_document(start, workspace):
    text = _huge(2000)  # ~22,000 lines
    assert text.count("\n") > 20_000
    client = await start()
    path = workspace / "shop" / "huge.py"
    path.write_text(text)
    uri = client.open(path)
    diagnostics = await client.diagnostics_for(uri, version=1, timeout=60)
    assert codes(diagnostics) == ["DF101"]
    assert diagnostics[0].range.start == find_position(text, "valeu")
    # An incremental edit near the end of the huge document is applied and re-checked.
    begin = find_position(text, "valeu")
    end = types.Position(line=begin.line, character=begin.character + 5)
    version = client.edit(
        uri, [types.TextEdit(range=types.Range(start=begin, end=end), new_text="value")]
    )
    assert len(await client.diagnostics_for(uri, version=version, timeout=60)) == 0


async def test_an_edit_in_one_open_file_rechecks_the_others(start, workspace):
    """Renaming a function in the editor (unsaved) makes another open file's docstring,
    which names it, wrong at once; renaming it back makes it right. No endless re-checks."""
    (workspace / "shop" / "uses.py").write_text(USES)
    client = await start()
    uses = client.open(workspace / "shop" / "uses.py")
    helpers = client.open(workspace / "shop" / "helpers.py")
    assert codes(await client.diagnostics_for(uses, version=1)) == []
    assert codes(await client.diagnostics_for(helpers, version=1)) == ["DF101"]

    original = client.texts[helpers]
    version = client.replace_all(helpers, original.replace("def dedupe_items", "def dedupe_item"))
    await client.diagnostics_for(helpers, version=version)
    await client.diagnostics_for(uses, version=1, until=lambda d: codes(d) == ["DF103"])

    version = client.replace_all(helpers, original)
    await client.diagnostics_for(helpers, version=version)
    await client.diagnostics_for(uses, version=1, until=lambda d: codes(d) == [])

    count = len(client.published)
    await asyncio.sleep(0.5)
    assert len(client.published) <= count + 2, "documents keep re-checking each other"


async def test_an_override_inheriting_a_docstring_from_another_file(start, workspace):
    (workspace / "shop" / "base.py").write_text(
        'class Store:\n    def load(self, key):\n        """Load.\n\n        Args:\n'
        '            key: What to load.\n        """\n'
    )
    (workspace / "shop" / "child.py").write_text(
        "from .base import Store\n\n\nclass Cache(Store):\n    def load(self, name):\n"
        "        return name\n"
    )
    client = await start()
    uri = client.open(workspace / "shop" / "child.py")
    diagnostics = await client.diagnostics_for(uri, version=1, until=lambda d: "DF106" in codes(d))
    [found] = [d for d in diagnostics if d.code == "DF106"]
    assert found.range.start.line == 4 and "shop.base.Store.load" in found.message
    assert found.related_information[0].location.uri.endswith("/shop/base.py")
