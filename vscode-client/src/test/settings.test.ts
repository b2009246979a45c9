import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkArguments, explicitValue, type Inspected, initializationOptions, toServerSettings } from "../settings";

/** A fake WorkspaceConfiguration.inspect over { key: Inspected }, with VS Code-like defaults. */
function inspector(values: Record<string, Inspected>) {
  return (key: string): Inspected & { defaultValue?: unknown } => ({ defaultValue: "default-is-never-sent", ...values[key] });
}

describe("initializationOptions", () => {
  it("carries workspace trust beside the settings, never inside them", () => {
    const options = initializationOptions(inspector({ "llm.model": { globalValue: "openai/m" } }), true);
    assert.deepEqual(options, { docfact: { llm: { model: "openai/m" } }, trustedWorkspace: true, hoverDetailsCommand: true });
  });
});

describe("the project's interpreter", () => {
  it("is told to the server beside the settings in a trusted workspace", () => {
    const options = initializationOptions(inspector({}), true, " /w/.venv/bin/python ");
    assert.deepEqual(options, { docfact: { projectPython: "/w/.venv/bin/python" }, trustedWorkspace: true, hoverDetailsCommand: true });
  });

  it("is never told for an untrusted workspace (it is the repository's program)", () => {
    assert.deepEqual(initializationOptions(inspector({}), false, "/w/.venv/bin/python"), { docfact: {}, trustedWorkspace: false, hoverDetailsCommand: true });
  });
});

describe("a relative cacheDir", () => {
  it("means the workspace's folder, where docfact's processes no longer start", () => {
    const relative = inspector({ cacheDir: { workspaceValue: ".cache/docfact" } });
    assert.deepEqual(toServerSettings(relative, undefined, "/w"), { cacheDir: "/w/.cache/docfact" });
    assert.deepEqual(initializationOptions(relative, false, undefined, "/w").docfact, { cacheDir: "/w/.cache/docfact" });
    assert.deepEqual(toServerSettings(inspector({ cacheDir: { globalValue: "/tmp/c" } }), undefined, "/w"), { cacheDir: "/tmp/c" });
  });
});

describe("toServerSettings", () => {
  it("sends nothing when nothing is set (the project's pyproject.toml decides)", () => {
    assert.deepEqual(toServerSettings(inspector({})), {});
    assert.deepEqual(initializationOptions(inspector({}), false), { docfact: {}, trustedWorkspace: false, hoverDetailsCommand: true });
  });

  it("translates explicit values, nesting llm.*", () => {
    const settings = toServerSettings(
      inspector({
        select: { globalValue: ["df5", " DF101 "] },
        ignore: { workspaceValue: ["DF2"] },
        docstringStyle: { workspaceValue: "numpy" },
        debounceMs: { globalValue: 500 },
        workspaceDiagnostics: { globalValue: true },
        severity: { globalValue: { df101: "error" } },
        cacheDir: { globalValue: "/tmp/c" },
        "llm.model": { globalValue: "openai/gpt-4o-mini" },
        "llm.apiKeyEnv": { globalValue: "OPENAI_API_KEY" },
        "llm.votes": { globalValue: 3 },
        "llm.run": { workspaceValue: "manual" },
        "llm.temperature": { globalValue: 0 },
      }),
    );
    assert.deepEqual(settings, {
      select: ["DF5", "DF101"],
      ignore: ["DF2"],
      docstringStyle: "numpy",
      debounceMs: 500,
      workspaceDiagnostics: true,
      severity: { DF101: "error" },
      cacheDir: "/tmp/c",
      llm: { model: "openai/gpt-4o-mini", apiKeyEnv: "OPENAI_API_KEY", votes: 3, run: "manual", temperature: 0 },
    });
  });

  it("nests the sonar.* and ssc.* settings in their tables", () => {
    const settings = toServerSettings(
      inspector({
        "sonar.run": { workspaceValue: "onSave" },
        "sonar.enabled": { workspaceValue: true },
        "sonar.fuzzCases": { globalValue: 50 },
        "ssc.k": { globalValue: 6 },
        "ssc.encoder": { globalValue: "  " },
      }),
    );
    assert.deepEqual(settings, { sonar: { run: "onSave", enabled: true, fuzzCases: 50 }, ssc: { k: 6 } });
  });

  it("never sends client-only keys", () => {
    const settings = toServerSettings(
      inspector({
        interpreter: { globalValue: ["/py"] },
        path: { globalValue: ["/d"] },
        serverArgs: { globalValue: ["-v"] },
        "trace.server": { globalValue: "verbose" },
        importStrategy: { globalValue: "useBundled" },
      }),
    );
    assert.deepEqual(settings, {});
  });

  it("drops null and empty strings (a cleared field) but keeps false, 0 and []", () => {
    const settings = toServerSettings(
      inspector({
        cacheDir: { globalValue: "  " },
        "llm.model": { globalValue: null },
        "llm.apiBase": { globalValue: "" },
        workspaceDiagnostics: { workspaceValue: false },
        debounceMs: { globalValue: 0 },
        select: { workspaceValue: [] },
      }),
    );
    assert.deepEqual(settings, { workspaceDiagnostics: false, debounceMs: 0, select: [] });
  });

  it("the folder beats the workspace beats the user", () => {
    assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }), 3);
    assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2 }), 2);
    assert.equal(explicitValue({ globalValue: 1 }), 1);
    assert.equal(explicitValue({ globalValue: 1, workspaceLanguageValue: 4 }), 4);
    assert.equal(explicitValue(undefined), undefined);
  });

  it("every key sent is one the server's Settings knows (camelCase)", () => {
    const all: Record<string, Inspected> = {};
    for (const key of ["select", "ignore", "docstringStyle", "debounceMs", "workspaceDiagnostics", "severity", "cacheDir"]) {
      all[key] = { globalValue: key === "severity" ? {} : ["x"] };
    }
    for (const key of ["model", "apiBase", "apiKeyEnv", "temperature", "topP", "timeoutS", "maxRetries", "maxConcurrency", "votes", "protocol", "run"]) {
      all[`llm.${key}`] = { globalValue: 1 };
    }
    const settings = toServerSettings(inspector(all));
    assert.deepEqual(Object.keys(settings).sort(), ["cacheDir", "debounceMs", "docstringStyle", "ignore", "llm", "select", "severity", "workspaceDiagnostics"]);
    assert.equal(Object.keys(settings.llm as object).length, 11);
  });
});

describe("checkArguments", () => {
  it("passes the CLI the settings it understands", () => {
    assert.deepEqual(checkArguments({ select: ["DF5", "DF1"], ignore: ["DF101"], docstringStyle: "google", cacheDir: "/c", debounceMs: 3, llm: { model: "m" } }), [
      "--select",
      "DF5,DF1",
      "--ignore",
      "DF101",
      "--docstring-style",
      "google",
      "--cache-dir",
      "/c",
    ]);
    assert.deepEqual(checkArguments({}), []);
  });
});
