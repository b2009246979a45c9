"""Hover cards and code actions (quick fix, ignore, fix-all), applied like an editor does."""

from __future__ import annotations

import json
from urllib.parse import unquote

from lsp_harness import FAST, apply_edits, codes, find_position
from lsprotocol import types


def _hover(client, uri, position):
    return client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )


def _actions(client, uri, diagnostics, only=None, range_=None):
    range_ = range_ or (
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


async def _opened(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    diagnostics = await client.diagnostics_for(uri, version=1)
    assert codes(diagnostics) == ["DF101", "DF102", "DF202"]
    return client, uri, diagnostics


# --- hover -------------------------------------------------------------------------------


async def test_hover_on_a_flagged_span_and_on_function_name(start, workspace):
    client, uri, _ = await _opened(start, workspace)
    text = client.texts[uri]

    on_flagged = await _hover(client, uri, find_position(text, "ammount", within=3))
    assert on_flagged is not None
    card = on_flagged.contents
    assert card.kind == types.MarkupKind.Markdown
    value = card.value
    assert "shop.orders.restock" in value
    # Sentences with verdicts: the wrong one is crossed, the right ones ticked.
    lines = value.splitlines()
    wrong = [line for line in lines if "How many units arrived" in line]
    assert wrong and "✗" in wrong[0], value
    right = [line for line in lines if "Add stock to an item" in line]
    assert right and "✓" in right[0], value
    assert "DF101" in value
    # Nothing computed: one short line says how to get scores.
    assert "**Scores**: not computed — set a model (docfact.llm.model" in value
    assert value.count("not computed") == 1
    # The hover range is the flagged word.
    begin = find_position(text, "ammount")
    assert on_flagged.range == types.Range(
        start=begin, end=types.Position(line=begin.line, character=begin.character + 7)
    )

    on_name = await _hover(client, uri, find_position(text, "def restock", within=6))
    assert on_name is not None
    assert on_name.contents.value == value
    begin = find_position(text, "restock(")
    assert on_name.range == types.Range(
        start=begin, end=types.Position(line=begin.line, character=begin.character + 7)
    )

    # A clean word of a docstring has no card, even in a docstring with a finding.
    assert await _hover(client, uri, find_position(text, "Add stock to an item.")) is None
    assert await _hover(client, uri, find_position(text, "Describe the item")) is None
    # On the name of a correct function: every sentence ticked, no cross.
    clean = await _hover(client, uri, find_position(text, "def label", within=5))
    assert clean is not None and "✓" in clean.contents.value
    assert "✗" not in clean.contents.value


async def test_a_client_that_shows_details_by_command_gets_a_link_to_them(start, workspace):
    """The VS Code extension says hoverDetailsCommand (its hover cannot unfold a part): the
    card ends with a link to docfact.showCardDetails on the function's name, and the server's
    docfact.cardDetails gives those details; a client that does not (Neovim) reads them in
    the card, after a rule."""
    client = await start(options={**FAST, "hoverDetailsCommand": True})
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    text = client.texts[uri]
    on_word = await _hover(client, uri, find_position(text, "ammount", within=3))
    first, link = on_word.contents.value.rsplit("\n", 1)
    assert "✗ ammount: How many units arrived." in first and "DF101" in first
    assert "✓" not in first  # the sentences without findings are in the details
    target = link.split("](command:docfact.showCardDetails?", 1)[1].rstrip(")")
    arguments = json.loads(unquote(target))
    name = find_position(text, "restock(")
    assert arguments == [uri, name.line, name.character]
    shown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="docfact.cardDetails", arguments=arguments)
    )
    assert shown.startswith(first.split("\n", 1)[0])  # the card's heading
    assert "1. ✓ Add stock to an item." in shown and "**Criteria that failed**: name" in shown
    plain_client, _, _ = await _opened(start, workspace)
    plain = (await _hover(plain_client, uri, find_position(text, "ammount", within=3))).contents
    before, after = plain.value.split("\n---\n")
    assert before.rstrip() == first.rstrip() and "command:" not in plain.value
    assert after.strip() == shown.split("\n", 2)[2].strip()


async def test_hover_elsewhere_is_null(start, workspace):
    client, uri, _ = await _opened(start, workspace)
    text = client.texts[uri]
    assert await _hover(client, uri, find_position(text, 'item["quantity"] += amount')) is None
    assert await _hover(client, uri, types.Position(line=2, character=0)) is None  # blank line
    assert await _hover(client, uri, types.Position(line=9999, character=3)) is None  # past EOF


