"""Start-up progress, failing handlers, unusual clients and flat memory."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
from pathlib import Path

import pytest
import pytest_asyncio
from lsp_harness import (
    SERVER_COMMAND,
    STATS_SERVER_COMMAND,
    TIMEOUT,
    USES,
    capabilities,
    codes,
    make_client,
    wait_until,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException


async def test_indexing_progress_begins_and_ends(start, workspace):
    client = await start()  # waits for the end of the progress
    reports = client.progress_reports["docfact-index"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert "index" in reports[0].title
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert sum(isinstance(r, types.WorkDoneProgressBegin) for r in reports) == 1
    assert sum(isinstance(r, types.WorkDoneProgressEnd) for r in reports) == 1
    assert "3 files" in (reports[-1].message or "")


async def test_indexing_progress_ends_when_the_configuration_is_broken(start, workspace):
    (workspace / "pyproject.toml").write_text("[tool.docfact\nselect = [")  # not TOML
    client = await start()  # waits for the end of the progress
    reports = client.progress_reports["docfact-index"]
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF101", "DF102", "DF202"]
    assert any("not valid TOML" in m.message for m in client.log_messages)


async def test_no_progress_for_a_client_without_work_done_progress(start, workspace):
    (workspace / "shop" / "uses.py").write_text(USES)
    client = await start(caps=capabilities(progress=False))
    uri = client.open(workspace / "shop" / "uses.py")
    # Resolved once the index knows helpers.dedupe_items.
    await client.diagnostics_for(uri, version=1, until=lambda d: codes(d) == [])
    assert client.progress_reports == {}


async def test_a_client_that_refuses_registration_still_gets_a_working_server(start, workspace):
    """client/registerCapability answered with an error must not stop configuration and
    indexing (they come after it in `initialized`)."""
    (workspace / "shop" / "uses.py").write_text(USES)
    factory = functools.partial(make_client, without=(types.CLIENT_REGISTER_CAPABILITY,))
    client = await start(caps=capabilities(watched_dynamic=True), factory=factory)
    assert isinstance(client.progress_reports["docfact-index"][-1], types.WorkDoneProgressEnd)
    uri = client.open(workspace / "shop" / "uses.py")
    await client.diagnostics_for(uri, version=1, until=lambda d: codes(d) == [])


async def test_a_client_without_workspace_folders(start, workspace, tmp_path):
    """No folder: no indexing, but open documents are checked."""
    client = await start(folders=[])
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF101", "DF102", "DF202"]
    assert "docfact-index" not in client.progress_reports


async def test_a_failing_request_answers_an_error_and_the_server_keeps_serving(start, workspace):
    client = await start(caps=capabilities(pull=True))
    missing = (workspace / "shop" / "missing.py").as_uri()

    # Hover and code actions on a document that was never opened: nothing, no crash.
    assert (
        await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=missing),
                position=types.Position(line=0, character=0),
            )
        )
        is None
    )
    assert not await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=missing),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )

    # Pull diagnostics of a file that does not exist: nothing to report (the log says why).
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=missing))
    )
    assert not report.items

    # The server keeps serving.
    uri = client.open(workspace / "shop" / "orders.py")
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert codes(report.items) == ["DF101", "DF102", "DF202"]


async def test_only_regular_files_of_the_workspace_are_read_for_closed_documents(
    start, workspace, tmp_path
):
    """Diagnostics pulled for documents the editor did not open: pygls read any path whole.
    A FIFO hung the server for good, /dev/zero grew it to 18 GB, a link out of the
    workspace was read as source. Now each is refused with a line in the log, and a file
    over max_file_bytes too; a closed file of the workspace is still checked."""
    orders = workspace / "shop" / "orders.py"
    limit = len(orders.read_bytes()) + 100
    (workspace / "pyproject.toml").write_text(f"[tool.docfact]\nmax_file_bytes = {limit}\n")
    os.mkfifo(workspace / "shop" / "fifo.py")
    (workspace / "shop" / "big.py").write_text(orders.read_text() + "#" * 2 * limit + "\n")
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.py").write_text(orders.read_text())
    (workspace / "shop" / "secret.py").symlink_to(outside / "secret.py")
    client = await start(caps=capabilities(pull=True))

    async def pulled(path: Path) -> list[types.Diagnostic]:
        report = await asyncio.wait_for(
            client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(
                    text_document=types.TextDocumentIdentifier(uri=path.as_uri())
                )
            ),
            TIMEOUT,
        )
        return list(report.items)

    for refused in ("fifo.py", "big.py", "secret.py"):
        assert await pulled(workspace / "shop" / refused) == [], refused
    assert await pulled(Path("/dev/zero")) == []
    assert codes(await pulled(orders)) == ["DF101", "DF102", "DF202"]
    said = "\n".join(m.message for m in client.log_messages)
    assert "fifo.py, which is not open, is not read: not a regular file" in said
    assert "big.py, which is not open, is not read: over the" in said
    for outside in ("shop/secret.py", "file:///dev/zero"):
        assert f"{outside}, which is not open, is not read: outside the workspace" in said


async def test_malformed_diagnostic_data_in_a_code_action_request(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    diagnostics = await client.diagnostics_for(uri, version=1)
    bogus = types.Diagnostic(
        range=diagnostics[0].range,
        message="?",
        source="docfact",
        code="DF101",
        data={"fix": "not a fix"},
    )
    with contextlib.suppress(JsonRpcException):  # an error answer is fine; a dead server is not
        await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=bogus.range,
                context=types.CodeActionContext(diagnostics=[bogus]),
            )
        )
    version = client.replace_all(uri, client.texts[uri].replace("ammount", "amount"))
    assert codes(await client.diagnostics_for(uri, version=version)) == ["DF102", "DF202"]


async def test_notifications_for_unknown_documents_are_harmless(start, workspace):
    """Logged and dropped: never an error shown to the user, never work scheduled."""
    client = await start()
    ghost = (workspace / "shop" / "ghost.py").as_uri()
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=ghost, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 1\n")],
        )
    )
    client.close(ghost)
    client.close(ghost)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=ghost))
    )
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=ghost, type=types.FileChangeType.Deleted)]
        )
    )
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF101", "DF102", "DF202"]
    assert client.messages == []
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]
    assert client.published_for(ghost) == []


async def test_a_document_that_crashes_the_parser_costs_only_itself(start, workspace):
    """tree-sitter-python dies of a segmentation fault on a string under ~511 levels of
    indentation: the server refuses the text before parsing, says so once, and recovers
    when the document is edited back."""
    deep = workspace / "shop" / "deep.py"
    crash = "".join(" " * i + "if x:\n" for i in range(511)) + " " * 511 + '"doc"\n'
    deep.write_text(crash)  # indexing reads it from disk too
    client = await start()
    uri = client.open(deep)
    assert await client.diagnostics_for(uri, version=1) == []
    [shown] = await wait_until(
        lambda: [m for m in client.messages if "deep.py" in m.message] or None
    )
    assert "levels of indentation crash the Python parser" in shown.message
    orders = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(orders, version=1)) == ["DF101", "DF102", "DF202"]
    client.replace_all(uri, (workspace / "shop" / "orders.py").read_text())
    assert codes(await client.diagnostics_for(uri)) == ["DF101", "DF102", "DF202"]
    client.replace_all(uri, crash)
    assert await client.diagnostics_for(uri) == []
    assert len([m for m in client.messages if "deep.py" in m.message]) == 1


# --- flat memory -------------------------------------------------------------------------


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def _stats(client) -> dict:
    result = await client.protocol.send_request_async("docfact/_testStats", {})
    return result if isinstance(result, dict) else dict(result._asdict())


async def _type_and_undo(client, uri, count: int) -> None:
    """``count`` incremental edits: add a character at the end of the first line, remove it."""
    line = client.texts[uri].splitlines()[0]
    end = types.Position(line=0, character=len(line))
    after = types.Position(line=0, character=len(line) + 1)
    for i in range(count):
        if i % 2 == 0:
            edit = types.TextEdit(range=types.Range(start=end, end=end), new_text="#")
        else:
            edit = types.TextEdit(range=types.Range(start=end, end=after), new_text="")
        client.edit(uri, [edit])
        if i % 200 == 199:
            await asyncio.sleep(0)  # let the transport drain


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc for the RSS")
async def test_memory_stays_flat_over_2000_edits(start, workspace):
    client = await start(command=STATS_SERVER_COMMAND)
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)

    await _type_and_undo(client, uri, 100)
    await client.diagnostics_for(uri)
    early = await _stats(client)
    rss_early = _rss_kib(client.server_pid)

    await _type_and_undo(client, uri, 2000)
    diagnostics = await client.diagnostics_for(uri)
    assert codes(diagnostics) == ["DF101", "DF102", "DF202"]
    late = await _stats(client)
    rss_late = _rss_kib(client.server_pid)

    # pygls keeps a future per notification; the server prunes finished ones.
    assert early["requestFutures"] <= 10 and late["requestFutures"] <= 10, (early, late)
    assert late["pendingJobs"] <= 1 and late["tasks"] <= early["tasks"] + 2, (early, late)
    assert rss_late - rss_early < 30 * 1024, f"RSS grew from {rss_early} to {rss_late} KiB"


async def test_a_large_paste_undone_at_once_is_dropped_not_waited_for(start, workspace):
    """The analysis of an outdated version stops itself between statements: the text
    restored after a large paste gets its diagnostics without waiting for the paste's."""
    orders = workspace / "shop" / "orders.py"
    small = orders.read_text()
    client = await start()
    uri = client.open(orders)
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF101", "DF102", "DF202"]
    paste = "".join(
        f'\ndef f{i}(a, b):\n    """Add `a` and `c`."""\n    return a + b\n' for i in range(6000)
    )
    client.replace_all(uri, small + paste)
    await asyncio.sleep(0.5)  # the paste's analysis is under way (it takes seconds)
    client.replace_all(uri, small)
    assert codes(await client.diagnostics_for(uri, version=3)) == ["DF101", "DF102", "DF202"]
    await wait_until(
        lambda: (
            [
                m
                for m in client.log_messages
                if "version 2 dropped: a newer version arrived" in m.message
            ]
            or None
        )
    )
    assert all(p.version != 2 for p in client.published_for(uri))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc for the RSS")
