"""Java documents in the editor: Javadoc findings on the exact word, hover, and the ignore
action writing a Java comment; the workspace's Java files are indexed for cross-file names."""

from __future__ import annotations

import shutil
from pathlib import Path

from lsp_harness import codes, find_position
from lsprotocol import types

JAVA_PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "java_project"


async def test_javadoc_findings_hover_and_ignore_action(start, workspace):
    shutil.copytree(JAVA_PROJECT / "src", workspace / "src")
    client = await start()
    path = workspace / "src" / "com" / "example" / "shop" / "Cart.java"
    uri = client.open(path)
    diagnostics = await client.diagnostics_for(uri, version=1)
    assert {"DF101", "DF207", "DF303"} <= set(codes(diagnostics))
    df101 = next(d for d in diagnostics if d.code == "DF101")
    assert df101.range.start == find_position(client.texts[uri], "quantiy")
    assert df101.data["symbol"] == "com.example.shop.Cart.add"

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=find_position(client.texts[uri], "quantiy", within=2),
        )
    )
    assert "com.example.shop.Cart.add" in hover.contents.value and "✗" in hover.contents.value

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=df101.range,
            context=types.CodeActionContext(diagnostics=[df101]),
        )
    )
    ignore = next(a for a in actions if a.title.startswith("Ignore DF101"))
    version = client.edit(uri, ignore.edit.changes[uri])
    assert (
        "public void add(Item item, int quantity) {  // docfact: ignore[DF101]" in client.texts[uri]
    )
    after = await client.diagnostics_for(uri, version=version)
    assert not [d for d in after if d.data["symbol"] == "com.example.shop.Cart.add"]
