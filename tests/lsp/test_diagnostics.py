"""Push diagnostics: what an open document gets, and how edits change it."""

from __future__ import annotations

from lsprotocol import types

from conftest import codes, find_position


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
    assert df101.range == types.Range(start=types.Position(line=8, character=8),
                                      end=types.Position(line=8, character=15))
    assert df101.range.start == find_position(text, "ammount")
    assert df202.range.start == find_position(text, "str: The sum")
    assert df202.range.end.character - df202.range.start.character == len("str")
    assert df102.range.start == find_position(text, "qty")

    for d in diagnostics:
        assert d.source == "docfact"
        assert d.message
        assert d.code_description is not None
        assert f"rules.md#{str(d.code).lower()}" in d.code_description.href
        assert d.severity == types.DiagnosticSeverity.Warning
        assert isinstance(d.data, dict) and d.data["symbol"].startswith("shop.orders.")
    assert "rules.md#df101" in df101.code_description.href
    assert "did you mean `amount`" in df101.message

    # Evidence: the signature, in the same document, on the `def` line (line 4 -> 3).
    assert df101.related_information
    related = df101.related_information[0]
    assert related.location.uri == uri
    assert related.location.range.start.line == 3
    assert "restock" in related.message
    assert df202.related_information and df202.related_information[0].location.range.start.line == 18
    assert df102.related_information is None  # no evidence for an unresolved name

    # Fixes travel in `data`; findings without one have none.
    fix = df101.data["fix"]
    assert fix["title"] == "Rename to `amount`" and fix["replacement"] == "amount"
    assert fix["range"] == {"start": {"line": 8, "character": 8}, "end": {"line": 8, "character": 15}}
    assert df202.data["fix"]["replacement"] == "float"
    assert "fix" not in df102.data


async def test_fixing_the_mistake_removes_the_diagnostic_and_a_new_one_appears(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    text = client.texts[uri]

    # Fix `ammount` with an incremental edit of exactly that word.
    begin = find_position(text, "ammount")
    end = types.Position(line=begin.line, character=begin.character + len("ammount"))
    version = client.edit(uri, [types.TextEdit(range=types.Range(start=begin, end=end),
                                               new_text="amount")])
    diagnostics = await client.diagnostics_for(uri, version=version)
    assert codes(diagnostics) == ["DF102", "DF202"]

    # Introduce a mistake: label's `item` documented as `itm`.
    text = client.texts[uri]
    begin = find_position(text, "item: The item to describe.")
    end = types.Position(line=begin.line, character=begin.character + len("item"))
    version = client.edit(uri, [types.TextEdit(range=types.Range(start=begin, end=end),
                                               new_text="itm")])
    diagnostics = await client.diagnostics_for(uri, version=version)
    assert codes(diagnostics) == ["DF101", "DF102", "DF202"]
    new = _by_code(diagnostics, "DF101")
    assert "`itm` is not a parameter of `label`" in new.message
    assert new.range.start == begin


async def test_rapid_edits_publish_only_the_newest_version(start, workspace):
    client = await start()
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
    # Nothing more arrives later for a stale version.
    await client.hover_request_sync_barrier() if hasattr(client, "hover_request_sync_barrier") else None
