import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { asArgv, explainProbeFailure, findLauncher, serverCommand, substitute } from "../interpreter";

describe("findLauncher: discovery order", () => {
  const neverAsked = async () => {
    throw new Error("the Python extension must not be asked");
  };

  it("docfact.path comes first", async () => {
    const launcher = await findLauncher({ path: ["/opt/docfact"], interpreter: ["/usr/bin/python3.12"], pythonExtension: neverAsked });
    assert.deepEqual(launcher, { argv: ["/opt/docfact"], source: "docfact.path" });
  });

  it("then docfact.interpreter, without asking the Python extension", async () => {
    const launcher = await findLauncher({ interpreter: ["${workspaceFolder}/.venv/bin/python"], workspaceFolder: "/w", pythonExtension: neverAsked });
    assert.deepEqual(launcher.argv, ["/w/.venv/bin/python", "-m", "docfact"]);
    assert.equal(launcher.source, "docfact.interpreter");
    assert.deepEqual(launcher.python, ["/w/.venv/bin/python"]);
  });

  it("accepts the interpreter as a plain string too", async () => {
    const launcher = await findLauncher({ interpreter: " /usr/bin/python3 " });
    assert.deepEqual(launcher.argv, ["/usr/bin/python3", "-m", "docfact"]);
  });

  it("then the Python extension's active environment", async () => {
    const launcher = await findLauncher({ interpreter: [], pythonExtension: async () => ["/envs/a/bin/python"] });
    assert.deepEqual(launcher, { argv: ["/envs/a/bin/python", "-m", "docfact"], source: "python extension", python: ["/envs/a/bin/python"] });
  });

  it("keeps the Python extension's whole command (e.g. conda run)", async () => {
    const launcher = await findLauncher({ pythonExtension: async () => ["conda", "run", "-n", "x", "python"] });
    assert.deepEqual(launcher.argv, ["conda", "run", "-n", "x", "python", "-m", "docfact"]);
  });

  it("then python3 on PATH when the extension has no environment", async () => {
    const launcher = await findLauncher({ interpreter: [""], pythonExtension: async () => undefined, platform: "linux" });
    assert.deepEqual(launcher, { argv: ["python3", "-m", "docfact"], source: "PATH", python: ["python3"] });
  });

  it("then python3 on PATH when the extension fails", async () => {
    const launcher = await findLauncher({ pythonExtension: async () => Promise.reject(new Error("boom")), platform: "darwin" });
    assert.equal(launcher.source, "PATH");
    assert.deepEqual(launcher.argv, ["python3", "-m", "docfact"]);
  });

  it("uses python on Windows", async () => {
    const launcher = await findLauncher({ platform: "win32" });
    assert.deepEqual(launcher.argv, ["python", "-m", "docfact"]);
  });
});

describe("settings values", () => {
  it("asArgv drops blanks and non-strings", () => {
    assert.deepEqual(asArgv(["a", " ", 3, "b "]), ["a", "b"]);
    assert.deepEqual(asArgv(""), []);
    assert.deepEqual(asArgv(undefined), []);
    assert.deepEqual(asArgv({}), []);
  });

  it("substitutes variables and ~", () => {
    const input = { workspaceFolder: "/w", home: "/home/u", env: { VENV: "/v" } };
    assert.equal(substitute("~/py/bin/python", input), "/home/u/py/bin/python");
    assert.equal(substitute("${userHome}/x", input), "/home/u/x");
    assert.equal(substitute("${env:VENV}/bin/python", input), "/v/bin/python");
    assert.equal(substitute("${env:NOPE}x", input), "x");
    assert.equal(substitute("${workspaceFolder}/a~b", input), "/w/a~b");
    assert.equal(substitute("${workspaceFolder}", {}), "${workspaceFolder}");
  });

  it("serverCommand appends serve and serverArgs", () => {
    assert.deepEqual(serverCommand({ argv: ["py", "-m", "docfact"], source: "PATH" }, ["--stdio"]), {
      command: "py",
      args: ["-m", "docfact", "serve", "--stdio"],
    });
    assert.deepEqual(serverCommand({ argv: ["/bin/docfact"], source: "docfact.path" }, undefined), {
      command: "/bin/docfact",
      args: ["serve"],
    });
  });
});

describe("explainProbeFailure: one clear sentence", () => {
  const launcher = { argv: ["python3", "-m", "docfact"], source: "PATH" as const, python: ["python3"] };

  it("no Python", () => {
    const message = explainProbeFailure(launcher, { code: "ENOENT" });
    assert.match(message, /Python was not found: "python3" on PATH/);
    assert.match(message, /docfact\.interpreter/);
  });

  it("no docfact in that Python", () => {
    const message = explainProbeFailure(launcher, { code: 1, exitCode: 1, stderr: "/usr/bin/python3: No module named docfact\n" });
    assert.match(message, /docfact package is not installed/);
    assert.match(message, /python3 -m pip install docfact/);
  });

  it("a missing docfact executable", () => {
    const message = explainProbeFailure({ argv: ["/x/docfact"], source: "docfact.path" }, { code: "ENOENT" });
    assert.match(message, /docfact executable "\/x\/docfact" \(from docfact\.path\) was not found/);
  });

  it("anything else: the last line of stderr", () => {
    const message = explainProbeFailure(launcher, { exitCode: 1, stderr: "Traceback\nImportError: bad tree-sitter\n" });
    assert.match(message, /python3 -m docfact --version failed: ImportError: bad tree-sitter$/);
  });
});
