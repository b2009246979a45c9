/**
 * What the language status item says. Pure logic (no `vscode` import), unit-tested.
 */

/** The body of the server's `docfact/status` notification. */
export interface ModelStats {
  inFlight: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  failures: number;
  /** what keeps the model features from working (an unset key variable, litellm missing,
   * a model server that does not answer, no sandbox), each said so a person can act. */
  problems: string[];
}

export type Phase = "starting" | "running" | "failed" | "stopped";

export interface StatusState {
  phase: Phase;
  /** titles of the server's work-done progress now running (indexing, model judge). */
  progress: string[];
  stats?: ModelStats;
  error?: string;
  /** e.g. "python3 -m docfact (PATH)". */
  launcher?: string;
  /** the workspace is not trusted (VS Code's Restricted Mode): checks without a model. */
  restricted?: boolean;
}

/** What Restricted Mode leaves out, and how to have it. */
export const RESTRICTED =
  "Restricted Mode: checks without a model; the workspace may not choose a model, an interpreter or a program to run. Trust the workspace to use them.";

export interface StatusView {
  text: string;
  detail: string;
  severity: "information" | "warning" | "error";
  busy: boolean;
}

export function parseStats(raw: unknown): ModelStats | undefined {
  if (!raw || typeof raw !== "object") {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  return {
    inFlight: n(r.inFlight),
    calls: n(r.calls),
    promptTokens: n(r.promptTokens),
    completionTokens: n(r.completionTokens),
    failures: n(r.failures),
    problems: Array.isArray(r.problems) ? r.problems.filter((p): p is string => typeof p === "string") : [],
  };
}

export function formatTokens(count: number): string {
  if (count < 1000) {
    return String(count);
  }
  if (count < 1_000_000) {
    return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  }
  return `${(count / 1_000_000).toFixed(1)}M`;
}

export function describeStatus(state: StatusState): StatusView {
  const parts: string[] = [];
  const launcher = state.launcher ? `Server: ${state.launcher}` : "";
  if (state.phase === "failed") {
    return { text: "docfact: error", detail: state.error ?? "the server is not running; see the logs", severity: "error", busy: false };
  }
  if (state.phase === "stopped") {
    return { text: "docfact: stopped", detail: launcher, severity: "warning", busy: false };
  }
  if (state.phase === "starting") {
    return { text: "docfact: starting", detail: launcher, severity: "information", busy: true };
  }
  const indexing = state.progress.some((t) => /index/i.test(t));
  const stats = state.stats;
  let text = indexing ? "docfact: indexing" : "docfact";
  if (state.restricted) {
    text += " (restricted)";
    parts.push(RESTRICTED);
  }
  if (stats && stats.inFlight > 0) {
    text += ` · ${stats.inFlight} model call${stats.inFlight === 1 ? "" : "s"}`;
  }
  if (stats && stats.calls > 0) {
    parts.push(
      `${stats.calls} model call${stats.calls === 1 ? "" : "s"}, ` +
        `${formatTokens(stats.promptTokens + stats.completionTokens)} tokens ` +
        `(${formatTokens(stats.promptTokens)} prompt, ${formatTokens(stats.completionTokens)} completion)`,
    );
    text += ` · ${formatTokens(stats.promptTokens + stats.completionTokens)} tok`;
  }
  if (stats && stats.failures > 0) {
    parts.push(`${stats.failures} failed model call${stats.failures === 1 ? "" : "s"}`);
  }
  const problems = stats?.problems ?? [];
  if (problems.length > 0) {
    text += ` · ${problems.length} model problem${problems.length === 1 ? "" : "s"}`;
    parts.unshift(...problems);
  }
  if (launcher) {
    parts.push(launcher);
  }
  return {
    text,
    detail: parts.join(" · "),
    severity: stats && (stats.failures > 0 || problems.length > 0) ? "warning" : "information",
    busy: indexing || (stats?.inFlight ?? 0) > 0 || state.progress.length > 0,
  };
}
