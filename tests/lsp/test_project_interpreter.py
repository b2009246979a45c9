"""The editor passes the project's interpreter (VS Code: the Python extension's active
environment) as ``projectPython``; in a trusted workspace it is the interpreter SONAR runs the
project's functions with (``sonar.python``) unless a setting chose one; an untrusted
workspace's is ignored, since it is usually the repository's own program."""

from __future__ import annotations

import asyncio
import time

from lsp_harness import FAST, STATS_SERVER_COMMAND, TIMEOUT, wait_until
from lsprotocol import types

PROJECT_PYTHON = "/home/user/envs/shop/bin/python"


def _options(trusted: bool, **settings: object) -> dict:
    return {"docfact": {**FAST["docfact"], **settings}, "trustedWorkspace": trusted}


async def _sonar_python(client, workspace) -> str | None:
    """The interpreter the server would run a function of the workspace with."""
    uri = (workspace / "shop" / "orders.py").resolve().as_uri()
    found = await client.protocol.send_request_async("docfact/_testSettings", {"uri": uri})
    return found["sonarPython"] if isinstance(found, dict) else found.sonarPython


async def test_a_trusted_workspace_scores_with_the_editor_s_interpreter(start, workspace):
    client = await start(
        command=STATS_SERVER_COMMAND, options=_options(True, projectPython=PROJECT_PYTHON)
    )
    assert await _sonar_python(client, workspace) == PROJECT_PYTHON
    # Another environment selected in the editor: the next settings carry it.
    other = "/home/user/envs/py312/bin/python"
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"docfact": {"projectPython": other}})
    )
    await _until_sonar_python(client, workspace, other)
    # The project's own `[tool.docfact.sonar] python` (a trusted workspace's) wins.
    pyproject = workspace / "pyproject.toml"
    pyproject.write_text('[tool.docfact.sonar]\npython = "tools/python"\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    await _until_sonar_python(client, workspace, "tools/python")


async def _until_sonar_python(client, workspace, expected: str) -> None:
    """Until the server scores with ``expected`` (a notification's work runs as a task)."""
    deadline = time.monotonic() + TIMEOUT
    while await _sonar_python(client, workspace) != expected:
        assert time.monotonic() < deadline, f"the settings never came to use {expected}"
        await asyncio.sleep(0.01)


async def test_an_untrusted_workspace_ignores_the_editor_s_interpreter(start, workspace):
    client = await start(
        command=STATS_SERVER_COMMAND, options=_options(False, projectPython=PROJECT_PYTHON)
    )
    assert await _sonar_python(client, workspace) is None  # the .venv default, or docfact's
    assert any(
        PROJECT_PYTHON in m.message and "is not used" in m.message for m in client.log_messages
    )


async def test_a_project_python_that_is_not_a_path_is_said(start, workspace):
    client = await start(command=STATS_SERVER_COMMAND, options=_options(True, projectPython=3))
    await wait_until(
        lambda: any("projectPython must be" in m.message for m in client.messages),
        what="the setting's error shown",
    )
    assert await _sonar_python(client, workspace) is None
