"""The language server takes the settings that choose where code is sent (llm.*, ...) from a
workspace's pyproject.toml only when the client says the user trusts the workspace: a real
server, the scripted model server on 127.0.0.1 configured only by the workspace."""

from __future__ import annotations

from lsp_harness import FAST, capabilities, wait_until
from lsprotocol import types
from model_harness import KEY_ENV, MODEL_WAIT

SOURCE = '''\
def restock(item, amount):
    """Add stock to an item.

    It also emails WRONGFUNC the warehouse.
    """
    item.quantity += amount
    return item
'''

PYPROJECT = """\
[tool.docfact.llm]
model = "openai/test-model"
api-base = "{base}"
api-key-env = "{key_env}"
timeout-s = 10
"""
SAID = "may not choose where code is sent"


def _open_and_save(client, workspace):
    path = workspace / "shop" / "judged.py"
    path.write_text(SOURCE)
    uri = client.open(path)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return uri


def _configure(workspace, model_server):
    (workspace / "pyproject.toml").write_text(
        PYPROJECT.format(base=model_server.base_url, key_env=KEY_ENV)
    )


async def test_an_untrusted_workspace_sends_nothing_and_says_why_once(
    start, workspace, model_server
):
    _configure(workspace, model_server)
    client = await start()
    uri = _open_and_save(client, workspace)
    await client.diagnostics_for(uri, version=1)
    other = client.open(workspace / "shop" / "orders.py")  # the same folder: not said again
    await client.diagnostics_for(other, version=1)
    await client.diagnostics_for(uri)  # the check after the save
    assert model_server.requests == []
    shown = [m for m in client.messages if SAID in m.message]
    assert len(shown) == 1 and shown[0].type == types.MessageType.Warning
    assert "llm.model, llm.api_base, llm.api_key_env, llm.timeout_s" in shown[0].message
    assert "Manage Workspace Trust" in shown[0].message
    assert len([m for m in client.log_messages if SAID in m.message]) == 1


async def test_a_trusted_workspace_configures_the_model(start, workspace, model_server):
    _configure(workspace, model_server)
    client = await start(options={**FAST, "trustedWorkspace": True})
    uri = _open_and_save(client, workspace)

    def judged() -> bool:
        latest = client.published_for(uri)
        return bool(latest) and "DF301" in [d.code for d in latest[-1].diagnostics]

    await wait_until(judged, what="the model's DF301", timeout=MODEL_WAIT)
    assert model_server.requests
    assert not [m for m in client.messages if SAID in m.message]


async def test_trust_is_never_taken_from_the_settings_a_workspace_may_hold(
    start, workspace, model_server
):
    _configure(workspace, model_server)
    client = await start(
        options={"docfact": {**FAST["docfact"], "trustedWorkspace": True}},
        caps=capabilities(configuration=True),
        configuration={"docfact": {"trustedWorkspace": True}},
    )
    uri = _open_and_save(client, workspace)
    await client.diagnostics_for(uri, version=1)
    await client.diagnostics_for(uri)
    assert model_server.requests == []
    assert [m for m in client.messages if SAID in m.message]
