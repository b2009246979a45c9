"""Set-up errors a person sees: a model whose key variable is unset, or litellm missing
from docfact's environment, is told once per cause with window/showMessage (and in the
log), the Score progress ends saying why, and the hover says what is missing."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from lsp_harness import find_position, open_written, wait_until
from lsprotocol import types
from model_harness import MODEL_WAIT, SECRET, model_options
from test_editor_judge import SOURCE, _save

UNSET = "DOCFACT_TEST_KEY_THAT_IS_NOT_SET"
NO_LITELLM = [sys.executable, str(Path(__file__).parent / "no_litellm_server.py")]


async def _opened(client, workspace) -> str:
    return await open_written(client, workspace / "shop" / "judged.py", SOURCE)


def _warnings(client, needle: str) -> list[types.ShowMessageParams]:
    return [
        m for m in client.messages if needle in m.message and m.type == types.MessageType.Warning
    ]


async def _hover(client, uri) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=find_position(client.texts[uri], "def restock", within=4),
        )
    )
    return hover.contents.value


async def _score_progress_end(client, uri) -> types.WorkDoneProgressEnd:
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="docfact.score", arguments=[uri])
    )

    def ended():
        for token, reports in client.progress_reports.items():
            if (
                str(token).startswith("docfact-editorscorer")
                and reports
                and isinstance(reports[-1], types.WorkDoneProgressEnd)
            ):
                return reports[-1]
        return None

    return await wait_until(ended, what="the end of the Score progress")


async def test_an_unset_key_variable_is_told_once_and_in_the_hover(start, workspace, model_server):
    client = await start(options=model_options(model_server, apiKeyEnv=UNSET))
    uri = await _opened(client, workspace)
    _save(client, uri)
    await wait_until(lambda: bool(_warnings(client, UNSET)), what="a warning naming the variable")
    _save(client, uri)  # the same cause again: not told twice
    end = await _score_progress_end(client, uri)
    assert UNSET in end.message and "not set" in end.message
    assert len(_warnings(client, UNSET)) == 1
    assert any(UNSET in m.message for m in client.log_messages)
    card = await _hover(client, uri)
    assert UNSET in card and "set a model" not in card
    assert model_server.requests == []


async def test_litellm_missing_is_told_with_the_command_that_installs_it(
    start, workspace, model_server
):
    client = await start(options=model_options(model_server), command=NO_LITELLM)
    uri = await _opened(client, workspace)
    _save(client, uri)
    await wait_until(lambda: bool(_warnings(client, "litellm")), what="a warning about litellm")
    message = _warnings(client, "litellm")[0].message
    assert "pip install litellm==" in message and "not installed" in message
    end = await _score_progress_end(client, uri)
    assert "litellm" in end.message
    assert len(_warnings(client, "litellm")) == 1
    assert "litellm" in await _hover(client, uri)


async def test_a_usable_model_is_offered_in_the_hover(start, workspace, model_server):
    client = await start(options=model_options(model_server, run="manual"))
    uri = await _opened(client, workspace)
    card = await _hover(client, uri)
    assert "run *docfact: Score Docstrings of This File*" in card
    assert "set a model" not in card


async def test_no_rewrite_is_offered_while_the_model_cannot_be_used(start, workspace, model_server):
    client = await start(options=model_options(model_server, apiKeyEnv=UNSET))
    uri = await _opened(client, workspace)
    at = find_position(client.texts[uri], "Add stock")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[], only=["refactor.rewrite"]),
        )
    )
    assert not actions


async def test_a_model_server_that_does_not_answer_is_told_once(start, workspace, model_server):
    """No server listens at the configured address (the discard port): the failed calls
    are told once in a window message naming the model and where it was asked, however
    often the file is saved (the log says each failure and why)."""
    options = model_options(model_server, apiBase="http://127.0.0.1:9/v1", maxRetries=0)
    client = await start(options=options)
    uri = await _opened(client, workspace)
    for _ in range(2):
        seen = len(client.log_messages)
        _save(client, uri)
        await wait_until(
            lambda seen=seen: any("call failed" in m.message for m in client.log_messages[seen:]),
            what="the failed call in the log",
            timeout=MODEL_WAIT,
        )
    told = _warnings(client, "did not answer")
    assert len(told) == 1, [m.message for m in client.messages]
    assert "openai/test-model" in told[0].message and "127.0.0.1:9" in told[0].message
    # The hover says what is missing: the model's answer, not how to ask for scores alone.
    card = await _hover(client, uri)
    assert (
        "understandability: the model openai/test-model did not answer at http://127.0.0.1:9"
        in card
    )


async def _scored(client, uri, run: int) -> types.WorkDoneProgressEnd:
    """The end of the ``run``-th Score of the session (the first trains the fluency model:
    minutes on a loaded machine)."""
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="docfact.score", arguments=[uri])
    )

    def ended():
        reports = client.progress_reports.get(f"docfact-editorscorer-{run}", [])
        return (
            reports[-1] if reports and isinstance(reports[-1], types.WorkDoneProgressEnd) else None
        )

    return await wait_until(ended, what=f"the end of Score run {run}", timeout=480)


LABEL = '''

def label(item):
    """Name item for the shelf.

    Args:
        item: The item.
        colour: Its colour.
    """
    return str(item)
'''


def _path_without_bubblewrap(folder: Path) -> str:
    """A PATH as the user's, less bubblewrap: git stays (the server reads history with it)."""
    folder.mkdir()
    git = shutil.which("git")
    if git:
        (folder / "git").symlink_to(git)
    kept = [d for d in os.environ["PATH"].split(os.pathsep) if not (Path(d) / "bwrap").exists()]
    return os.pathsep.join([str(folder), *kept])


