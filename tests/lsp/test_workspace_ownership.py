"""The server never analyses what the user does not own: virtual environments (any folder
with a pyvenv.cfg), site-packages, node_modules, .git, and what .gitignore or ``exclude``
leave out, whether the files are found at start-up, arrive as file events, or are opened."""

from __future__ import annotations

import time
from pathlib import Path

from lsp_harness import EDITOR, TIMEOUT, capabilities, codes, find_position, wait_until
from lsprotocol import types

FOUND = '''"""A module."""


def dedupe(items):
    """Drop repeats.

    Args:
        itemz: A misspelt parameter.
    """
    return items
'''


def _write(path: Path, text: str = FOUND) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _not_owned(workspace: Path, tag: str, count: int) -> list[Path]:
    """Files with a finding in every kind of folder that is not the user's own."""
    (workspace / ".venv").mkdir(exist_ok=True)
    (workspace / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    _write(workspace / "tools-env" / "pyvenv.cfg", "home = /usr/bin\n")
    (workspace / ".gitignore").write_text("generated/\n")
    _write(workspace / "pyproject.toml", '[tool.docfact]\nexclude = ["scratch"]\n')
    files = [
        workspace / ".venv" / "lib" / "python3.11" / "site-packages" / "pkg" / f"m{tag}{i}.py"
        for i in range(count)
    ]
    files += [
        workspace / "tools-env" / "lib" / f"t{tag}.py",
        workspace / "generated" / f"g{tag}.py",
        workspace / "scratch" / f"s{tag}.py",
        workspace / "node_modules" / "x" / f"n{tag}.py",
        workspace / ".git" / "hooks" / f"h{tag}.py",
        workspace / "vendor" / "lib" / "site-packages" / f"v{tag}.py",
    ]
    return [_write(f) for f in files]


def _created(paths: list[Path]) -> types.DidChangeWatchedFilesParams:
    return types.DidChangeWatchedFilesParams(
        changes=[
            types.FileEvent(uri=p.resolve().as_uri(), type=types.FileChangeType.Created)
            for p in paths
        ]
    )


async def _workspace_uris(client) -> dict[str, list]:
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    return {item.uri: item.items for item in report.items}


async def test_environments_and_ignored_files_are_never_reported(start, workspace):
    _not_owned(workspace, "a", 3)
    client = await start(caps=capabilities(pull=True, refresh=True))
    shop = workspace.resolve() / "shop"
    expected = {(shop / n).as_uri() for n in ("__init__.py", "orders.py", "helpers.py")}
    assert set(await _workspace_uris(client)) == expected

    # 40 files appear in the environment (a package installed), with one of the user's.
    later = _not_owned(workspace, "b", 40)
    extra = _write(shop / "extra.py")
    client.workspace_did_change_watched_files(_created([*later, extra]))

    async def extra_reported():
        found = await _workspace_uris(client)
        return found if extra.resolve().as_uri() in found else None

    deadline = time.monotonic() + TIMEOUT
    found = await extra_reported()
    while found is None:
        assert time.monotonic() < deadline, "the new file of the user's was never reported"
        found = await extra_reported()
    assert codes(found[extra.resolve().as_uri()]) == ["DF101"]
    assert set(found) == expected | {extra.resolve().as_uri()}

    # A library file opened in the editor ("go to definition") is not analysed either.
    library = client.open(later[0])
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=library))
    )
    assert report.kind == "full" and not report.items
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=library),
            position=find_position(FOUND, "itemz"),
        )
    )
    assert hover is None


async def test_a_push_client_sees_nothing_of_an_environment(start, workspace):
    client = await start(options={"docfact": {**EDITOR, "workspaceDiagnostics": True}})
    extra = _write(workspace / "shop" / "extra.py")
    written = _not_owned(workspace, "c", 40)  # with the .gitignore and pyproject.toml
    settings = [workspace / ".gitignore", workspace / "pyproject.toml"]
    client.workspace_did_change_watched_files(_created([*settings, *written, extra]))
    extra_uri = extra.resolve().as_uri()
    await wait_until(
        lambda: bool(client.published_for(extra_uri)), what="the user's new file's diagnostics"
    )
    site = workspace / ".venv" / "lib" / "python3.11" / "site-packages"
    opened = client.open(site / "pkg" / "mc0.py")
    mine = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(mine)
    published = {p.uri for p in client.published if p.diagnostics}
    shop = workspace.resolve() / "shop"
    assert published <= {(shop / n).as_uri() for n in ("orders.py", "helpers.py", "extra.py")}
    assert opened not in published


async def test_a_burst_of_environment_files_leaves_the_server_answering(start, workspace):
    """3,000 files created in .venv at once (18,000 in the issue): hovers and edits are
    answered at once, not after the burst (the events were analysed one by one before)."""
    burst = _not_owned(workspace, "d", 3000)
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri)
    client.workspace_did_change_watched_files(_created(burst))
    began = time.monotonic()
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=find_position(client.texts[uri], "def ", within=4),
        )
    )
    client.replace_all(uri, client.texts[uri].replace("ammount", "amount"))
    await client.diagnostics_for(uri)
    answered = time.monotonic() - began
    assert hover is not None
    assert answered < 3.0, f"the server was busy for {answered:.1f} s"
