/**
 * How the docfact server is started: which command, found in which order.
 *
 * Pure logic (no `vscode` import) so it is unit-tested with node:test.
 * Order: `docfact.path` (a docfact executable) > `docfact.interpreter` > docfact's own
 * environment, a virtual environment in the extension's storage. The project's Python is
 * never used to run docfact (docfact's pinned libraries could clash with the project's):
 * it is only the base that docfact's environment is created from, when there is no
 * other (the Python extension's active environment > the workspace's `.venv` > `python3`
 * on PATH, `python` on Windows).
 */

import * as nodePath from "node:path";

export type LauncherSource = "docfact.path" | "docfact.interpreter" | "docfact's environment";
export type BaseSource = "python extension" | "workspace .venv" | "PATH";
/** How messages name docfact's own environment. */
export const OWN_ENVIRONMENT = "its own environment";

export interface Launcher {
  /** argv prefix that runs the docfact CLI: append a subcommand (serve, check, cache). */
  argv: string[];
  /** where the command came from (shown in the logs and the status item). */
  source: LauncherSource;
  /** the Python interpreter argv, when docfact is run as `<python> -m docfact`. */
  python?: string[];
}

export interface DiscoveryInput {
  path?: unknown; // docfact.path
  interpreter?: unknown; // docfact.interpreter
  /** the Python extension's active environment (argv), asked only when needed. */
  pythonExtension?: () => Promise<string[] | undefined>;
  workspaceFolder?: string;
  /** the folder of docfact's own environment (in the extension's global storage). */
  environment?: string;
  home?: string;
  env?: Record<string, string | undefined>;
  platform?: string;
  /** whether a file exists (to find the workspace's .venv). */
  exists?: (path: string) => boolean;
}

/** A setting given as a string or a list of strings, as argv (empty entries dropped). */
export function asArgv(value: unknown): string[] {
  if (typeof value === "string") {
    return value.trim() ? [value.trim()] : [];
  }
  if (Array.isArray(value)) {
    return value.filter((v): v is string => typeof v === "string" && v.trim() !== "").map((v) => v.trim());
  }
  return [];
}

/** `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~` in a setting. */
export function substitute(value: string, input: Pick<DiscoveryInput, "workspaceFolder" | "home" | "env">): string {
  let result = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name: string, envName?: string) => {
    if (envName !== undefined) {
      return input.env?.[envName] ?? "";
    }
    if (name === "workspaceFolder") {
      return input.workspaceFolder ?? whole;
    }
    return input.home ?? whole;
  });
  if (input.home && (result === "~" || result.startsWith("~/") || result.startsWith("~\\"))) {
    result = input.home + result.slice(1);
  }
  return result;
}

export function defaultPython(platform: string | undefined): string {
  return platform === "win32" ? "python" : "python3";
}

/** The command that runs docfact, by the discovery order above. */
export async function findLauncher(input: DiscoveryInput): Promise<Launcher> {
  const sub = (argv: string[]) => inWorkspace(argv.map((a) => substitute(a, input)), input.workspaceFolder);
  const path = sub(asArgv(input.path));
  if (path.length > 0) {
    return { argv: path, source: "docfact.path" };
  }
  const interpreter = sub(asArgv(input.interpreter));
  if (interpreter.length > 0) {
    return { argv: [...interpreter, "-m", "docfact"], source: "docfact.interpreter", python: interpreter };
  }
  const python = environmentPython(input.environment ?? "docfact-env", input.platform);
  return { argv: [python, "-m", "docfact"], source: "docfact's environment", python: [python] };
}

/** A command written relative to the workspace (`.venv/bin/python`, `./tools/docfact`)
 * made absolute: docfact's processes do not start in the workspace. A bare name
 * (`python3`) is left to PATH. */
export function inWorkspace(argv: string[], workspaceFolder: string | undefined): string[] {
  const [command, ...rest] = argv;
  if (command === undefined || !workspaceFolder || !/[\\/]/.test(command) || nodePath.isAbsolute(command)) {
    return argv;
  }
  return [nodePath.resolve(workspaceFolder, command), ...rest];
}

/** The Python of a virtual environment's folder. */
export function environmentPython(folder: string, platform: string | undefined): string {
  const windows = platform === "win32";
  const separator = windows ? "\\" : "/";
  const parts = windows ? ["Scripts", "python.exe"] : ["bin", "python"];
  return [folder.replace(/[\\/]+$/, ""), ...parts].join(separator);
}

/** The Python that docfact's own environment is created from: the one the user chose
 * for the project (the Python extension's), else the workspace's `.venv`, else PATH's. */
