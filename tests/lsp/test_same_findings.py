"""The command line and the editor show the same findings for the same settings: the
rules' (saying where the model agrees with them), the project-wide rules' and the model
judge's, with `select`, `ignore`, `per-file-ignores`, `severity` and
`# docfact: ignore[...]` applied alike (the model is the scripted OpenAI-compatible
server)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from lsp_harness import FAST, capabilities, wait_until
from lsprotocol import types
from model_harness import KEY_ENV, MODEL_WAIT, SECRET

JUDGED = '''\
def restock(item, amount):
    """Add stock to an item.

    It also emails WRONGFUNC the warehouse.
    The OFFTOPIC weather is nice.
    It asks the BADNAME helper.

    Args:
        item: The item, a BADTYPE object.
        ammount: How many BADNAME units.
    """
    item.quantity += amount
    return item


def reserve(item):  # docfact: ignore[DF102]
    """Reserve `BADNAME_stock` for the item."""
    return item
'''

PYPROJECT = """\
[tool.docfact]
select = ["DF102"]  # as the editor tests' settings select it
ignore = ["DF401"]
per-file-ignores = {{"shop/judged.py" = ["DF206"], "shop/helpers.py" = ["DF1"]}}

[tool.docfact.severity]
DF301 = "error"
DF104 = "hint"
DF202 = "hint"

[tool.docfact.llm]
model = "openai/test-model"
api-base = "{base}"
api-key-env = "{key_env}"
timeout-s = 5
"""

SEVERITY_NAMES = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "information",
    types.DiagnosticSeverity.Hint: "hint",
}


def _cli_findings(workspace: Path, cache: Path) -> dict[str, list[tuple]]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "docfact",
            "check",
            str(workspace / "shop"),
            "--format",
            "json",
            "--trust-project",  # the model is the workspace's
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, KEY_ENV: SECRET, "DOCFACT_CACHE_DIR": str(cache)},
    )
    assert "Traceback" not in done.stderr, done.stderr
    found: dict[str, list[tuple]] = {}
    for d in json.loads(done.stdout)["diagnostics"]:
        found.setdefault(Path(d["path"]).resolve().as_uri(), []).append(
            (
                d["code"],
                d["severity"],
                d["message"],
                (d["start"]["line"], d["start"]["column"]),
                (d["end"]["line"], d["end"]["column"]),
                tuple((Path(e["path"]).resolve().as_uri(), e["line"]) for e in d["evidence"]),
            )
        )
    return {uri: sorted(items) for uri, items in found.items()}


def _editor_findings(diagnostics) -> list[tuple]:
    """The same shape from LSP diagnostics (ASCII text: UTF-16 columns are code points)."""
    return sorted(
        (
            d.code,
            SEVERITY_NAMES[d.severity],
            d.message,
            (d.range.start.line + 1, d.range.start.character + 1),
            (d.range.end.line + 1, d.range.end.character + 1),
            tuple(
                (r.location.uri, r.location.range.start.line + 1)
                for r in d.related_information or ()
            ),
        )
        for d in diagnostics
    )


async def _pull(client, uri):
    return await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), identifier="docfact"
        )
    )


async def test_the_cli_and_the_editor_show_the_same_findings(
    start, workspace, model_server, tmp_path
):
    (workspace / "pyproject.toml").write_text(
        PYPROJECT.format(base=model_server.base_url, key_env=KEY_ENV)
    )
    judged = workspace / "shop" / "judged.py"
    judged.write_text(JUDGED)
    expected = _cli_findings(workspace, tmp_path / "cli-cache")
    judged_uri = judged.resolve().as_uri()
    codes = {item[0]: item[1] for item in expected[judged_uri]}
    # The settings did their work on the model's findings as on the rules':
    assert codes["DF301"] == "error" and codes["DF104"] == "hint" and codes["DF101"] == "warning"
    # The model finds the misspelt parameter too: the rule's finding says it agrees.
    assert next(m for c, _, m, *_ in expected[judged_uri] if c == "DF101").endswith(
        "(the model agrees)"
    )
    assert "DF401" not in codes and "DF206" not in codes  # ignored, ignored for this file
    reserve_line = JUDGED.splitlines().index('    """Reserve `BADNAME_stock` for the item."""') + 1
    # The comment silences DF102, and the model does not raise the sentence again as DF104.
    assert not [item for item in expected[judged_uri] if item[3][0] == reserve_line]

    client = await start(
        caps=capabilities(pull=True, refresh=True),
        options={**FAST, "trustedWorkspace": True},  # the model is the workspace's
    )
    await wait_until(lambda: client.diagnostic_refresh_count >= 1, what="the workspace indexed")
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    closed = {
        item.uri: _editor_findings(item.items) for item in report.items if item.uri != judged_uri
    }
    assert closed == {uri: expected.get(uri, []) for uri in closed}
    assert any(
        evidence for items in closed.values() for *_, evidence in items
    )  # relatedInformation

    uri = client.open(judged)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    shown: list[tuple] = []

    async def model_findings_arrived() -> bool:
        shown[:] = _editor_findings((await _pull(client, uri)).items)
        return "DF301" in {item[0] for item in shown}

    deadline = asyncio.get_running_loop().time() + MODEL_WAIT
    while not await model_findings_arrived():
        assert asyncio.get_running_loop().time() < deadline, f"no model findings: {shown}"
        await asyncio.sleep(0.1)
    assert shown == expected[judged_uri]
