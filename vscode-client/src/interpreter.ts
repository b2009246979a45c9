/**
 * How the docfact server is started: which command, found in which order.
 *
 * Pure logic (no `vscode` import) so it is unit-tested with node:test.
 * Order: `docfact.path` (a docfact executable) > `docfact.interpreter` > the Python
 * extension's active environment > `python3` (`python` on Windows) on PATH.
 */

export type LauncherSource = "docfact.path" | "docfact.interpreter" | "python extension" | "PATH";

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
  home?: string;
  env?: Record<string, string | undefined>;
  platform?: string;
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
  const sub = (argv: string[]) => argv.map((a) => substitute(a, input));
  const path = sub(asArgv(input.path));
  if (path.length > 0) {
    return { argv: path, source: "docfact.path" };
  }
  const interpreter = sub(asArgv(input.interpreter));
  if (interpreter.length > 0) {
    return { argv: [...interpreter, "-m", "docfact"], source: "docfact.interpreter", python: interpreter };
  }
  if (input.pythonExtension) {
    let fromExtension: string[] | undefined;
    try {
      fromExtension = await input.pythonExtension();
    } catch {
      fromExtension = undefined; // the Python extension is optional: any failure falls through
    }
    const python = asArgv(fromExtension);
    if (python.length > 0) {
      return { argv: [...python, "-m", "docfact"], source: "python extension", python };
    }
  }
  const python = [defaultPython(input.platform)];
  return { argv: [...python, "-m", "docfact"], source: "PATH", python };
}

/** The server's command line: `<launcher> serve [serverArgs...]`. */
export function serverCommand(launcher: Launcher, serverArgs: unknown): { command: string; args: string[] } {
  const [command, ...rest] = launcher.argv;
  return { command, args: [...rest, "serve", ...asArgv(serverArgs)] };
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
export function explainProbeFailure(launcher: Launcher, failure: ProbeFailure): string {
  const program = launcher.argv[0];
  const where = launcher.source === "PATH" ? `"${program}" on PATH` : `"${program}" (from ${launcher.source})`;
  const stderr = failure.stderr ?? "";
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
  if (/No module named '?docfact'?/.test(stderr) || /No module named docfact/.test(stderr)) {
    return `docfact: the docfact package is not installed for ${where}. Install it with: ${displayCommand([...(launcher.python ?? [program]), "-m", "pip", "install", "docfact"])}`;
  }
  const lastLine = stderr.trim().split(/\r?\n/).pop() ?? "";
  const detail = lastLine ? `: ${lastLine}` : failure.exitCode != null ? ` (exit status ${failure.exitCode})` : "";
  return `docfact: ${displayCommand([...launcher.argv, "--version"])} failed${detail}`;
}
