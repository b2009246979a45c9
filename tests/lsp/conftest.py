"""Fixtures of the LSP end-to-end tests; the harness itself is lsp_harness.py."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsp_harness import (
    FAST,
    FIXTURES,
    SERVER_COMMAND,
    TIMEOUT,
    DocfactClient,
    capabilities,
    make_client,
    wait_for_index,
)
from lsprotocol import types
from model_harness import KEY_ENV, SECRET, ScriptedServer
from pytest_lsp import ClientServerConfig


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A tmp workspace folder holding a copy of the ``shop`` fixture package."""
    folder = tmp_path / "ws"
    shutil.copytree(FIXTURES / "shop", folder / "shop")
    return folder


@pytest.fixture
def model_server(monkeypatch, request):
    """A scripted model server, its key in the environment the language server inherits. A
    test module sets how it answers tasks other than judging with ``MODEL_RESPONDER``."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    with ScriptedServer(responder=getattr(request.module, "MODEL_RESPONDER", None)) as server:
        yield server


@pytest_asyncio.fixture
async def start(tmp_path: Path, workspace: Path):
    """``await start(...)`` -> an initialized DocfactClient; shut down after the test.

    ``options`` are the initializationOptions (debounce 10 ms by default), ``caps`` the
    client capabilities, ``configuration`` what the client answers to workspace/
    configuration, ``command`` another server command, ``factory`` another client. Waits
    for the start-up indexing when the client takes work-done progress. At teardown, a
    server that does not shut down and exit cleanly fails the test.
    """
    clients: list[DocfactClient] = []
    cache = tmp_path / "cache"

    async def _start(
        *,
        options: Any = FAST,
        caps: types.ClientCapabilities | None = None,
        folders: list[Path] | None = None,
        configuration: dict | None = None,
        command: list[str] | None = None,
        wait_indexed: bool = True,
        factory: Callable[[], DocfactClient] | None = None,
    ) -> DocfactClient:
        env = {**os.environ, "DOCFACT_CACHE_DIR": str(cache), "PYTHONUNBUFFERED": "1"}
        config = ClientServerConfig(
            server_command=command or SERVER_COMMAND,
            client_factory=factory or make_client,
            server_env=env,
        )
        client = await config.start()
        clients.append(client)
        client.server_pid = client._server.pid if client._server else None
        if configuration is not None:
            client.set_configuration(configuration)
        folders = [workspace] if folders is None else folders
        caps = caps or capabilities()
        client.init_result = await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=caps,
                    workspace_folders=[
                        types.WorkspaceFolder(uri=f.resolve().as_uri(), name=f.name)
                        for f in folders
                    ]
                    or None,
                    root_uri=folders[0].resolve().as_uri() if folders else None,
                    initialization_options=options,
                )
            ),
            TIMEOUT,
        )
        if wait_indexed and folders and caps.window and caps.window.work_done_progress:
            await wait_for_index(client)
        return client

    yield _start

    problems = []
    for client in clients:
        problems += await _stop(client)
    assert not problems, f"the server did not shut down cleanly: {problems}"


async def _stop(client: DocfactClient) -> list[str]:
    """shutdown + exit; a server that fails either is killed and reported."""
    problems = []
    server = client._server
    try:
        if server is not None and server.returncode is None:
            try:
                await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
            except Exception as error:
                problems.append(f"shutdown: {error}")
            client.exit(None)
            try:
                await asyncio.wait_for(server.wait(), TIMEOUT)
            except asyncio.TimeoutError:
                problems.append("the server did not exit after `exit`")
                server.kill()
                await server.wait()
            if server.returncode not in (0, None) and not problems:
                problems.append(f"exit status {server.returncode}")
    finally:
        await asyncio.wait_for(client.stop(), TIMEOUT)
    return problems