async def test_hover_right_after_an_edit_describes_the_new_text(start, workspace):
    """A hover sent right after didChange (before the debounced check ran) answers for
    the edited text, not null and not the old text."""
    client = await start(options={"docfact": {"debounceMs": 2000}})
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    text = client.texts[uri].replace(
        "ammount: How many units arrived.", "amount: How many units arrived."
    )
    client.replace_all(uri, text)
    hover = await _hover(client, uri, find_position(text, "def restock", within=6))
    assert hover is not None
    assert "✗" not in hover.contents.value


# --- code actions --------------------------------------------------------------------------


async def test_quick_fix_applied_removes_the_diagnostic(start, workspace):
    client, uri, diagnostics = await _opened(start, workspace)
    df101 = next(d for d in diagnostics if d.code == "DF101")
    actions = await _actions(client, uri, [df101])
    titles = [a.title for a in actions]
    # Without `only`, every kind is offered: the quick fixes, then fix-all.
    assert titles == [
        "Rename to `amount`",
        "Ignore DF101 for `restock`",
        "docfact: apply every safe fix",
    ]
    assert actions[2].kind == "source.fixAll.docfact"
    fix = actions[0]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred is True
    assert fix.diagnostics and fix.diagnostics[0].code == "DF101"
    edits = fix.edit.changes[uri]
    assert [e.new_text for e in edits] == ["amount"]
    assert edits[0].range == df101.range

    expected = apply_edits(client.texts[uri], edits)
    assert "        amount: How many units arrived." in expected
    version = client.edit(uri, edits)
    assert client.texts[uri] == expected
    assert codes(await client.diagnostics_for(uri, version=version)) == ["DF102", "DF202"]


async def test_ignore_action_adds_a_suppression_comment(start, workspace):
    client, uri, diagnostics = await _opened(start, workspace)
    df102 = next(d for d in diagnostics if d.code == "DF102")
    actions = await _actions(client, uri, [df102], only=[types.CodeActionKind.QuickFix])
    # The near miss's fix (unsafe: `count` is a guess), and the suppression.
    titles = [a.title for a in actions]
    assert sorted(titles) == ["Ignore DF102 for `reserve`", "Replace with `count`"]
    edits = actions[titles.index("Ignore DF102 for `reserve`")].edit.changes[uri]
    version = client.edit(uri, edits)
    assert (
        "def reserve(item: dict, count: int) -> bool:  # docfact: ignore[DF102]\n"
        in client.texts[uri]
    )
    assert codes(await client.diagnostics_for(uri, version=version)) == ["DF101", "DF202"]

    # A second code on the same function joins the existing comment.
    text = client.texts[uri].replace(
        "count: How many units to reserve.", "cnt: How many units to reserve."
    )
    version = client.replace_all(uri, text)
    diagnostics = await client.diagnostics_for(uri, version=version)
    df101 = next(d for d in diagnostics if d.data["symbol"].endswith("reserve"))
    actions = await _actions(client, uri, [df101])
    ignore = next(a for a in actions if a.title == "Ignore DF101 for `reserve`")
    version = client.edit(uri, ignore.edit.changes[uri])
    assert (
        "def reserve(item: dict, count: int) -> bool:  # docfact: ignore[DF102, DF101]\n"
        in client.texts[uri]
    )
    diagnostics = await client.diagnostics_for(uri, version=version)
    assert not [d for d in diagnostics if d.data["symbol"].endswith("reserve")]


async def test_fix_all_applies_every_safe_fix(start, workspace):
    client, uri, diagnostics = await _opened(start, workspace)
    for only in ([types.CodeActionKind.SourceFixAll], ["source.fixAll.docfact"]):
        actions = await _actions(client, uri, [], only=only)
        assert [a.kind for a in actions] == ["source.fixAll.docfact"], only
    # Quick fixes only: no fix-all; fix-all only: no quick fixes.
    quick = await _actions(client, uri, diagnostics, only=[types.CodeActionKind.QuickFix])
    assert all(a.kind == types.CodeActionKind.QuickFix for a in quick) and quick
    edits = actions[0].edit.changes[uri]
    assert sorted(e.new_text for e in edits) == ["amount", "float"]
    version = client.edit(uri, edits)
    text = client.texts[uri]
    assert "        amount: How many units arrived." in text
    assert "        float: The sum of the prices." in text
    assert codes(await client.diagnostics_for(uri, version=version)) == ["DF102"]
    # Nothing left to fix: no fix-all action.
    assert not await _actions(client, uri, [], only=[types.CodeActionKind.SourceFixAll])


async def test_code_actions_ignore_foreign_diagnostics(start, workspace):
    client, uri, diagnostics = await _opened(start, workspace)
    foreign = types.Diagnostic(
        range=diagnostics[0].range, message="E501 line too long", source="ruff", code="E501"
    )
    assert not await _actions(client, uri, [foreign], only=[types.CodeActionKind.QuickFix])
