"""A cross-reference to a function of another file, misspelt: the diagnostic covers the
role's target, and its quick fix (the closest name the workspace defines) clears it."""

from __future__ import annotations

from lsp_harness import apply_edits, codes, find_position
from lsprotocol import types

SOURCE = '''"""Reports on the shop."""


def report(items):
    """Summarise the items, without repeats (see :func:`~shop.helpers.dedupe_itmes`)."""
    return len(items)
'''


async def test_role_target_in_another_file_and_its_quick_fix(start, workspace):
    path = workspace / "shop" / "reports.py"
    path.write_text(SOURCE)
    client = await start()
    uri = client.open(path)
    diagnostics = await client.diagnostics_for(uri, version=1)
    assert codes(diagnostics) == ["DF107"]
    [diagnostic] = diagnostics
    begin = find_position(SOURCE, "shop.helpers.dedupe_itmes")
    assert diagnostic.range == types.Range(
        start=begin,
        end=types.Position(
            line=begin.line, character=begin.character + len("shop.helpers.dedupe_itmes")
        ),
    )
    assert "`dedupe_itmes` is not in `shop.helpers`" in diagnostic.message

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    fix = actions[0]
    assert fix.title == "Replace with `shop.helpers.dedupe_items`"
    edits = fix.edit.changes[uri]
    expected = apply_edits(client.texts[uri], edits)
    assert ":func:`~shop.helpers.dedupe_items`" in expected
    version = client.edit(uri, edits)
    assert codes(await client.diagnostics_for(uri, version=version)) == []
