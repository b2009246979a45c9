"""Settings: initializationOptions, didChangeConfiguration (pushed and pulled), bad keys,
[tool.docfact] in the workspace's pyproject.toml, and files changed on disk."""

from __future__ import annotations

from lsp_harness import EDITOR, USES, capabilities, codes, linked_heading, wait_until
from lsprotocol import types

ALL = ["DF101", "DF102", "DF202"]
# With no settings of the editor's (refused ones): DF102 is a preview rule.
DEFAULTS = ["DF101", "DF202"]


def _change_configuration(client, settings):
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


async def _recheck(client, uri, until):
    """Diagnostics of the (unchanged) document once they satisfy ``until``."""
    return await client.diagnostics_for(uri, until=until)


async def test_initialization_options_ignore_a_rule(start, workspace):
    client = await start(options={"docfact": {**EDITOR, "ignore": ["DF101"]}})
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF102", "DF202"]


async def test_did_change_configuration_with_settings(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ALL

    # The open document is re-checked with the new settings, without any edit.
    _change_configuration(client, {"docfact": {**EDITOR, "ignore": ["DF2"]}})
    await _recheck(client, uri, lambda d: codes(d) == ["DF101", "DF102"])

    _change_configuration(client, {"docfact": EDITOR})
    await _recheck(client, uri, lambda d: codes(d) == ALL)

    # Severity overrides reach the diagnostics too.
    _change_configuration(client, {"docfact": {**EDITOR, "severity": {"DF102": "error"}}})
    diagnostics = await _recheck(
        client, uri, lambda d: any(x.severity == types.DiagnosticSeverity.Error for x in d)
    )
    assert [x.code for x in diagnostics if x.severity == types.DiagnosticSeverity.Error] == [
        "DF102"
    ]


async def test_did_change_configuration_without_settings_pulls_them(start, workspace):
    client = await start(caps=capabilities(configuration=True), configuration={"docfact": EDITOR})
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ALL
    asked = client.configuration_requests
    assert asked >= 1  # at start-up

    client.set_configuration({**EDITOR, "ignore": ["DF102"]}, section="docfact")
    _change_configuration(client, None)
    await _recheck(client, uri, lambda d: codes(d) == ["DF101", "DF202"])
    assert client.configuration_requests > asked

    # `settings: {}` (VS Code's habit when the change is elsewhere) also pulls.
    client.set_configuration(EDITOR, section="docfact")
    _change_configuration(client, {})
    await _recheck(client, uri, lambda d: codes(d) == ALL)


async def test_pulled_configuration_at_start_up_is_used(start, workspace):
    client = await start(
        caps=capabilities(configuration=True),
        configuration={"docfact": {**EDITOR, "ignore": ["DF202"]}},
    )
    uri = client.open(workspace / "shop" / "orders.py")
    await client.diagnostics_for(uri, until=lambda d: codes(d) == ["DF101", "DF102"])


async def test_pulled_configuration_refines_the_initialization_options(start, workspace):
    client = await start(
        options={"docfact": {**EDITOR, "ignore": ["DF101"]}},
        caps=capabilities(configuration=True),
        configuration={"docfact": {}},
    )
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ["DF102", "DF202"]


async def test_unknown_setting_is_reported_and_the_server_keeps_serving(start, workspace):
    client = await start(options={"docfact": {**EDITOR, "frobnicate": True}})
    await wait_until(lambda: bool(client.messages), what="a window/showMessage")
    message = client.messages[0]
    assert message.type == types.MessageType.Error
    assert "frobnicate" in message.message
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == DEFAULTS

    # The same through didChangeConfiguration; the previous settings stay in force.
    _change_configuration(client, {"docfact": {"ignore": ["DF1"], "colour": "blue"}})
    await wait_until(
        lambda: any("colour" in m.message for m in client.messages),
        what="a window/showMessage naming `colour`",
    )
    version = client.replace_all(uri, client.texts[uri] + "\n")
    assert codes(await client.diagnostics_for(uri, version=version)) == DEFAULTS
    # Client-only keys of editor extensions are accepted silently.
    count = len(client.messages)
    _change_configuration(
        client,
        {"docfact": {**EDITOR, "interpreter": ["python3"], "trace": {"server": "off"}}},
    )
    version = client.replace_all(uri, client.texts[uri] + "\n")
    assert codes(await client.diagnostics_for(uri, version=version)) == ALL
    assert len(client.messages) == count


async def test_invalid_value_is_reported(start, workspace):
    client = await start(options={"docfact": {"debounceMs": -5}})
    await wait_until(lambda: bool(client.messages), what="a window/showMessage")
    assert "debounce" in client.messages[0].message
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == DEFAULTS


async def test_pyproject_of_the_workspace_is_honoured(start, workspace):
    (workspace / "pyproject.toml").write_text(
        '[project]\nname = "shop"\n\n[tool.docfact]\nselect = ["DF5"]\n'
    )
    client = await start(options={"docfact": {"debounceMs": 10}})  # no select of the editor's
    uri = client.open(workspace / "shop" / "orders.py")
    diagnostics = await client.diagnostics_for(uri, version=1)
    assert "DF501" in codes(diagnostics)
    df501 = [d for d in diagnostics if d.code == "DF501"]
    assert any("amount" in d.message for d in df501)
    assert df501[0].severity == types.DiagnosticSeverity.Information
    assert linked_heading(df501[0].code_description.href).startswith("## DF501 ")


async def test_pyproject_changed_on_disk(start, workspace):
    client = await start()
    uri = client.open(workspace / "shop" / "orders.py")
    assert codes(await client.diagnostics_for(uri, version=1)) == ALL
    pyproject = workspace / "pyproject.toml"
    pyproject.write_text('[tool.docfact]\nignore = ["DF1"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    await _recheck(client, uri, lambda d: codes(d) == ["DF202"])


async def test_python_file_changed_on_disk(start, workspace):
    uses = workspace / "shop" / "uses.py"
    uses.write_text(USES)
    client = await start()
    uri = client.open(uses)
    # helpers.py (never opened) defines dedupe_items: the workspace index knows it.
    assert codes(await client.diagnostics_for(uri, version=1)) == []

    helpers = workspace / "shop" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("def dedupe_items", "def dedupe_item"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=helpers.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    diagnostics = await _recheck(client, uri, lambda d: codes(d) == ["DF103"])
    assert "dedupe_items()" in diagnostics[0].message

    helpers.write_text(helpers.read_text().replace("def dedupe_item", "def dedupe_items"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=helpers.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    await _recheck(client, uri, lambda d: codes(d) == [])

    # Deleted, its name leaves the index: `dedupe_items()` stands again, by its near
    # miss in another (never opened) file.
    (workspace / "shop" / "legacy.py").write_text("def dedupe_item(items):\n    return items\n")
    helpers.unlink()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=helpers.as_uri(), type=types.FileChangeType.Deleted),
                types.FileEvent(
                    uri=(workspace / "shop" / "legacy.py").as_uri(),
                    type=types.FileChangeType.Created,
                ),
            ]
        )
    )
    await _recheck(client, uri, lambda d: codes(d) == ["DF103"])


async def test_watchers_are_registered_dynamically(start, workspace):
    client = await start(caps=capabilities(watched_dynamic=True))
    await wait_until(lambda: bool(client.registrations), what="client/registerCapability")
    registration = client.registrations[0]
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    globs = [
        w["globPattern"] if isinstance(w, dict) else w.glob_pattern
        for w in (
            registration.register_options["watchers"]
            if isinstance(registration.register_options, dict)
            else registration.register_options.watchers
        )
    ]
    assert "**/*.{py,pyi,java}" in globs and "**/pyproject.toml" in globs
