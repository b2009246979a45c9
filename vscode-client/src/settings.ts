/**
 * VS Code's `docfact.*` settings -> the server's `docfact` configuration section.
 *
 * Pure logic (no `vscode` import), unit-tested with node:test.
 *
 * Only values the user actually set (user, workspace or folder settings) are sent: the
 * server ranks editor settings above the project's `pyproject.toml` `[tool.docfact]`, so
 * sending VS Code's defaults would silently override every project's configuration.
 * Client-only keys (interpreter, path, serverArgs, trace) are never sent.
 */

import * as path from "node:path";

/** Top-level keys the server knows (camelCase). */
export const SERVER_KEYS = [
  "select",
  "ignore",
  "preview",
  "docstringStyle",
  "debounceMs",
  "workspaceDiagnostics",
  "severity",
  "cacheDir",
] as const;

/** Keys of the server's `llm` table. */
export const LLM_KEYS = [
  "model",
  "apiBase",
  "apiKeyEnv",
  "temperature",
  "topP",
  "timeoutS",
  "maxRetries",
  "maxConcurrency",
  "votes",
  "protocol",
  "run",
] as const;

/** Keys of the server's `sonar` table (SONAR's scores). */
export const SONAR_KEYS = ["enabled", "run", "generators", "samples", "compressions", "fuzzCases", "timeLimitS", "fluencyModel"] as const;

/** Keys of the server's `ssc` table (model understandability). */
export const SSC_KEYS = ["enabled", "run", "k", "temperature", "epsilon", "encoder", "encoderLayer", "idf", "judgeVotes"] as const;

/** The server's nested tables and their keys. */
const TABLES: Record<string, readonly string[]> = { llm: LLM_KEYS, sonar: SONAR_KEYS, ssc: SSC_KEYS };

/** Settings used by the client itself: a change restarts the server. */
export const RESTART_KEYS = ["interpreter", "path", "serverArgs"] as const;

/** The subset of vscode.WorkspaceConfiguration.inspect()'s answer that is read here. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  globalLanguageValue?: unknown;
  workspaceLanguageValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
}

export type Inspect = (key: string) => Inspected | undefined;

/** The most specific value the user set, or undefined when only the default applies. */
export function explicitValue(inspected: Inspected | undefined): unknown {
  if (!inspected) {
    return undefined;
  }
  const order = [
    inspected.workspaceFolderLanguageValue,
    inspected.workspaceFolderValue,
    inspected.workspaceLanguageValue,
    inspected.workspaceValue,
    inspected.globalLanguageValue,
    inspected.globalValue,
  ];
  return order.find((v) => v !== undefined);
}

/** null and "" (a cleared field in the Settings UI) mean "not set". */
function isUnset(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

function clean(key: string, value: unknown): unknown {
  if (typeof value === "string") {
    return value.trim();
  }
  if ((key === "select" || key === "ignore") && Array.isArray(value)) {
    return value.map((v) => (typeof v === "string" ? v.trim().toUpperCase() : v)).filter((v) => v !== "");
  }
  if (key === "severity" && value && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([code, level]) => [code.trim().toUpperCase(), level]),
    );
  }
  return value;
}

/** The key by which the server is told the project's interpreter (the Python extension's
 * active environment): SONAR runs the project's functions with it, unless the project's
 * `[tool.docfact.sonar] python` says otherwise. Sent for a trusted workspace only. */
export const PROJECT_PYTHON_KEY = "projectPython";

/** The `docfact` section the server receives (initializationOptions, configuration,
 * didChangeConfiguration); `projectPython` is the project's interpreter, when known. */
export function toServerSettings(inspect: Inspect, projectPython?: string, workspaceFolder?: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (projectPython && projectPython.trim()) {
    result[PROJECT_PYTHON_KEY] = projectPython.trim();
  }
  for (const key of SERVER_KEYS) {
    const value = explicitValue(inspect(key));
    if (!isUnset(value)) {
      result[key] = clean(key, value);
    }
  }
  for (const [table, keys] of Object.entries(TABLES)) {
    const values: Record<string, unknown> = {};
    for (const key of keys) {
      const value = explicitValue(inspect(`${table}.${key}`));
      if (!isUnset(value)) {
        values[key] = clean(key, value);
      }
    }
    if (Object.keys(values).length > 0) {
      result[table] = values;
    }
  }
  // docfact's processes start in the extension's storage, not the workspace: a relative
  // cacheDir still means the workspace's folder, as when they started there.
  if (workspaceFolder && typeof result.cacheDir === "string" && !path.isAbsolute(result.cacheDir)) {
    result.cacheDir = path.resolve(workspaceFolder, result.cacheDir);
  }
  return result;
}

/**
 * initializationOptions for the server: `{"docfact": {...}, "trustedWorkspace": ...}`. Trust
 * (vscode.workspace.isTrusted) sits outside the settings section, where no workspace setting
 * can put it; without it the server ignores the model and the like in pyproject.toml.
 */
export function initializationOptions(
  inspect: Inspect,
  trusted: boolean,
  projectPython?: string,
  workspaceFolder?: string,
): { docfact: Record<string, unknown>; trustedWorkspace: boolean; hoverDetailsCommand: boolean } {
  // hoverDetailsCommand: the hover card ends with a link to docfact.showCardDetails, which
  // opens its details in an editor tab (VS Code's hover is capped at about 250 px and does
  // not grow when a <details> element in it opens); other clients get them after a rule.
  return { docfact: toServerSettings(inspect, trusted ? projectPython : undefined, workspaceFolder), trustedWorkspace: trusted, hoverDetailsCommand: true };
}

/** Arguments of `docfact check` that carry the editor settings the CLI understands. */
export function checkArguments(settings: Record<string, unknown>): string[] {
  const args: string[] = [];
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((c) => typeof c === "string") : []);
  if (list(settings.select).length > 0) {
    args.push("--select", list(settings.select).join(","));
  }
  if (list(settings.ignore).length > 0) {
    args.push("--ignore", list(settings.ignore).join(","));
  }
  if (typeof settings.docstringStyle === "string") {
    args.push("--docstring-style", settings.docstringStyle);
  }
  if (typeof settings.cacheDir === "string") {
    args.push("--cache-dir", settings.cacheDir);
  }
  return args;
}