async def test_memory_is_given_back_after_large_pastes_are_undone(start, workspace):
    """Three 1 MB pastes, each analysed and then undone: the server's RSS ends near where
    it began (it stayed 450 MB higher before)."""
    orders = workspace / "shop" / "orders.py"
    small = orders.read_text()
    client = await start(command=STATS_SERVER_COMMAND)
    uri = client.open(orders)
    await client.diagnostics_for(uri, version=1)
    rss_before = _rss_kib(client.server_pid)
    paste = "".join(
        f'\ndef f{i}(a, b):\n    """Add `a` and `b`, {i}."""\n    return a + b\n'
        for i in range(14_000)
    )
    for _ in range(3):
        client.replace_all(uri, small + paste)
        await client.diagnostics_for(uri, timeout=120)
        client.replace_all(uri, small)
        assert codes(await client.diagnostics_for(uri)) == ["DF101", "DF102", "DF202"]
    rss_after = _rss_kib(client.server_pid)
    assert rss_after - rss_before < 120 * 1024, f"RSS grew from {rss_before} to {rss_after} KiB"


# --- raw frames: what no pytest-lsp client would send ---


class RawServer:
    """The real server process, spoken to in bytes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.logged: list[str] = []  # window/logMessage texts

    def send(self, message: dict | None = None, *, body: bytes | None = None, head: bytes = b""):
        """A frame of ``message`` (or of ``body``), its headers ``head`` when given."""
        data = body if body is not None else json.dumps(message).encode()
        self.process.stdin.write((head or b"Content-Length: %d\r\n\r\n" % len(data)) + data)

    async def answer(self, request_id: int) -> dict:
        """The response to ``request_id``; the notifications before it are kept."""
        while True:
            length = 0
            while (line := await self.process.stdout.readline()).strip():
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(await self.process.stdout.readexactly(length))
            if message.get("method") == "window/logMessage":
                self.logged.append(message["params"]["message"])
            if message.get("id") == request_id and "method" not in message:
                return message

    async def ask(self, request_id: int, method: str = "textDocument/hover", **head) -> dict:
        params = {
            "textDocument": {"uri": "file:///nowhere/m.py"},
            "position": {"line": 0, "character": 0},
        }
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return await asyncio.wait_for(self.answer(request_id), TIMEOUT)


@pytest_asyncio.fixture
async def raw_server(tmp_path):
    process = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "DOCFACT_CACHE_DIR": str(tmp_path / "cache")},
    )
    server = RawServer(process)
    initialize = {"capabilities": {}, "processId": None, "rootUri": None}
    server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize})
    await asyncio.wait_for(server.answer(0), TIMEOUT)
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield server
    if process.returncode is None:
        process.kill()
    stderr = (await process.communicate())[1].decode()
    assert "Traceback" not in stderr and "RecursionError" not in stderr, stderr


async def test_a_request_nested_too_deep_is_answered_with_an_error(raw_server):
    deep = {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": []}
    body = json.dumps(deep).replace("[]", "[" * 5000 + "]" * 5000).encode()
    raw_server.send(body=body)
    answer = await asyncio.wait_for(raw_server.answer(1), TIMEOUT)
    assert answer["error"]["code"] == -32600  # InvalidRequest
    assert "nested too deep" in answer["error"]["message"]
    assert (await raw_server.ask(2))["result"] is None  # and the server goes on


@pytest.mark.parametrize(
    "head",
    [
        b"\r\n",
        b"Content-Length: -5\r\n\r\n",
        b"Content-Type: application/json\r\n\r\n",
        b"Content-Length: 99999999999999\r\n\r\n",
    ],
    ids=["no-header", "negative-length", "no-length", "terabytes"],
)
async def test_a_frame_without_a_valid_length_is_skipped_and_the_server_goes_on(raw_server, head):
    hover = {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}}
    raw_server.send(hover, head=head)
    assert (await raw_server.ask(2))["result"] is None  # the next request is answered
    assert any("Content-Length" in line for line in raw_server.logged), raw_server.logged


async def test_requests_after_shutdown_are_invalid_requests(raw_server):
    assert (await raw_server.ask(1, "shutdown"))["result"] is None
    refused = await raw_server.ask(2)
    assert refused["error"]["code"] == -32600
    assert "shut down" in refused["error"]["message"]
    raw_server.send({"jsonrpc": "2.0", "method": "exit"})
    assert await asyncio.wait_for(raw_server.process.wait(), TIMEOUT) == 0
