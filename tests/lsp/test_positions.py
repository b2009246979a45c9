"""Positions in the negotiated encoding: UTF-16 (the default), UTF-8 and UTF-32.

The wrong word comes after an emoji (outside the BMP: 2 UTF-16 units, 4 UTF-8 bytes),
CJK text (3 UTF-8 bytes each) and a tab, all on the same line.
"""

from __future__ import annotations

import pytest
from lsp_harness import apply_edits, capabilities, codes, find_position
from lsprotocol import types

TEXT = '''"""Reservations."""


def reserve(count: int, tag: str = "📦") -> bool:
    """Reserve units.

    Ready 📦 在庫\tthe `cuont` must fit.

    Args:
        count: How many.
        tag: A label.
    """
    return count > 0
'''

LINE = 6  # 0-based line of the sentence
PREFIX = "    Ready 📦 在庫\tthe `"
# Hand-counted columns of `cuont` (start, end) in each encoding.
EXPECTED = {
    "utf-16": (21, 26),  # 10 + 2 (emoji) + 1 + 2 + 1 + 5
    "utf-8": (27, 32),  # 10 + 4 (emoji) + 1 + 6 + 1 + 5
    "utf-32": (20, 25),  # code points
}
ENCODINGS = {"utf-16": None, "utf-8": ["utf-8", "utf-16"], "utf-32": ["utf-32"]}


def test_hand_counted_columns_agree_with_the_encodings():
    assert TEXT.splitlines()[LINE].startswith(PREFIX + "cuont`")
    assert EXPECTED["utf-16"][0] == len(PREFIX.encode("utf-16-le")) // 2
    assert EXPECTED["utf-8"][0] == len(PREFIX.encode("utf-8"))
    assert EXPECTED["utf-32"][0] == len(PREFIX)


@pytest.mark.parametrize("encoding", list(ENCODINGS))
async def test_ranges_hover_and_edits_use_the_negotiated_encoding(start, workspace, encoding):
    client = await start(caps=capabilities(encodings=ENCODINGS[encoding]))
    assert client.init_result.capabilities.position_encoding == encoding
    path = workspace / "shop" / "reserve.py"
    path.write_text(TEXT, encoding="utf-8")
    uri = client.open(path)
    diagnostics = await client.diagnostics_for(uri, version=1)
    assert codes(diagnostics) == ["DF102"]
    begin, end = EXPECTED[encoding]
    assert diagnostics[0].range == types.Range(
        start=types.Position(line=LINE, character=begin),
        end=types.Position(line=LINE, character=end),
    )

    # A hover in the middle of `cuont`, in the same encoding, is on the docstring.
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=LINE, character=begin + 1),
        )
    )
    assert hover is not None and "cuont" in hover.contents.value

    # The "ignore" quick fix ends the `def` line, whose default value holds an emoji:
    # applied in the same encoding, the comment lands exactly at the end of the line.
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    ignore = next(a for a in actions if a.title == "Ignore DF102 for `reserve`")
    fixed = apply_edits(TEXT, ignore.edit.changes[uri], encoding)
    assert 'def reserve(count: int, tag: str = "📦") -> bool:  # docfact: ignore[DF102]\n' in fixed
    version = client.edit(uri, ignore.edit.changes[uri], encoding)
    assert client.texts[uri] == fixed
    assert len(await client.diagnostics_for(uri, version=version)) == 0


@pytest.mark.parametrize("encoding", ["utf-8", "utf-32"])
async def test_incremental_edits_in_the_negotiated_encoding(start, workspace, encoding):
    """The server applies the client's edits in the negotiated units too."""
    client = await start(caps=capabilities(encodings=[encoding]))
    path = workspace / "shop" / "reserve.py"
    path.write_text(TEXT, encoding="utf-8")
    uri = client.open(path)
    await client.diagnostics_for(uri, version=1)
    # Replace `cuont` by `count` (a parameter): a range after the emoji, CJK and tab.
    begin = find_position(TEXT, "cuont", encoding=encoding)
    end = types.Position(line=begin.line, character=begin.character + 5)
    version = client.edit(
        uri, [types.TextEdit(range=types.Range(start=begin, end=end), new_text="count")], encoding
    )
    assert "the `count` must fit" in client.texts[uri]
    assert len(await client.diagnostics_for(uri, version=version)) == 0


async def test_crlf_line_endings(start, workspace):
    text = TEXT.replace("\n", "\r\n")
    client = await start()
    path = workspace / "shop" / "reserve.py"
    path.write_bytes(text.encode("utf-8"))
    uri = client.open(path, text)
    diagnostics = await client.diagnostics_for(uri, version=1)
    begin, end = EXPECTED["utf-16"]
    assert diagnostics[0].range == types.Range(
        start=types.Position(line=LINE, character=begin),
        end=types.Position(line=LINE, character=end),
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    ignore = next(a for a in actions if a.title == "Ignore DF102 for `reserve`")
    version = client.edit(uri, ignore.edit.changes[uri])
    assert "-> bool:  # docfact: ignore[DF102]\r\n" in client.texts[uri]
    assert len(await client.diagnostics_for(uri, version=version)) == 0