export async function baseInterpreter(input: DiscoveryInput): Promise<{ python: string[]; source: BaseSource }> {
  if (input.pythonExtension) {
    let fromExtension: string[] | undefined;
    try {
      fromExtension = await input.pythonExtension();
    } catch {
      fromExtension = undefined; // the Python extension is optional: any failure falls through
    }
    const python = asArgv(fromExtension);
    if (python.length > 0) {
      return { python, source: "python extension" };
    }
  }
  const venv = workspaceVenvPython(input);
  if (venv) {
    return { python: [venv], source: "workspace .venv" };
  }
  return { python: [defaultPython(input.platform)], source: "PATH" };
}

/**
 * The project's interpreter the server is told (SONAR runs the project's functions with it):
 * the Python extension's active environment, in a trusted workspace only (else it is the
 * repository's own program), and only when it is one executable (a `conda run ...` command
 * is not an interpreter's path). Undefined: the server looks for the project's .venv itself.
 */
export function projectInterpreter(fromExtension: string[] | undefined, trusted: boolean): string | undefined {
  const python = asArgv(fromExtension);
  return trusted && python.length === 1 ? python[0] : undefined;
}

/** `<base> -m venv <folder>`: docfact's own environment. */
export function createEnvironmentCommand(base: string[], folder: string): string[] {
  return [...base, "-m", "venv", folder];
}

/** The Python of the workspace folder's `.venv`, when there is one. */
export function workspaceVenvPython(input: Pick<DiscoveryInput, "workspaceFolder" | "platform" | "exists">): string | undefined {
  if (!input.workspaceFolder || !input.exists) {
    return undefined;
  }
  const windows = input.platform === "win32";
  const separator = windows ? "\\" : "/";
  const folder = input.workspaceFolder.replace(/[\\/]+$/, "");
  const python = [folder, ".venv", ...(windows ? ["Scripts", "python.exe"] : ["bin", "python"])].join(separator);
  return input.exists(python) ? python : undefined;
}

/** The server's command line: `<launcher> serve [serverArgs...]`. */
export function serverCommand(launcher: Launcher, serverArgs: unknown): { command: string; args: string[] } {
  const [command, ...rest] = launcher.argv;
  return { command, args: [...rest, "serve", ...asArgv(serverArgs)] };
}

/**
 * The environment docfact's Python processes run in: the editor's, with PYTHONSAFEPATH=1 so
 * that Python never puts the working folder (the workspace, an untrusted repository) first
 * on the import path: a repository's `docfact/` or `argparse.py` would otherwise run in
 * place of docfact's own as soon as the folder is opened, trusted or not.
 */
export function processEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, PYTHONSAFEPATH: "1" };
}

/** A command line as one shell-like string, for messages and logs. */
export function displayCommand(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ");
}

export interface ProbeFailure {
  /** errno code from spawning (ENOENT: no such program). */
  code?: string | number;
  exitCode?: number | null;
  stderr?: string;
  timedOut?: boolean;
}

/**
 * One clear sentence for a launcher that cannot run docfact (the probe `<launcher> --version`
 * failed), or undefined when the failure is not understood (then the logs say more).
 */
export function explainProbeFailure(launcher: Launcher, failure: ProbeFailure, workspaceFolder?: string): string {
  const program = launcher.argv[0];
  const where = `"${program}" (from ${launcher.source})`;
  const stderr = failure.stderr ?? "";
  if (failure.code === "ENOENT" && launcher.source === "docfact's environment") {
    return `docfact: docfact is not installed in ${OWN_ENVIRONMENT} yet.`;
  }
  if (failure.code === "ENOENT") {
    return launcher.source === "docfact.path"
      ? `docfact: the docfact executable ${where} was not found. Fix the docfact.path setting.`
      : `docfact: Python was not found: ${where}. Set docfact.interpreter or select a Python environment.`;
  }
  if (failure.code === "EACCES") {
    return `docfact: ${where} cannot be executed (permission denied).`;
  }
  if (failure.timedOut) {
    return `docfact: ${displayCommand([...launcher.argv, "--version"])} did not answer in time.`;
  }
  if (isMissingDocfact(failure)) {
    const environment = launcher.source === "docfact's environment" ? OWN_ENVIRONMENT : environmentName(launcher.python ?? [program], workspaceFolder);
    return `docfact: docfact is not installed in ${environment}.`;
  }
  const lastLine = stderr.trim().split(/\r?\n/).pop() ?? "";
  const detail = lastLine ? `: ${lastLine}` : failure.exitCode != null ? ` (exit status ${failure.exitCode})` : "";
  return `docfact: ${displayCommand([...launcher.argv, "--version"])} failed${detail}`;
}

