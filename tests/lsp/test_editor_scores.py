"""SONAR and SSC in the editor: the docfact.score command computes them in the background
(real sandbox, packaged encoder, scripted model server), the hover card shows them, a low
Correctness is a warning on the summary, and an edit of the function makes them stale."""

from __future__ import annotations

import re

from llm_helpers import arithmetic_responder
from lsp_harness import find_position, open_written, wait_until
from lsprotocol import types
from model_harness import MODEL_WAIT, SECRET, model_options

from docfact.lsp.hover import DETAILS

SOURCE = '''\
def larger(a: int, b: int) -> int:
    """Return the larger of a and b."""
    return min(a, b)


def total(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b
'''
MODEL_RESPONDER = arithmetic_responder


async def _hover(client, uri, function):
    """The card on the name of ``function``."""
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=find_position(client.texts[uri], f"def {function}", within=4),
        )
    )
    return hover.contents.value


async def _opened(client, workspace) -> str:
    return await open_written(client, workspace / "shop" / "scored.py", SOURCE)


async def _score(client, uri) -> None:
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="docfact.score", arguments=[uri])
    )


def _codes(client, uri):
    latest = client.published_for(uri)
    return [d.code for d in latest[-1].diagnostics] if latest else []


async def test_score_command_fills_the_hover_and_warns_on_low_correctness(
    start, workspace, model_server
):
    client = await start(options=model_options(model_server, run="manual"))
    uri = await _opened(client, workspace)
    before = await _hover(client, uri, "larger")
    assert "**Scores**: not computed — run *docfact: Score Docstrings of This File*" in before
    await _score(client, uri)
    await wait_until(
        # The first scoring of a session trains the fluency model (~35 s of CPU; minutes on
        # a loaded machine) and starts the sandbox.
        lambda: "DF304" in _codes(client, uri),
        what="DF304 after scoring",
        timeout=480,
    )
    warning = next(d for d in client.published_for(uri)[-1].diagnostics if d.code == "DF304")
    assert warning.range.start.line == 1 and "for the input" in warning.message
    card = await _hover(client, uri, "larger")
    assert re.search(
        r"Correctness 0\.\d\d: code written from this docstring differed on \d+ of \d+ inputs",
        card,
    )
    first, rest = card.split("\n---\n")
    # DF304's line above the scores is its first clause; the whole message is in the details.
    assert "DF304" in first and "for the input" not in first and "for the input" in rest
    assert "Where they differ: for `" in rest and "Understandability " in first
    assert "(not rated yet)" in card
    scores, details = card.split("**Scores**", 1)[1].split(DETAILS)
    for jargon in ("FuncSim", "SLOR", "P2", "anchors", "tau", "SSC"):
        assert jargon not in scores
    assert "- Correctness: FuncSim over " in details and "SSC (P1): " in details
    assert SECRET not in card
    good = await _hover(client, uri, "total")
    assert "Correctness 1.00: code written from this docstring behaved like yours" in good
    # Editing the scored function makes its scores stale: they leave the card and the warning goes.
    version = client.replace_all(uri, SOURCE.replace("return min(a, b)", "return max(a, b)"))
    await client.diagnostics_for(uri, version=version)
    assert "DF304" not in _codes(client, uri)
    after = await _hover(client, uri, "larger")
    assert "Correctness and the other scores: pending: scored again on save" in after
    assert "Correctness 1.00: " in await _hover(client, uri, "total")


async def test_score_command_without_a_model_says_what_is_missing(start, workspace):
    client = await start()
    uri = await _opened(client, workspace)
    await _score(client, uri)
    await wait_until(
        lambda: any("scores need a model" in m.message for m in client.messages),
        what="a message about the missing model",
    )


async def test_the_progress_cancel_button_stops_scoring(start, workspace, model_server):
    model_server.delay_s = 3.0  # a slow model: the user gives up
    client = await start(options=model_options(model_server, run="manual"))
    uri = await _opened(client, workspace)
    await _score(client, uri)

    def scoring_token():
        return next(
            (t for t in client.progress_reports if str(t).startswith("docfact-editorscorer")), None
        )

    await wait_until(
        lambda: bool(
            scoring_token() is not None
            and client.progress_reports[scoring_token()]
            and model_server.requests
        ),
        what="scoring under way",
        timeout=MODEL_WAIT,  # the first call waits for litellm's import
    )
    token = scoring_token()
    assert client.progress_reports[token][0].cancellable is True
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    await wait_until(
        lambda: isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd),
        what="the progress to end",
    )
    assert "**Scores**: not computed — run *docfact: Score" in await _hover(client, uri, "larger")
    assert "DF304" not in _codes(client, uri)
