"""Names the project's Sphinx pages define, in the editor (issue 22): a reference to one
resolves, a typo of one is shown with the page as its evidence, and a page edited on disk
is read again."""

from __future__ import annotations

from lsp_harness import codes
from lsprotocol import types

SOURCE = '''def build(endpoint):
    """Build a URL with :data:`SERVER_NAME`; see :data:`SERVR_NAME`."""
    return endpoint
'''


async def test_a_typo_of_a_documented_name_and_the_page_read_again(start, workspace):
    page = workspace / "docs" / "config.rst"
    page.parent.mkdir()
    page.write_text("Configuration\n=============\n\n.. py:data:: SERVER_NAME\n")
    (workspace / "shop" / "urls.py").write_text(SOURCE)
    (workspace / "pyproject.toml").write_text('[project]\nname = "shop"\n')  # its root
    client = await start()
    uri = client.open(workspace / "shop" / "urls.py")
    [found] = await client.diagnostics_for(uri, version=1, until=lambda d: codes(d) == ["DF107"])
    assert "`SERVER_NAME`" in found.message and "SERVR_NAME" in found.message
    assert found.related_information[0].location.uri == page.resolve().as_uri()
    assert found.related_information[0].location.range.start.line == 3

    # The page now documents the name too: the finding goes, with no edit of the source.
    page.write_text(page.read_text() + "\n.. py:data:: SERVR_NAME\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=page.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    await client.diagnostics_for(uri, until=lambda d: codes(d) == [])
