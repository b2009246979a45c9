"""The model judge in the editor: on save, with verdicts on the sentence and the score in
the hover card; a newer edit drops verdicts made for older text."""

from __future__ import annotations

from lsp_harness import find_position, wait_until
from lsprotocol import types
from model_harness import MODEL_WAIT, SECRET, model_options

SOURCE = '''\
def restock(item, amount):
    """Add stock to an item.

    It also emails WRONGFUNC the warehouse.
    """
    item.quantity += amount
    return item
'''


def _save(client, uri):
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


def _model_codes(client, uri):
    latest = client.published_for(uri)
    return [d.code for d in latest[-1].diagnostics] if latest else []


async def test_judge_on_save_reports_on_the_sentence_and_scores_in_hover(
    start, workspace, model_server
):
    client = await start(options=model_options(model_server))
    path = workspace / "shop" / "judged.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    assert model_server.requests == []  # never on open or on typing with run = onSave
    _save(client, uri)
    await wait_until(
        lambda: "DF301" in _model_codes(client, uri), what="the model's DF301", timeout=MODEL_WAIT
    )
    diagnostic = next(d for d in client.published_for(uri)[-1].diagnostics if d.code == "DF301")
    assert diagnostic.range.start.line == 3
    assert "test-model" in diagnostic.message
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=find_position(client.texts[uri], "def restock", within=4),
        )
    )
    card = hover.contents.value
    assert "Consistency 0." in card and "checks of your sentences" in card
    assert SECRET not in hover.contents.value


async def test_an_edit_drops_verdicts_for_the_old_text(start, workspace, model_server):
    client = await start(options=model_options(model_server))
    path = workspace / "shop" / "judged.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    _save(client, uri)
    await wait_until(
        lambda: "DF301" in _model_codes(client, uri), what="the model's DF301", timeout=MODEL_WAIT
    )
    version = client.replace_all(uri, SOURCE.replace("WRONGFUNC", "quickly"))
    diagnostics = await client.diagnostics_for(uri, version=version)
    assert "DF301" not in [d.code for d in diagnostics]


async def test_no_model_configured_sends_nothing(start, workspace, model_server):
    client = await start()
    path = workspace / "shop" / "judged.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    _save(client, uri)
    await client.diagnostics_for(uri)
    assert model_server.requests == []
