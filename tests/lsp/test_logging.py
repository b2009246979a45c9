"""`docfact serve -v --log-file PATH`: what a user sends with a bug report."""

from __future__ import annotations

import sys

from lsp_harness import codes

from docfact import __version__


async def test_verbose_log_file_has_the_version_the_documents_and_the_messages(
    start, workspace, tmp_path
):
    log = tmp_path / "docfact.log"
    client = await start(
        command=[sys.executable, "-m", "docfact", "serve", "-v", "--log-file", str(log)]
    )
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF101", "DF102", "DF202"]
    text = log.read_text()
    assert f"docfact {__version__} language server" in text
    assert f"{uri} version 1: 3 diagnostics" in text
    assert "textDocument/didOpen" in text  # the protocol itself, with -v


async def test_without_verbose_the_log_file_has_no_protocol(start, workspace, tmp_path):
    log = tmp_path / "docfact.log"
    client = await start(command=[sys.executable, "-m", "docfact", "serve", "--log-file", str(log)])
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, version=1)
    text = log.read_text()
    assert f"docfact {__version__} language server" in text
    assert "didOpen" not in text and "diagnostics" not in text
