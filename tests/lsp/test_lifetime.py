"""The server ends with its client: when its stdin closes (the editor restarted it or
crashed) and when the client's process named in ``initialize`` ends; none of its
processes (analysis workers included) is left behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from lsp_harness import FIXTURES, SERVER_COMMAND

EXIT_S = 10.0  # the bound


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream) -> dict:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def _started(workspace: Path, tmp_path: Path, process_id: int | None) -> tuple:
    """A server that has answered ``initialize`` and been told ``initialized``, the
    marker in its environment (every process it starts inherits it)."""
    marker = uuid.uuid4().hex
    env = {**os.environ, "DOCFACT_CACHE_DIR": str(tmp_path / "cache"), "DOCFACT_TEST_MARK": marker}
    server = subprocess.Popen(
        SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    server.stdin.write(
        _frame(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "processId": process_id,
                    "rootUri": workspace.resolve().as_uri(),
                    "capabilities": {},
                },
            }
        )
    )
    server.stdin.flush()
    while "id" not in (answer := _read_message(server.stdout)):
        pass  # a notification (the log) before the answer
    assert answer["id"] == 1 and "capabilities" in answer["result"]
    server.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    server.stdin.flush()
    return server, marker


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue  # gone meanwhile, or not ours to read
            if f"DOCFACT_TEST_MARK={marker}".encode() in environ:
                found.append(int(entry.name))
    return found


def _gone(marker: str, server: subprocess.Popen) -> float:
    """Seconds until the server and every process it started have ended."""
    began = time.monotonic()
    server.wait(timeout=EXIT_S)
    while _processes_with(marker):
        assert time.monotonic() - began < EXIT_S, f"left behind: {_processes_with(marker)}"
        time.sleep(0.05)
    return time.monotonic() - began


def _busy_workspace(tmp_path: Path) -> Path:
    """Enough files that indexing runs in worker processes."""
    workspace = tmp_path / "ws"
    shutil.copytree(FIXTURES / "shop", workspace / "shop")
    helpers = (workspace / "shop" / "helpers.py").read_text()
    for i in range(60):
        (workspace / "shop" / f"copy{i}.py").write_text(helpers)
    return workspace


def test_the_server_ends_when_its_stdin_closes(tmp_path):
    server, marker = _started(_busy_workspace(tmp_path), tmp_path, os.getpid())
    server.stdin.close()
    assert _gone(marker, server) < EXIT_S
    assert server.returncode == 1  # no shutdown request came: the protocol's exit code


def test_the_server_ends_when_the_client_process_ends(tmp_path):
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        server, marker = _started(_busy_workspace(tmp_path), tmp_path, editor.pid)
        editor.kill()
        editor.wait()
        assert _gone(marker, server) < EXIT_S
    finally:
        editor.kill()
        server.stdin.close()
