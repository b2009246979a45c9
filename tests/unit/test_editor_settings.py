"""The VS Code extension mirrors docfact's settings table (config.py): the settings it
passes on (src/settings.ts) and those it declares (package.json) are exactly the ones the
table shows in the editor, with the same types, choices, bounds and defaults."""

import json
import re
from dataclasses import fields
from pathlib import Path

from docfact.config import Settings
from docfact.model import SEVERITIES

CLIENT = Path(__file__).resolve().parents[2] / "vscode-client"
CLIENT_ONLY = {"interpreter", "path", "serverArgs", "trace.server"}  # the extension's own


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def editor_settings() -> dict:
    """camelCase key ("llm.apiBase") -> (Spec, default) of every setting the editor shows."""
    shown = {}
    for top in fields(Settings):
        spec = top.metadata["spec"]
        if not spec.editor:
            continue
        if spec.kind != "table":
            shown[_camel(top.name)] = (spec, top.default)
            continue
        for inner in fields(top.default):
            if inner.metadata["spec"].editor:
                shown[f"{top.name}.{_camel(inner.name)}"] = (inner.metadata["spec"], inner.default)
    return shown


def _ts_list(source: str, name: str) -> list[str]:
    body = re.search(rf"export const {name} = \[(.*?)\] as const;", source, re.S).group(1)
    return re.findall(r'"([^"]+)"', body)


def test_settings_ts_passes_on_exactly_the_editor_settings():
    source = (CLIENT / "src" / "settings.ts").read_text(encoding="utf-8")
    tables = dict(
        re.findall(r"(\w+): (\w+_KEYS)", re.search(r"const TABLES[^{]*\{(.*?)\}", source).group(1))
    )
    passed = set(_ts_list(source, "SERVER_KEYS"))
    passed |= {f"{table}.{key}" for table, keys in tables.items() for key in _ts_list(source, keys)}
    assert passed == set(editor_settings())
    assert set(tables) == {f.name for f in fields(Settings) if f.metadata["spec"].kind == "table"}


def test_package_json_declares_the_editor_settings_as_the_table_reads_them():
    package = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    declared = {
        key.removeprefix("docfact."): schema
        for key, schema in package["contributes"]["configuration"]["properties"].items()
    }
    shown = editor_settings()
    assert set(declared) - CLIENT_ONLY == set(shown)
    for key, (spec, default) in shown.items():
        schema = declared[key]
        assert schema["type"] == _json_type(spec), key
        assert schema["default"] == _json_default(spec, default), key
        if spec.kind == "choice":
            assert set(schema["enum"]) == set(spec.choices), key
        if spec.kind in ("int", "number"):
            assert schema["minimum"] == spec.least, key
        if spec.kind == "fraction":
            assert (schema["exclusiveMinimum"], schema["exclusiveMaximum"]) == (0, 1), key
        if spec.kind == "severities":
            assert schema["additionalProperties"]["enum"] == list(SEVERITIES), key


def _json_default(spec, default):
    """A default as JSON: code = severity pairs are an object, other tuples a list."""
    if spec.kind == "severities":
        return dict(default)
    return list(default) if isinstance(default, tuple) else default


def _json_type(spec) -> str | list[str]:
    kind = {
        "bool": "boolean",
        "int": "integer",
        "number": "number",
        "fraction": "number",
        "text": "string",
        "path": "string",
        "env_name": "string",
        "choice": "string",
        "texts": "array",
        "codes": "array",
        "severities": "object",
    }[spec.kind]
    return [kind, "null"] if spec.optional else kind