def _status_problems(client) -> list[str]:
    last = client.statuses[-1] if client.statuses else None
    problems = last.get("problems") if isinstance(last, dict) else getattr(last, "problems", None)
    return list(problems or [])


async def test_scores_without_a_sandbox_or_an_answering_model_say_why_once_each(
    start, workspace, model_server, monkeypatch, tmp_path
):
    """Score asked for where bubblewrap is not installed and no model server listens: each
    cause is told once in a window message saying what to do, the status item is sent both,
    the hover says what was not measured (not how to score), and the rules' findings stay."""
    monkeypatch.setenv("PATH", _path_without_bubblewrap(tmp_path / "bin"))
    options = model_options(
        model_server, apiBase="http://127.0.0.1:9/v1", maxRetries=0, run="manual"
    )
    client = await start(options=options)
    # A parameter the docstring names and the function lacks: a rule's finding (DF101).
    text = SOURCE + LABEL
    uri = await open_written(client, workspace / "shop" / "judged.py", text)
    rules = [d.code for d in client.diagnostics[uri]]
    assert rules  # the deterministic findings, before and after
    for run in (1, 2):  # the same causes again: not told twice
        await _scored(client, uri, run)
    sandbox = _warnings(client, "no sandbox")
    assert len(sandbox) == 1, [m.message for m in client.messages]
    assert "bubblewrap (bwrap) is not installed" in sandbox[0].message
    assert "Correctness and Conciseness are not measured" in sandbox[0].message
    told = _warnings(client, "openai/test-model")
    assert len(told) == 1, [m.message for m in client.messages]
    assert "did not answer at http://127.0.0.1:9" in told[0].message
    problems = _status_problems(client)
    assert any("no sandbox" in p for p in problems) and any("did not answer" in p for p in problems)
    card = await _hover(client, uri)
    assert "Correctness: not measured" in card and "run *docfact: Score" not in card
    assert SECRET not in card and all(SECRET not in m.message for m in client.messages)
    assert [d.code for d in client.diagnostics[uri]] == rules


async def _rewrite(client, uri) -> None:
    """Ask for verified "more abstract" rewrites of ``restock`` (the code action's command)."""
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="docfact.rewrite", arguments=[uri, "shop.judged.restock"]
        )
    )


async def test_a_rewrite_whose_model_does_not_answer_tells_the_status_item_at_once(
    start, workspace, model_server
):
    """Only a rewrite runs (no judge, no scores: ``run = "manual"``) and its model server
    does not answer: the cause is told in one window message and reaches the status item
    when the rewrite ends, not at the next judge or Score."""
    options = model_options(
        model_server, apiBase="http://127.0.0.1:9/v1", maxRetries=0, run="manual"
    )
    client = await start(options=options)
    uri = await _opened(client, workspace)
    for _ in range(2):  # the same cause again: not told twice
        await _rewrite(client, uri)
        await wait_until(
            lambda: any("did not answer" in p for p in _status_problems(client)),
            what="the status item told that the model did not answer",
            timeout=MODEL_WAIT,
        )
    told = _warnings(client, "did not answer")
    assert len(told) == 1, [m.message for m in client.messages]
    assert "127.0.0.1:9" in told[0].message


async def test_litellm_missing_at_a_rewrite_reaches_the_status_item(start, workspace, model_server):
    """A rewrite asked for where litellm is missing: the status item says it at once."""
    client = await start(options=model_options(model_server, run="manual"), command=NO_LITELLM)
    uri = await _opened(client, workspace)
    await _rewrite(client, uri)
    await wait_until(
        lambda: any("litellm" in p for p in _status_problems(client)),
        what="the status item told that litellm is missing",
    )
    assert len(_warnings(client, "litellm")) == 1
