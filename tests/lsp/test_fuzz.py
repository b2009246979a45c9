"""A seeded LSP fuzz: random edits typed into a real document, requests with random and
invalid params, notifications about closed and unknown documents, interleaved. Every
request gets an answer (a result or an error response), the server shows no error to the
user, and the final diagnostics equal those of a fresh server given only the final text."""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from concurrent.futures import Future

import pytest
from lsp_harness import codes
from lsprotocol import types
from pygls.exceptions import JsonRpcException

SNIPPETS = [
    "x",
    " ",
    "\n",
    "    ",
    "(",
    ")",
    ":",
    '"""',
    "'",
    "#",
    "`",
    "\t",
    "é",
    "𝔘",
    "def g(a, b):\n",
    '    """Return `c`.\n\n    Args:\n        d: A thing.\n    """\n',
    "    return a\n",
    "class K:\n",
    "import os\n",
    "Raises:\n    KeyError: never.\n",
    ":param z: zed\n",
    ">>> h(1)\n",
    "yield 1\n",
    "@property\n",
]
ANSWER_S = 20.0


def _position(text: str, rng: random.Random) -> types.Position:
    lines = text.split("\n")
    line = rng.randrange(len(lines))
    return types.Position(line=line, character=rng.randrange(len(lines[line]) + 1))


def _random_edit(text: str, rng: random.Random) -> types.TextEdit:
    start = _position(text, rng)
    end = start
    if rng.random() < 0.4:  # a deletion or replacement of up to a few lines
        lines = text.split("\n")
        line = min(len(lines) - 1, start.line + rng.randrange(3))
        character = (
            rng.randrange(len(lines[line]) + 1)
            if line != start.line
            else rng.randrange(start.character, len(lines[line]) + 1)
        )
        end = types.Position(line=line, character=character)
    new_text = "" if rng.random() < 0.2 else rng.choice(SNIPPETS)
    return types.TextEdit(range=types.Range(start=start, end=end), new_text=new_text)


INVALID_PARAMS = [
    {"position": {"line": -1, "character": 0}},
    {"position": {"line": "one", "character": 0}},
    {"position": {"line": 10**9, "character": 10**9}},
    {"position": None},
    {},
]


async def _answered(coroutine) -> None:
    """Awaits a request: any result or error response is an answer; silence is not."""
    # An error response is an answer too (pygls surfaces some as RuntimeError).
    with contextlib.suppress(JsonRpcException, RuntimeError):
        await asyncio.wait_for(coroutine, ANSWER_S)


async def _request(client, uri: str, rng: random.Random) -> None:
    text = client.texts.get(uri, "")
    kind = rng.randrange(5)
    if kind == 0:
        await _answered(
            client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=_position(text, rng),
                )
            )
        )
    elif kind == 1:
        start = _position(text, rng)
        await _answered(
            client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(start=start, end=start),
                    context=types.CodeActionContext(
                        diagnostics=list(client.diagnostics.get(uri, []))
                    ),
                )
            )
        )
    else:  # raw JSON with params the server cannot read
        params = {"textDocument": {"uri": uri}, **rng.choice(INVALID_PARAMS)}
        method = rng.choice(
            ["textDocument/hover", "textDocument/codeAction", "textDocument/diagnostic"]
        )
        await _answered(_raw_request(client, method, params))


def _raw_request(client, method: str, params: dict) -> asyncio.Future:
    """A request sent as the JSON given (the client's own typed path would refuse it)."""
    protocol = client.protocol
    msg_id = str(uuid.uuid4())
    future = asyncio.get_running_loop().create_future()
    concurrent = Future()
    concurrent.add_done_callback(
        lambda done: future.get_loop().call_soon_threadsafe(_copy_outcome, done, future)
    )
    protocol._request_futures[msg_id] = concurrent
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return future


def _copy_outcome(done: Future, future: asyncio.Future) -> None:
    if not future.done():
        error = done.exception()
        future.set_exception(error) if error else future.set_result(done.result())


@pytest.mark.parametrize("seed", [7, 2024])
async def test_every_request_is_answered_and_the_end_state_is_a_fresh_check(start, workspace, seed):
    rng = random.Random(seed)
    orders = workspace / "shop" / "orders.py"
    client = await start()
    uri = client.open(orders)
    await client.diagnostics_for(uri, version=1)
    ghost = (workspace / "shop" / "ghost.py").as_uri()
    pending = []
    for _ in range(300):
        roll = rng.random()
        if roll < 0.7:
            client.edit(uri, [_random_edit(client.texts[uri], rng)])
        elif roll < 0.85:
            pending.append(asyncio.ensure_future(_request(client, uri, rng)))
        elif roll < 0.9:  # closed and opened again, with the text it had
            client.close(uri)
            text = client.texts[uri]
            client.open(orders, text)
        elif roll < 0.95:
            client.close(ghost)
            client.text_document_did_save(
                types.DidSaveTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=ghost)
                )
            )
        else:
            await asyncio.sleep(rng.random() * 0.05)  # let some work finish, some not
    await asyncio.gather(*pending)
    final = await client.diagnostics_for(uri, timeout=60)
    assert client.messages == [], [m.message for m in client.messages]

    fresh = await start()
    fresh_uri = fresh.open(orders, client.texts[uri])
    expected = await fresh.diagnostics_for(fresh_uri, version=1, timeout=60)
    assert [(d.code, d.range, d.message) for d in final] == [
        (d.code, d.range, d.message) for d in expected
    ], codes(final)
