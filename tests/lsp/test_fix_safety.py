"""Fix safety in the editor: "apply every safe fix" takes only safe fixes, an unsafe fix is
offered alone (not preferred), a display-only one is never offered as an edit."""

from __future__ import annotations

from lsprotocol import types

TEXT = '''def restock(item, amount):
    """Add stock; the ``amout`` is added.

    Args:
        item: The item.
        itemm: The item again.
        amount: How many.
    """
    return item, amount


def reserve(item, amount):
    """Reserve stock.

    Args:
        item: The item.
        ammount: How many.
    """
    return item, amount
'''


def _actions(client, uri, diagnostics, only=None):
    range_ = (
        diagnostics[0].range
        if diagnostics
        else types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
        )
    )
    return client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=range_,
            context=types.CodeActionContext(diagnostics=diagnostics, only=only),
        )
    )


async def test_fix_all_takes_only_safe_fixes(start, workspace):
    client = await start()
    path = workspace / "shop" / "stock.py"
    path.write_text(TEXT)
    uri = client.open(path)
    diagnostics = await client.diagnostics_for(uri, version=1)
    lines = client.texts[uri].splitlines()
    by_name = {
        lines[d.range.start.line][d.range.start.character : d.range.end.character]: d
        for d in diagnostics
    }
    safety = {name: d.data["fix"]["safety"] for name, d in by_name.items()}
    assert safety == {"itemm": "display-only", "amout": "unsafe", "ammount": "safe"}

    quick = types.CodeActionKind.QuickFix
    display_only = await _actions(client, uri, [by_name["itemm"]], only=[quick])
    assert [a.title for a in display_only] == ["Ignore DF101 for `restock`"]
    unsafe = await _actions(client, uri, [by_name["amout"]], only=[quick])
    assert unsafe[0].title == "Replace with `amount`"
    assert not unsafe[0].is_preferred

    fix_all = await _actions(client, uri, [], only=["source.fixAll.docfact"])
    assert [e.new_text for e in fix_all[0].edit.changes[uri]] == ["amount"]
