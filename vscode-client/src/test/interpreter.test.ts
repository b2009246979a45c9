import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  asArgv,
  baseInterpreter,
  bundledWheel,
  createEnvironmentCommand,
  environmentName,
  explainInstallFailure,
  explainProbeFailure,
  explainProbeOutput,
  findLauncher,
  installCommands,
  isMissingDocfact,
  MODEL_PACKAGES,
  modelFeaturesCommand,
  processEnvironment,
  projectInterpreter,
  reportedVersion,
  serverCommand,
  substitute,
} from "../interpreter";

describe("projectInterpreter: what the server is told", () => {
  it("the Python extension's environment, in a trusted workspace", () => {
    assert.equal(projectInterpreter(["/w/.venv/bin/python"], true), "/w/.venv/bin/python");
  });

  it("nothing in an untrusted workspace, for a command, or without the extension", () => {
    assert.equal(projectInterpreter(["/w/.venv/bin/python"], false), undefined);
    assert.equal(projectInterpreter(["conda", "run", "-n", "shop", "python"], true), undefined);
    assert.equal(projectInterpreter(undefined, true), undefined);
  });
});

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

  it("makes a command written relative to the workspace absolute (processes do not start there)", async () => {
    const launcher = await findLauncher({ interpreter: [".venv/bin/python", "-X", "utf8"], workspaceFolder: "/w" });
    assert.deepEqual(launcher.argv, ["/w/.venv/bin/python", "-X", "utf8", "-m", "docfact"]);
    const onPath = await findLauncher({ path: ["docfact"], workspaceFolder: "/w" });
    assert.deepEqual(onPath.argv, ["docfact"]);
  });

  it("accepts the interpreter as a plain string too", async () => {
    const launcher = await findLauncher({ interpreter: " /usr/bin/python3 " });
    assert.deepEqual(launcher.argv, ["/usr/bin/python3", "-m", "docfact"]);
  });

  it("then docfact's own environment, never the project's Python", async () => {
    const exists = () => true; // the workspace has a .venv: it is not used to run docfact
    const launcher = await findLauncher({ environment: "/s/env/", workspaceFolder: "/w", exists, pythonExtension: neverAsked, platform: "linux" });
    assert.deepEqual(launcher, { argv: ["/s/env/bin/python", "-m", "docfact"], source: "docfact's environment", python: ["/s/env/bin/python"] });
  });

  it("finds its environment's python.exe on Windows", async () => {
    const launcher = await findLauncher({ environment: "C:\\s\\env", platform: "win32" });
    assert.deepEqual(launcher.argv, ["C:\\s\\env\\Scripts\\python.exe", "-m", "docfact"]);
  });
});