/** Whether the probe failed because the Python has no docfact package. */
export function isMissingDocfact(failure: ProbeFailure): boolean {
  return /No module named '?docfact'?/.test(failure.stderr ?? "");
}

/**
 * How an environment is named in messages: the folder of a virtual environment
 * (`/w/.venv` for `/w/.venv/bin/python`; `.venv` when it is in the workspace folder `/w`),
 * else the interpreter's command.
 */
export function environmentName(python: string[], workspaceFolder?: string): string {
  if (python.length === 1) {
    const match = /^(.*)[\\/](bin|Scripts)[\\/]python[\d.]*(\.exe)?$/i.exec(python[0]);
    if (match && match[1]) {
      const folder = workspaceFolder?.replace(/[\\/]+$/, "");
      const inside = folder !== undefined && match[1].length > folder.length + 1 && match[1].startsWith(folder) && /[\\/]/.test(match[1][folder.length]);
      return inside ? match[1].slice(folder.length + 1) : match[1];
    }
  }
  return displayCommand(python);
}

/**
 * What a successful `<launcher> --version` printed, checked: undefined when it is docfact,
 * else one sentence (a `docfact.path` that is a Python interpreter says "Python 3.x").
 */
export function explainProbeOutput(launcher: Launcher, output: string): string | undefined {
  const printed = output.trim();
  if (/^docfact \S+/.test(printed)) {
    return undefined;
  }
  const program = launcher.argv[0];
  if (/^Python \d/.test(printed) && launcher.source === "docfact.path") {
    return `docfact: docfact.path is "${program}", a Python interpreter, not the docfact executable. ` +
      `Put it in docfact.interpreter instead (the server then runs as ${displayCommand([program, "-m", "docfact", "serve"])}), ` +
      `or set docfact.path to the docfact executable of that environment.`;
  }
  return `docfact: ${displayCommand([...launcher.argv, "--version"])} printed "${printed.split(/\r?\n/)[0] ?? ""}", not docfact's version: ` +
    (launcher.source === "docfact.path" ? "docfact.path must be the docfact executable." : "see the logs.");
}

/** The version a `docfact --version` output names. */
export function reportedVersion(output: string): string | undefined {
  return /^docfact (\S+)/.exec(output.trim())?.[1];
}

/** The docfact wheel among the files of the extension's `wheels` folder. */
export function bundledWheel(files: string[]): string | undefined {
  return files.filter((f) => /^docfact-[^-]+-py3-none-any\.whl$/.test(f)).sort().pop();
}

/**
 * pip's commands that install docfact from the bundled wheel, tried in this order: with the
 * wheels the .vsix carries alone (its dependencies, built for the platform and Python of the
 * build: offline, the static checks need nothing else), then with the package index for what
 * they lack (another platform or Python).
 */
export function installCommands(python: string[], wheel: string, wheels: string): string[][] {
  const pip = [...python, "-m", "pip", "install"];
  return [
    [...pip, "--no-index", "--find-links", wheels, wheel],
    [...pip, "--find-links", wheels, wheel],
  ];
}

/** The packages of docfact's `llm` extra (the model judge, SONAR, SSC), as pyproject.toml declares them. */
export const MODEL_PACKAGES = ["litellm==1.110.2", "hypothesis>=6.100,<7", "numpy>=1.26,<3"];

/** `<python> -m pip install ...`: the model features, from the bundled wheel's `llm` extra when there is one. */
export function modelFeaturesCommand(python: string[], wheel: string | undefined): string[] {
  return [...python, "-m", "pip", "install", ...(wheel ? [`${wheel}[llm]`] : MODEL_PACKAGES)];
}

/** One sentence for a failed install, from pip's output. */
export function explainInstallFailure(environment: string, output: string, exitCode: number | null): string {
  if (/externally-managed-environment/.test(output)) {
    return `docfact: ${environment} is managed by the operating system and pip may not install into it. ` +
      `Create a virtual environment in the workspace folder (python3 -m venv .venv) and reload the window: docfact finds it and offers to install into it.`;
  }
  if (/No module named pip/.test(output)) {
    return `docfact: ${environment} has no pip, so docfact cannot be installed into it. Select another environment or create one with python3 -m venv .venv.`;
  }
  const lastLine = output.trim().split(/\r?\n/).pop() ?? "";
  return `docfact: installing docfact into ${environment} failed${lastLine ? `: ${lastLine}` : exitCode != null ? ` (exit status ${exitCode})` : ""}. See the logs.`;
}
