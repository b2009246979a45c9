import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  asArgv,
  bundledWheel,
  environmentName,
  explainInstallFailure,
  explainProbeFailure,
  explainProbeOutput,
  findLauncher,
  installCommand,
  isMissingDocfact,
  reportedVersion,
  serverCommand,
  substitute,
} from "../interpreter";

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

  it("then the workspace's .venv", async () => {
    const seen: string[] = [];
    const exists = (file: string) => {
      seen.push(file);
      return file === "/w/.venv/bin/python";
    };
    const launcher = await findLauncher({ workspaceFolder: "/w/", pythonExtension: async () => undefined, exists, platform: "linux" });
    assert.deepEqual(launcher, { argv: ["/w/.venv/bin/python", "-m", "docfact"], source: "workspace .venv", python: ["/w/.venv/bin/python"] });
    assert.deepEqual(seen, ["/w/.venv/bin/python"]);
  });

  it("finds .venv\\Scripts\\python.exe on Windows", async () => {
    const launcher = await findLauncher({ workspaceFolder: "C:\\w", exists: (f) => f === "C:\\w\\.venv\\Scripts\\python.exe", platform: "win32" });
    assert.equal(launcher.source, "workspace .venv");
  });

  it("goes on to PATH without a .venv", async () => {
    const launcher = await findLauncher({ workspaceFolder: "/w", exists: () => false, platform: "linux" });
    assert.equal(launcher.source, "PATH");
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

  it("no docfact in that Python: named, and no command that cannot work", () => {
    const failure = { code: 1, exitCode: 1, stderr: "/w/.venv/bin/python: No module named docfact\n" };
    const launcher = { argv: ["/w/.venv/bin/python", "-m", "docfact"], source: "workspace .venv" as const, python: ["/w/.venv/bin/python"] };
    assert.equal(explainProbeFailure(launcher, failure), "docfact: docfact is not installed in /w/.venv.");
    assert.equal(explainProbeFailure(launcher, failure, "/w"), "docfact: docfact is not installed in .venv.");
    assert.ok(isMissingDocfact(failure));
    assert.ok(!isMissingDocfact({ stderr: "ImportError: No module named 'tree_sitter'" }));
    assert.doesNotMatch(explainProbeFailure(launcher, failure), /pip install docfact/);
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

describe("docfact.path and what --version printed", () => {
  const fromPath = { argv: ["/usr/bin/python3"], source: "docfact.path" as const };

  it("docfact itself", () => {
    assert.equal(explainProbeOutput(fromPath, "docfact 0.2.0\n"), undefined);
    assert.equal(reportedVersion("docfact 0.2.0\n"), "0.2.0");
  });

  it("a Python interpreter in docfact.path: one message that says so and what to do", () => {
    const message = explainProbeOutput(fromPath, "Python 3.11.7");
    assert.match(message ?? "", /docfact\.path is "\/usr\/bin\/python3", a Python interpreter, not the docfact executable/);
    assert.match(message ?? "", /docfact\.interpreter/);
    assert.match(message ?? "", /\/usr\/bin\/python3 -m docfact serve/);
  });

  it("anything else", () => {
    assert.match(explainProbeOutput(fromPath, "hello") ?? "", /printed "hello", not docfact's version: docfact\.path must be/);
  });
});

describe("installing docfact from the bundled wheel", () => {
  it("names environments by their folder", () => {
    assert.equal(environmentName(["/w/.venv/bin/python"]), "/w/.venv");
    assert.equal(environmentName(["/w/env/bin/python3.12"]), "/w/env");
    assert.equal(environmentName(["C:\\w\\.venv\\Scripts\\python.exe"]), "C:\\w\\.venv");
    assert.equal(environmentName(["/w/.venv/bin/python"], "/w/"), ".venv");
    assert.equal(environmentName(["/w/sub/env/bin/python"], "/w"), "sub/env");
    assert.equal(environmentName(["/work/.venv/bin/python"], "/w"), "/work/.venv");
    assert.equal(environmentName(["python3"]), "python3");
    assert.equal(environmentName(["conda", "run", "-n", "x", "python"]), "conda run -n x python");
  });

  it("finds the wheel and installs it with pip", () => {
    assert.equal(bundledWheel(["README.md", "docfact-0.2.0-py3-none-any.whl"]), "docfact-0.2.0-py3-none-any.whl");
    assert.equal(bundledWheel(["docfact-0.2.0.tar.gz"]), undefined);
    assert.deepEqual(installCommand(["/w/.venv/bin/python"], "/x/docfact-0.2.0-py3-none-any.whl"), [
      "/w/.venv/bin/python", "-m", "pip", "install", "/x/docfact-0.2.0-py3-none-any.whl",
    ]);
  });

  it("explains pip's refusals", () => {
    assert.match(explainInstallFailure("python3", "error: externally-managed-environment\n", 1), /managed by the operating system.*python3 -m venv \.venv/);
    assert.match(explainInstallFailure("/e", "/e/bin/python: No module named pip\n", 1), /\/e has no pip/);
    assert.match(explainInstallFailure("/e", "ERROR: Could not find a version that satisfies litellm\n", 1), /failed: ERROR: Could not find a version/);
  });
});
