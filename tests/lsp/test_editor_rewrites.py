"""Verified rewrites in the editor: a code action asks for them, a background pass finds
them (scripted model server, real sandbox), and only the verified ones come back as code
actions with exact edits."""

from __future__ import annotations

import ast

from lsp_harness import find_position, wait_until
from lsprotocol import types
from model_harness import MODEL_WAIT, model_options
from rewrite_pool import ABSTRACT, CORRECTION, DETAILED, LOSSY, SECTIONS, answer_sonar

SOURCE = f'''\
def clamp(value: int, low: int = 0, high: int = 10) -> int:
    """{DETAILED}{SECTIONS}"""
    return max(low, min(value, high))


def restock(item, amount):
    """Add stock to an item.

    It also emails WRONGFUNC the warehouse.
    """
    item.quantity += amount
    return item
'''

MODEL_RESPONDER = answer_sonar
WITH_SONAR = {"samples": 3, "compressions": 1, "fuzzCases": 50}


def _actions(client, uri, position, diagnostics=(), only=None):
    return client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=position, end=position),
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )
    )


def _command(action) -> tuple[str, list]:
    """The command a code action runs. lsprotocol's client reads the results' Command |
    CodeAction union as Command, with a CodeAction's command object turned into a string
    (editors tell them apart by whether ``command`` is a string): read it back."""
    if isinstance(action, types.CodeAction):
        return action.command.command, action.command.arguments
    inner = ast.literal_eval(action.command)
    return inner["command"], inner["arguments"]


async def _run(client, action):
    command, arguments = _command(action)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=arguments)
    )


async def test_describe_more_abstractly_asks_again_after_a_failure_and_offers_the_verified(
    start, workspace, model_server
):
    """The first request's candidates all lose behaviour: none is offered, and the action
    asks again (it used to vanish until the function was edited); the second request's
    model answers with a rewrite that keeps behaviour and reads more abstractly."""
    only_lossy = [True]

    def answer(body: dict, sample: int) -> str | None:
        if only_lossy[0] and body["messages"][0]["content"].startswith(
            "You improve the description"
        ):
            return LOSSY
        return answer_sonar(body, sample)

    model_server.responder = answer
    client = await start(options=model_options(model_server, run="onSave", sonar=WITH_SONAR))
    path = workspace / "shop" / "bounds.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    at = find_position(client.texts[uri], "the smaller of")
    [ask] = await _actions(client, uri, at, only=["refactor.rewrite"])
    assert ask.title == "Describe `clamp` more abstractly (rewrites verified by SONAR)"
    await _run(client, ask)
    await wait_until(
        lambda: any("kept its behaviour" in m.message for m in client.messages),
        what="the message that none was verified",
        timeout=240,
    )
    [again] = await _actions(client, uri, at, only=["refactor.rewrite"])
    assert again.title == "Describe `clamp` more abstractly again (rewrites verified by SONAR)"
    only_lossy[0] = False
    await _run(client, again)
    await wait_until(
        lambda: any("verified rewrite" in m.message for m in client.messages),
        what="the rewrites' message",
        timeout=240,
    )
    [offer] = await _actions(client, uri, at, only=["refactor.rewrite"])
    assert offer.title.startswith("Describe more abstractly (SONAR Abstraction ")
    assert "Correctness 1.00 → 1.00" in offer.title
    version = client.edit(uri, offer.edit.changes[uri])
    assert f'    """{ABSTRACT}{SECTIONS}"""' in client.texts[uri]  # the sections kept as they were
    await client.diagnostics_for(uri, version=version)


async def test_rewrite_this_sentence_offers_the_judge_checked_correction(
    start, workspace, model_server
):
    client = await start(options=model_options(model_server, run="onSave", sonar=WITH_SONAR))
    path = workspace / "shop" / "bounds.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await wait_until(
        lambda: any(d.code == "DF301" for d in client.published_for(uri)[-1].diagnostics),
        what="the judge's DF301",
        timeout=MODEL_WAIT,
    )
    finding = next(d for d in client.published_for(uri)[-1].diagnostics if d.code == "DF301")
    # Two findings on the sentence (as the judge can make on one line): one offer.
    second = types.Diagnostic(
        range=finding.range, message="another", code="DF401", source="docfact", data=finding.data
    )
    actions = await _actions(client, uri, finding.range.start, [finding, second], only=["quickfix"])
    asks = [a for a in actions if a.title == "Rewrite this sentence (checked by the model judge)"]
    assert len(asks) == 1
    [ask] = asks
    await _run(client, ask)
    await wait_until(
        lambda: any("checked by the model judge" in m.message for m in client.messages),
        what="the correction's message",
        timeout=120,
    )
    actions = await _actions(client, uri, finding.range.start, [finding], only=["quickfix"])
    offer = next(a for a in actions if a.title.startswith("Replace with: "))
    assert offer.title == f"Replace with: {CORRECTION}"
    client.edit(uri, offer.edit.changes[uri])
    assert f"    {CORRECTION}\n" in client.texts[uri] and "WRONGFUNC" not in client.texts[uri]
