"""The model's findings reach a pull client after a save with no keystroke: the server
asks for a new pull (workspace/diagnostic/refresh) and the re-pull, which carries the
previous result id as VS Code's does, gets a new report, not "unchanged"."""

from __future__ import annotations

import time

from lsp_harness import capabilities, codes, wait_until
from lsprotocol import types
from model_harness import MODEL_WAIT, model_options
from test_editor_judge import SOURCE, _save


def _pull(client, uri, previous):
    return client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
        )
    )


async def test_a_re_pull_with_the_previous_result_id_gets_the_model_finding(
    start, workspace, model_server
):
    client = await start(
        options=model_options(model_server), caps=capabilities(pull=True, refresh=True)
    )
    path = workspace / "shop" / "judged.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    first = await _pull(client, uri, None)
    assert first.kind == "full" and "DF301" not in codes(first.items)
    previous, seen = first.result_id, client.diagnostic_refresh_count
    _save(client, uri)
    deadline = time.monotonic() + MODEL_WAIT
    while True:  # as VS Code: pull again at every refresh, with the last result id
        await wait_until(
            lambda seen=seen: client.diagnostic_refresh_count > seen,
            timeout=max(0.1, deadline - time.monotonic()),
            what="a workspace/diagnostic/refresh carrying the model's DF301",
        )
        seen = client.diagnostic_refresh_count
        report = await _pull(client, uri, previous)
        if report.kind == "full":
            previous = report.result_id
            if "DF301" in codes(report.items):
                break
    assert report.result_id != first.result_id
    # Nothing new since: the same id is "unchanged" again.
    assert (await _pull(client, uri, previous)).kind == "unchanged"


async def test_a_pull_client_that_cannot_be_refreshed_is_sent_the_model_finding(
    start, workspace, model_server
):
    """Neovim 0.11 pulls but has no refreshSupport: the model's finding is pushed after the
    save, and pulls keep the rules' findings only (no finding shown twice)."""
    client = await start(options=model_options(model_server), caps=capabilities(pull=True))
    path = workspace / "shop" / "judged.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    _save(client, uri)
    await wait_until(
        lambda: any("DF301" in codes(p.diagnostics) for p in client.published_for(uri)),
        timeout=MODEL_WAIT,
        what="the model's DF301 pushed",
    )
    assert all(codes(p.diagnostics) in ([], ["DF301"]) for p in client.published_for(uri))
    pulled = await _pull(client, uri, None)
    assert "DF301" not in codes(pulled.items)
