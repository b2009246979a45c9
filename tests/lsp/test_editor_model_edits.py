"""Model results in the editor survive typing elsewhere: after a save with a model, an
edit in one function keeps the other functions' model findings (moved with their text),
and the edited one says its verdicts are pending. The models warm up after initialize (said
in the log). A real client, the real server, a scripted model."""

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


def reserve(item, count):
    """Reserve units of an item.

    It also calls WRONGFUNC the supplier.
    """
    item.quantity -= count
    return True
'''


def _model_lines(client, uri) -> list[int]:
    latest = client.published_for(uri)
    return (
        sorted(d.range.start.line for d in latest[-1].diagnostics if d.code == "DF301")
        if latest
        else []
    )


async def _hover(client, uri, text) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=find_position(client.texts[uri], text),
        )
    )
    return hover.contents.value


async def test_typing_in_one_function_keeps_the_others_model_findings(
    start, workspace, model_server
):
    client = await start(options=model_options(model_server))
    await wait_until(
        lambda: any("models warmed up" in m.message for m in client.log_messages),
        what="the models to warm up",
        timeout=240,
    )
    path = workspace / "shop" / "judged.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await wait_until(
        lambda: _model_lines(client, uri) == [3, 12], what="both DF301", timeout=MODEL_WAIT
    )

    # A line added at the top moves both functions; an edit of restock's body drops its
    # verdicts only.
    edited = "import os\n" + SOURCE.replace(
        "item.quantity += amount", "item.quantity += 2 * amount"
    )
    version = client.replace_all(uri, edited)
    await client.diagnostics_for(uri, version=version)
    assert _model_lines(client, uri) == [13]  # reserve's, one line further down
    assert "Consistency: pending: judged again on save" in await _hover(client, uri, "restock")
    assert "checks of your sentences" in await _hover(client, uri, "reserve")
    assert SECRET not in await _hover(client, uri, "restock")


def test_without_a_model_nothing_is_warmed_up():
    from docfact.config import Settings
    from docfact.lsp.background import warm_up_models

    assert warm_up_models([Settings()]) is None
