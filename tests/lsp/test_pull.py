"""Pull diagnostics (LSP 3.17): textDocument/diagnostic and workspace/diagnostic."""

from __future__ import annotations

import asyncio

from lsp_harness import EDITOR, USES, capabilities, codes, linked_heading, wait_until
from lsprotocol import types


def _document_diagnostic(client, uri, previous=None):
    return client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            identifier="docfact",
            previous_result_id=previous,
        )
    )


async def test_document_diagnostic_reports_and_unchanged(start, workspace):
    client = await start(caps=capabilities(pull=True, refresh=True))
    provider = client.init_result.capabilities.diagnostic_provider
    assert provider is not None and provider.workspace_diagnostics is True
    uri = client.open(workspace / "shop" / "orders.py")

    report = await _document_diagnostic(client, uri)
    assert report.kind == "full"
    assert report.result_id
    assert codes(report.items) == ["DF101", "DF102", "DF202"]
    df101 = next(d for d in report.items if d.code == "DF101")
    assert linked_heading(df101.code_description.href).startswith("## DF101 ")
    assert df101.data["fix"]["replacement"] == "amount"

    unchanged = await _document_diagnostic(client, uri, previous=report.result_id)
    assert unchanged.kind == "unchanged"
    assert unchanged.result_id == report.result_id

    # A stale result id gets a full report.
    again = await _document_diagnostic(client, uri, previous="not-a-result-id")
    assert again.kind == "full" and again.result_id == report.result_id

    # After an edit: a new result id and the new findings.
    version = client.replace_all(uri, client.texts[uri].replace("ammount", "amount"))
    edited = await _document_diagnostic(client, uri, previous=report.result_id)
    assert edited.kind == "full"
    assert edited.result_id != report.result_id
    assert codes(edited.items) == ["DF102", "DF202"]
    assert version == 2

    # A pull client gets no pushed diagnostics.
    await asyncio.sleep(0.2)
    assert client.published_for(uri) == []


async def test_workspace_diagnostic_lists_closed_files(start, workspace):
    client = await start(caps=capabilities(pull=True, refresh=True))
    # Indexing finished: the server asks the client to pull again.
    await wait_until(
        lambda: client.diagnostic_refresh_count >= 1, what="workspace/diagnostic/refresh"
    )
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    by_uri = {item.uri: item for item in report.items}
    shop = workspace.resolve() / "shop"
    assert set(by_uri) == {
        (shop / name).as_uri() for name in ("__init__.py", "orders.py", "helpers.py")
    }
    helpers = by_uri[(shop / "helpers.py").as_uri()]
    assert helpers.kind == "full" and helpers.result_id
    assert codes(helpers.items) == ["DF101"]
    itemz = helpers.items[0]
    assert itemz.range.start == types.Position(line=8, character=8)
    assert itemz.source == "docfact" and linked_heading(itemz.code_description.href).startswith(
        "## DF101 "
    )
    assert codes(by_uri[(shop / "orders.py").as_uri()].items) == ["DF101", "DF102", "DF202"]
    assert len(by_uri[(shop / "__init__.py").as_uri()].items) == 0

    # Previous result ids -> unchanged reports.
    previous = [types.PreviousResultId(uri=item.uri, value=item.result_id) for item in report.items]
    again = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=previous)
    )
    assert {item.kind for item in again.items} == {"unchanged"}

    # An open document is reported by textDocument/diagnostic, not here.
    uri = client.open(shop / "orders.py")
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    assert uri not in {item.uri for item in report.items}
    assert (shop / "helpers.py").as_uri() in {item.uri for item in report.items}


async def test_configuration_change_asks_for_a_new_pull(start, workspace):
    client = await start(caps=capabilities(pull=True, refresh=True))
    await wait_until(lambda: client.diagnostic_refresh_count >= 1, what="a first refresh")
    count = client.diagnostic_refresh_count
    uri = client.open(workspace / "shop" / "orders.py")
    before = await _document_diagnostic(client, uri)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"docfact": {**EDITOR, "ignore": ["DF1"]}})
    )
    await wait_until(lambda: client.diagnostic_refresh_count > count, what="another refresh")
    after = await _document_diagnostic(client, uri, previous=before.result_id)
    assert after.kind == "full" and codes(after.items) == ["DF202"]


async def test_pulling_a_closed_file_does_not_pin_its_contents(start, workspace):
    """textDocument/diagnostic for a file that is not open reads the disk; a later change
    on disk must still be seen by the files that depend on it."""
    (workspace / "shop" / "uses.py").write_text(USES)
    client = await start(caps=capabilities(pull=True))
    helpers = workspace / "shop" / "helpers.py"
    closed = await _document_diagnostic(client, helpers.resolve().as_uri())
    assert codes(closed.items) == ["DF101"]

    uri = client.open(workspace / "shop" / "uses.py")
    assert codes((await _document_diagnostic(client, uri)).items) == []
    helpers.write_text(helpers.read_text().replace("def dedupe_items", "def dedupe_item"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=helpers.resolve().as_uri(), type=types.FileChangeType.Changed)
            ]
        )
    )

    async def pulled():
        return codes((await _document_diagnostic(client, uri)).items)

    deadline = asyncio.get_running_loop().time() + 10
    while await pulled() != ["DF103"]:
        assert asyncio.get_running_loop().time() < deadline, await pulled()
        await asyncio.sleep(0.05)


async def test_push_client_with_workspace_diagnostics_sees_closed_files(start, workspace):
    client = await start(options={"docfact": {**EDITOR, "workspaceDiagnostics": True}})
    uri = (workspace / "shop" / "orders.py").resolve().as_uri()
    await wait_until(lambda: bool(client.published_for(uri)), what="diagnostics of a closed file")
    assert codes(client.published_for(uri)[-1].diagnostics) == ["DF101", "DF102", "DF202"]
    opened = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(opened, version=1)
    client.close(opened)
    await wait_until(
        lambda: (
            codes(client.published_for(uri)[-1].diagnostics) == ["DF101", "DF102", "DF202"]
            and client.published_for(uri)[-1].version is None
        ),
        what="the file on disk reported again after closing",
    )