describe("baseInterpreter: what docfact's environment is created from", () => {
  it("the Python extension's active environment first", async () => {
    const base = await baseInterpreter({ pythonExtension: async () => ["/envs/a/bin/python"], exists: () => true, workspaceFolder: "/w" });
    assert.deepEqual(base, { python: ["/envs/a/bin/python"], source: "python extension" });
  });

  it("keeps the Python extension's whole command (e.g. conda run)", async () => {
    const base = await baseInterpreter({ pythonExtension: async () => ["conda", "run", "-n", "x", "python"] });
    assert.deepEqual(base.python, ["conda", "run", "-n", "x", "python"]);
  });

  it("then the workspace's .venv", async () => {
    const seen: string[] = [];
    const exists = (file: string) => {
      seen.push(file);
      return file === "/w/.venv/bin/python";
    };
    const base = await baseInterpreter({ workspaceFolder: "/w/", pythonExtension: async () => undefined, exists, platform: "linux" });
    assert.deepEqual(base, { python: ["/w/.venv/bin/python"], source: "workspace .venv" });
    assert.deepEqual(seen, ["/w/.venv/bin/python"]);
  });

  it("finds .venv\\Scripts\\python.exe on Windows", async () => {
    const base = await baseInterpreter({ workspaceFolder: "C:\\w", exists: (f) => f === "C:\\w\\.venv\\Scripts\\python.exe", platform: "win32" });
    assert.equal(base.source, "workspace .venv");
  });

  it("then python3 on PATH, also when the extension fails", async () => {
    const failing = await baseInterpreter({ pythonExtension: async () => Promise.reject(new Error("boom")), platform: "darwin" });
    assert.deepEqual(failing, { python: ["python3"], source: "PATH" });
    assert.deepEqual((await baseInterpreter({ platform: "win32" })).python, ["python"]);
  });

  it("creates the environment with venv", () => {
    assert.deepEqual(createEnvironmentCommand(["/usr/bin/python3"], "/s/env"), ["/usr/bin/python3", "-m", "venv", "/s/env"]);
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
    assert.deepEqual(serverCommand({ argv: ["py", "-m", "docfact"], source: "docfact.interpreter" }, ["--stdio"]), {
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
  const launcher = { argv: ["python3", "-m", "docfact"], source: "docfact.interpreter" as const, python: ["python3"] };
  const own = { argv: ["/s/env/bin/python", "-m", "docfact"], source: "docfact's environment" as const, python: ["/s/env/bin/python"] };

  it("no Python", () => {
    const message = explainProbeFailure(launcher, { code: "ENOENT" });
    assert.match(message, /Python was not found: "python3" \(from docfact\.interpreter\)/);
    assert.match(message, /docfact\.interpreter/);
  });

  it("docfact's own environment not created yet, or without docfact", () => {
    assert.equal(explainProbeFailure(own, { code: "ENOENT" }), "docfact: docfact is not installed in its own environment yet.");
    const failure = { code: 1, exitCode: 1, stderr: "No module named docfact\n" };
    assert.equal(explainProbeFailure(own, failure), "docfact: docfact is not installed in its own environment.");
  });

  it("no docfact in that Python: named, and no command that cannot work", () => {
    const failure = { code: 1, exitCode: 1, stderr: "/w/.venv/bin/python: No module named docfact\n" };
    const launcher = { argv: ["/w/.venv/bin/python", "-m", "docfact"], source: "docfact.interpreter" as const, python: ["/w/.venv/bin/python"] };
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

  it("finds the wheel and installs it with pip, from the bundled wheels first", () => {
    assert.equal(bundledWheel(["README.md", "docfact-0.2.0-py3-none-any.whl"]), "docfact-0.2.0-py3-none-any.whl");
    assert.equal(bundledWheel(["docfact-0.2.0.tar.gz"]), undefined);
    const [offline, online] = installCommands(["/w/.venv/bin/python"], "/x/docfact-0.2.0-py3-none-any.whl", "/x");
    assert.deepEqual(offline, [
      "/w/.venv/bin/python", "-m", "pip", "install", "--no-index", "--find-links", "/x", "/x/docfact-0.2.0-py3-none-any.whl",
    ]);
    assert.deepEqual(online, ["/w/.venv/bin/python", "-m", "pip", "install", "--find-links", "/x", "/x/docfact-0.2.0-py3-none-any.whl"]);
  });

  it("installs the model features from the wheel's llm extra, else by name", () => {
    assert.deepEqual(modelFeaturesCommand(["/s/env/bin/python"], "/x/docfact-0.2.0-py3-none-any.whl"), [
      "/s/env/bin/python", "-m", "pip", "install", "/x/docfact-0.2.0-py3-none-any.whl[llm]",
    ]);
    assert.deepEqual(modelFeaturesCommand(["/s/env/bin/python"], undefined).slice(4), MODEL_PACKAGES);
    assert.ok(MODEL_PACKAGES.some((p) => p.startsWith("litellm==")) && MODEL_PACKAGES.some((p) => p.startsWith("hypothesis")));
  });

  it("explains pip's refusals", () => {
    assert.match(explainInstallFailure("python3", "error: externally-managed-environment\n", 1), /managed by the operating system.*python3 -m venv \.venv/);
    assert.match(explainInstallFailure("/e", "/e/bin/python: No module named pip\n", 1), /\/e has no pip/);
    assert.match(explainInstallFailure("/e", "ERROR: Could not find a version that satisfies litellm\n", 1), /failed: ERROR: Could not find a version/);
  });
});

describe("processEnvironment: how docfact's Python processes start", () => {
  it("never with the working folder (the workspace) first on the import path", () => {
    const env = processEnvironment({ PATH: "/usr/bin", HOME: "/home/u" });
    assert.equal(env.PYTHONSAFEPATH, "1");
    assert.equal(env.PATH, "/usr/bin");
    assert.equal(env.HOME, "/home/u");
  });
});
