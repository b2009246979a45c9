"""The VS Code extension's restricted mode follows config.py: the settings a repository may
not choose (``Spec.trusted``) and the commands the extension runs are restricted in an
untrusted workspace, and the bounds of numbers are declared as config.py reads them."""

import json
from dataclasses import fields
from pathlib import Path

from docfact.config import Settings, trusted_keys

PACKAGE = Path(__file__).resolve().parents[2] / "vscode-client" / "package.json"
# The extension's own settings that choose the program it starts.
RUNS_A_PROGRAM = {"docfact.path", "docfact.interpreter", "docfact.serverArgs"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _declared() -> dict:
    return json.loads(PACKAGE.read_text(encoding="utf-8"))


def test_restricted_mode_withholds_the_trusted_only_settings_and_the_server_command():
    package = _declared()
    declared = package["contributes"]["configuration"]["properties"]
    expected = set(RUNS_A_PROGRAM)
    for key in trusted_keys():
        head, _, tail = key.rpartition(".")
        if tail == "*":
            expected |= {k for k in declared if k.startswith(f"docfact.{head}.")}
        elif (name := f"docfact.{head + '.' if head else ''}{_camel(tail)}") in declared:
            expected.add(name)
    untrusted = package["capabilities"]["untrustedWorkspaces"]
    assert untrusted["supported"] == "limited" and untrusted["description"]
    assert set(untrusted["restrictedConfigurations"]) == expected
    assert "docfact.llm.apiKeyEnv" in expected and "docfact.cacheDir" in expected


def test_bounded_numbers_declare_their_maximum():
    declared = _declared()["contributes"]["configuration"]["properties"]
    bounded = 0
    for top in fields(Settings):
        inner = fields(top.default) if top.metadata["spec"].kind == "table" else [top]
        for setting in inner:
            spec = setting.metadata["spec"]
            prefix = f"{top.name}." if setting is not top else ""
            key = f"docfact.{prefix}{_camel(setting.name)}"
            if spec.editor and spec.kind in ("int", "number") and key in declared:
                assert declared[key].get("maximum") == spec.most, key
                bounded += spec.most is not None
    assert bounded >= 10
