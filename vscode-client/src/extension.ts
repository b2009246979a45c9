/**
 * The docfact VS Code extension: starts `<python> -m docfact serve` from docfact's own
 * environment (a virtual environment in the extension's storage, never the project's)
 * and connects vscode-languageclient to it. The decisions (which Python, which settings are sent, what
 * the status item says) live in interpreter.ts, settings.ts and status.ts, which are
 * unit-tested without VS Code.
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  type ErrorHandler,
  LanguageClient,
  type LanguageClientOptions,
  type NotificationHandler,
  type ProgressType,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from "vscode-languageclient/node";
import {
  baseInterpreter,
  bundledWheel,
  createEnvironmentCommand,
  displayCommand,
  environmentName,
  explainInstallFailure,
  explainProbeFailure,
  explainProbeOutput,
  findLauncher,
  installCommands,
  isMissingDocfact,
  type Launcher,
  OWN_ENVIRONMENT,
  projectInterpreter,
  reportedVersion,
  processEnvironment,
  serverCommand,
} from "./interpreter";
import { enableModelFeatures } from "./modelFeatures";
import { checkArguments, initializationOptions, RESTART_KEYS, toServerSettings } from "./settings";
import { describeStatus, parseStats, type StatusState } from "./status";

const SECTION = "docfact";
const PYTHON_EXTENSION = "ms-python.python";
const MAX_RESTARTS = 3; // crashes within RESTART_WINDOW_MS before the server is left stopped
const RESTART_WINDOW_MS = 3 * 60 * 1000;
const LANGUAGES = ["python", "java"];
const DOCUMENT_SELECTOR = LANGUAGES.flatMap((language) => [
  { scheme: "file", language },
  { scheme: "untitled", language },
]);
const DOCUMENT_COMMANDS = ["docfact.judge", "docfact.score"]; // server commands on the active document
const PROBE_TIMEOUT_MS = 30_000;
const SHOW_CARD_DETAILS = "docfact.showCardDetails"; // run by the link that ends a hover card
const CARD_DETAILS = "docfact.cardDetails"; // the server's: the details as markdown
const CARD_SCHEME = "docfact-card";

/** Read-only documents with the details of hover cards, one per file (the newest shown). */
class CardDetails implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  show(file: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: CARD_SCHEME, path: `/docfact card of ${file}.md` });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }
}
const INSTALL_TIMEOUT_MS = 15 * 60 * 1000;

/** What `<launcher> --version` showed: nothing wrong, or one sentence; and whether the
 * Python simply lacks docfact (then installing it from the bundled wheel is offered). */
interface ProbeResult {
  problem?: string;
  missingDocfact?: boolean;
}

/** One step of an install: its commands, tried in order until one works. */
type Step = string[][];

type WorkDoneValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

/** A LanguageClient that reports work-done progress to the status item and never pops up
 * its own error notifications (they go to the log; the extension shows one message). */
class DocfactClient extends LanguageClient {
  progressObserver?: (token: string | number, value: WorkDoneValue) => void;
  errorObserver?: (message: string) => void;

  override onProgress<P>(type: ProgressType<P>, token: string | number, handler: NotificationHandler<P>): vscode.Disposable {
    return super.onProgress(type, token, (value: P) => {
      try {
        this.progressObserver?.(token, value as unknown as WorkDoneValue);
      } catch {
        // the status item must never break progress reporting
      }
      handler(value);
    });
  }

  override error(message: string, data?: unknown, showNotification?: boolean | "force"): void {
    super.error(message, data, false);
    if (showNotification) {
      this.errorObserver?.(message);
    }
  }
}

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string } | undefined;
  resolveEnvironment(env: { id: string; path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

class Extension {
  private client: DocfactClient | undefined;
  private launcher: Launcher | undefined;
  private readonly log: vscode.LogOutputChannel;
  private readonly checkOutput: vscode.OutputChannel;
  private readonly statusItem: vscode.LanguageStatusItem;
  private status: StatusState = { phase: "stopped", progress: [] };
  private readonly progressTitles = new Map<string | number, string>();
  private crashes: number[] = [];
  private shownError: string | undefined;
  private starting: Promise<void> = Promise.resolve();
  /** The project's interpreter told to the server (see projectInterpreter). */
  private projectPython: string | undefined;
  private watchingEnvironment = false;
  private readonly cards = new CardDetails();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel("docfact", { log: true });
    this.checkOutput = vscode.window.createOutputChannel("docfact check");
    this.statusItem = vscode.languages.createLanguageStatusItem("docfact.status", DOCUMENT_SELECTOR);
    this.statusItem.name = "docfact";
    this.statusItem.command = { title: "Show logs", command: "docfact.showLogs" };
    context.subscriptions.push(this.log, this.checkOutput, this.statusItem);
    this.render();
  }

  register(): void {
    const command = (id: string, run: (...args: unknown[]) => unknown) =>
      this.context.subscriptions.push(vscode.commands.registerCommand(id, run));
    command("docfact.restart", () => this.restart(true));
    command("docfact.showLogs", () => this.log.show(true));
    command("docfact.checkWorkspace", () => this.checkWorkspace());
    command("docfact.clearCache", () => this.clearCache());
    command("docfact.enableModelFeatures", () => this.enableModelFeatures());
    command(SHOW_CARD_DETAILS, (...args) => this.showCardDetails(args));
    this.context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(CARD_SCHEME, this.cards));
    // docfact.judge and docfact.score are the server's commands: vscode-languageclient
    // registers them, and the executeCommand middleware below adds the active document
    // when no URI is given.
    this.context.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((event) => this.configurationChanged(event)),
      // Trust is given at initialization: a server started in restricted mode starts again.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info("the workspace is trusted now: restarting the server");
        void this.restart(false);
      }),
      { dispose: () => void this.stop() },
    );
  }

  // --- settings ------------------------------------------------------------------

  private configuration(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION, vscode.workspace.workspaceFolders?.[0]?.uri);
  }

  private serverSettings(): Record<string, unknown> {
    const config = this.configuration();
    return toServerSettings((key) => config.inspect(key), this.projectPython, this.workspaceFolder());
  }

  private configurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (!event.affectsConfiguration(SECTION)) {
      return;
    }
    if (RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
      this.log.info("the server's command changed: restarting");
      void this.restart(false);
      return;
    }
    if (this.client?.state === State.Running) {
      const settings = this.serverSettings();
      this.log.info(`settings changed: ${JSON.stringify(settings)}`);
      void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: settings } });
    }
  }

  // --- finding Python ----------------------------------------------------------------

  private async pythonFromExtension(): Promise<string[] | undefined> {
    const extension = vscode.extensions.getExtension(PYTHON_EXTENSION);
    if (!extension) {
      return undefined;
    }
    const api = extension.isActive ? extension.exports : await extension.activate();
    const environments = (api as { environments?: PythonEnvironmentsApi } | undefined)?.environments;
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (environments) {
      if (!this.watchingEnvironment) {
        this.watchingEnvironment = true;
        this.context.subscriptions.push(environments.onDidChangeActiveEnvironmentPath(() => void this.projectPythonChanged()));
      }
      const active = environments.getActiveEnvironmentPath(resource);
      if (active) {
        const resolved = await environments.resolveEnvironment(active);
        const executable = resolved?.executable?.uri?.fsPath;
        return executable ? [executable] : undefined;
      }
    }
    // The older API of the Python extension.
    const details = (api as { settings?: { getExecutionDetails?(r?: vscode.Uri): { execCommand?: string[] } } })?.settings?.getExecutionDetails?.(resource);
    return details?.execCommand;
  }

  /** The project's interpreter for the server; a failure of the Python extension leaves
   * the server to find the project's .venv itself. */
  private async readProjectPython(): Promise<string | undefined> {
    if (!vscode.workspace.isTrusted) {
      return undefined;
    }
    try {
      return projectInterpreter(await this.pythonFromExtension(), true);
    } catch (error) {
      this.log.warn(`the Python extension's environment is not known: ${String(error)}`);
      return undefined;
    }
  }

  /** Another environment was selected in the Python extension: the server is told. */
  private async projectPythonChanged(): Promise<void> {
    const python = await this.readProjectPython();
    if (python === this.projectPython) {
      return;
    }
    this.projectPython = python;
    this.log.info(`the project's interpreter: ${python ?? "the project's .venv, if any (found by the server)"}`);
    if (this.client?.state === State.Running) {
      void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: this.serverSettings() } });
    }
  }

  private discovery() {
    const config = this.configuration();
    // An untrusted workspace's own Python (its .venv, or the environment the Python
    // extension picked in it) is the repository's program: only the user's settings and
    // PATH are asked until the workspace is trusted (granting trust restarts the server).
    // Here it is never run as docfact's server, only as the base docfact's environment is
    // created from.
    const trusted = vscode.workspace.isTrusted;
    return {
      path: config.get("path"),
      interpreter: config.get("interpreter"),
      pythonExtension: trusted ? () => this.pythonFromExtension() : undefined,
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      environment: this.environmentFolder(),
      home: os.homedir(),
      env: processEnvironment(),
      platform: process.platform,
      exists: trusted ? (file: string) => fs.existsSync(file) : undefined,
    };
  }

  /** docfact's own environment: a virtual environment in the extension's storage. */
  private environmentFolder(): string {
    return path.join(this.context.globalStorageUri.fsPath, "env");
  }

  private async findLauncher(): Promise<Launcher> {
    return findLauncher(this.discovery());
  }

  /** `<launcher> --version`: whether docfact runs, else one sentence saying why not. */
  /** Probes the launcher; when it cannot run docfact, offers to install it or says why. */
  private async usable(launcher: Launcher): Promise<boolean> {
    const { problem, missingDocfact } = await this.probe(launcher);
    if (problem && missingDocfact) {
      this.offerInstall(launcher, problem);
    } else if (problem) {
      this.fail(problem);
    }
    return !problem;
  }

  private probe(launcher: Launcher): Promise<ProbeResult> {
    const [command, ...args] = launcher.argv;
    return new Promise((resolve) => {
      execFile(command, [...args, "--version"], { timeout: PROBE_TIMEOUT_MS, cwd: this.processFolder(), env: processEnvironment() }, (error, stdout, stderr) => {
        if (!error) {
          const printed = `${String(stdout)}${String(stderr)}`.trim();
          this.log.info(`${displayCommand(launcher.argv)} --version: ${printed}`);
          const version = reportedVersion(printed);
          const own = String(this.context.extension.packageJSON.version ?? "");
          if (version && own && version !== own && launcher.source === "docfact's environment" && this.wheel()) {
            // The extension was updated: its environment gets the docfact it carries.
            resolve({ problem: `docfact: ${OWN_ENVIRONMENT} has docfact ${version}, the extension carries ${own}.`, missingDocfact: true });
            return;
          }
          if (version && own && version !== own) {
            this.log.warn(`the server is docfact ${version}, the extension ${own}: install the extension's docfact to have both agree`);
          }
          resolve({ problem: explainProbeOutput(launcher, printed) });
          return;
        }
        const failure = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
        if (stderr) {
          this.log.error(String(stderr).trim());
        }
        const seen = {
          code: failure.code,
          exitCode: typeof failure.code === "number" ? failure.code : null,
          stderr: String(stderr ?? ""),
          timedOut: failure.killed === true && failure.signal === "SIGTERM",
        };
        const notCreated = launcher.source === "docfact's environment" && seen.code === "ENOENT";
        resolve({
          problem: explainProbeFailure(launcher, seen, this.workspaceFolder()),
          missingDocfact: notCreated || (launcher.python !== undefined && isMissingDocfact(seen)),
        });
      });
    });
  }

  /** The docfact wheel the .vsix carries (absent in a development build). */
  private wheel(): string | undefined {
    const folder = this.context.asAbsolutePath("wheels");
    const files = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
    const found = bundledWheel(files);
    return found ? path.join(folder, found) : undefined;
  }

  /** The Python lacks docfact: offer to install it there from the bundled wheel (into
   * docfact's own environment, created first when it does not exist). */
  private offerInstall(launcher: Launcher, problem: string): void {
    const python = launcher.python ?? [];
    const own = launcher.source === "docfact's environment";
    const environment = own ? OWN_ENVIRONMENT : environmentName(python, this.workspaceFolder());
    const wheel = this.wheel();
    if (!wheel) {
      const checkout = displayCommand([...python, "-m", "pip", "install", "<the checkout's folder>"]);
      this.fail(`${problem} Install docfact there (from a docfact checkout: ${checkout}), or set docfact.path to a docfact executable.`);
      return;
    }
    this.fail(problem, { title: `Install docfact into ${environment}`, run: () => void this.install(python, environment, wheel, own) });
  }

  /** [`<base> -m venv <folder>`, when docfact's environment is to be created, then]
   * `<python> -m pip install <wheel>` (from the bundled wheels alone first), with progress;
   * the server restarts when it worked. */
  private async install(python: string[], environment: string, wheel: string, own: boolean): Promise<void> {
    const steps: Step[] = [];
    if (own && !fs.existsSync(python[0] ?? "")) {
      const base = await baseInterpreter(this.discovery());
      this.log.info(`creating docfact's environment with ${displayCommand(base.python)} (${base.source})`);
      fs.mkdirSync(this.context.globalStorageUri.fsPath, { recursive: true });
      steps.push([createEnvironmentCommand(base.python, this.environmentFolder())]);
    }
    steps.push(installCommands(python, wheel, path.dirname(wheel)));
    if (await this.runSteps(steps, environment, `docfact: installing docfact into ${environment}`)) {
      void vscode.window.showInformationMessage(`docfact: installed into ${environment}.`);
      await this.restart(true);
    }
  }

  /** "docfact: Enable Model Features": the `llm` extra into the server's environment, then a
   * restart (modelFeatures.ts). */
  private async enableModelFeatures(): Promise<void> {
    const launcher = this.launcher ?? (await this.findLauncher());
    await enableModelFeatures(launcher, this.wheel(), this.workspaceFolder(), {
      runSteps: (steps, environment, title) => this.runSteps(steps, environment, title),
      inform: (message) => void vscode.window.showInformationMessage(message),
      fail: (message) => this.fail(message),
      restart: () => this.restart(true),
    });
  }

  /** Each step in turn, with progress and its output in the log; a step's commands are
   * tried in order until one works; false (and one message) at a step none of whose
   * commands worked. */
  private async runSteps(steps: Step[], environment: string, title: string): Promise<boolean> {
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, async (progress) => {
      for (const step of steps) {
        for (const [i, [command, ...args]] of step.entries()) {
          this.log.info(`$ ${displayCommand([command, ...args])}`);
          progress.report({ message: displayCommand([command, ...args]) });
          const { code, output } = await this.run(command, args);
          if (code === 0) {
            break;
          }
          if (i === step.length - 1) {
            this.fail(explainInstallFailure(environment, output, code));
            return false;
          }
          this.log.info("that failed: trying the next way");
        }
      }
      return true;
    });
  }

  private run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      let output = "";
      const child = spawn(command, args, { cwd: this.processFolder(), env: processEnvironment() });
      const timer = setTimeout(() => child.kill(), INSTALL_TIMEOUT_MS);
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
        this.log.info(chunk.toString().trimEnd());
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      child.on("error", (error) => {
        clearTimeout(timer);
        resolve({ code: null, output: `${output}\n${String(error)}` });
      });
      child.on("close", (exitCode) => {
        clearTimeout(timer);
        resolve({ code: exitCode, output });
      });
    });
  }

  private workspaceFolder(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** Where docfact's Python processes start: the extension's own storage, never the
   * workspace. Python 3.10 ignores PYTHONSAFEPATH, and `python -m docfact` started in a
   * repository would import the repository's `docfact/` (or `multiprocessing.py`) as the user. */
  private processFolder(): string {
    const folder = this.context.globalStorageUri.fsPath;
    fs.mkdirSync(folder, { recursive: true });
    return folder;
  }

  // --- the server ------------------------------------------------------------------------

  start(): Promise<void> {
    this.starting = this.starting.then(() => this.doStart());
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (this.client) {
      return;
    }
    this.setStatus({ phase: "starting", progress: [], stats: undefined, error: undefined, restricted: !vscode.workspace.isTrusted });
    let launcher: Launcher;
    try {
      launcher = await this.findLauncher();
    } catch (error) {
      this.fail(`docfact: cannot find a Python interpreter: ${String(error)}`);
      return;
    }
    this.launcher = launcher;
    const described = `${displayCommand(launcher.argv)} (${launcher.source})`;
    this.setStatus({ launcher: described });
    this.log.info(`docfact server: ${described}`);
    if (!(await this.usable(launcher))) {
      return;
    }
    this.projectPython = await this.readProjectPython();
    this.log.info(`the project's interpreter: ${this.projectPython ?? "the project's .venv, if any (found by the server)"}`);
    const { command, args } = serverCommand(launcher, this.configuration().get("serverArgs"));
    const serverOptions: ServerOptions = { command, args, options: { cwd: this.processFolder(), env: processEnvironment() } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [...DOCUMENT_SELECTOR],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The hover card's link to its details runs this command, and only this one.
      markdown: { isTrusted: { enabledCommands: [SHOW_CARD_DETAILS] } },
      initializationOptions: initializationOptions((key) => this.configuration().inspect(key), vscode.workspace.isTrusted, this.projectPython, this.workspaceFolder()),
      initializationFailedHandler: (error) => {
        this.fail(`docfact: the server failed to initialize: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
      errorHandler: this.errorHandler(),
      middleware: {
        workspace: {
          // Answer the server's `docfact` section with the explicitly set values only.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            return params.items.map((item, i) => (item.section === SECTION ? this.serverSettings() : answers[i]));
          },
        },
        executeCommand: (command, args, next) => {
          if (DOCUMENT_COMMANDS.includes(command) && args.length === 0) {
            const document = vscode.window.activeTextEditor?.document;
            if (!document || !LANGUAGES.includes(document.languageId)) {
              void vscode.window.showInformationMessage("docfact: open a Python or Java file first.");
              return undefined;
            }
            args = [document.uri.toString()];
          }
          return next(command, args);
        },
      },
    };
    const client = new DocfactClient(SECTION, "docfact", serverOptions, clientOptions);
    client.progressObserver = (token, value) => this.progressChanged(token, value);
    client.errorObserver = (message) => this.fail(`docfact: ${message.replace(/^docfact client: /, "")}`);
    client.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        this.setStatus({ phase: "running", error: undefined });
      } else if (event.newState === State.Stopped && this.status.phase !== "failed") {
        this.setStatus({ phase: "stopped", progress: [] });
      }
    });
    client.onNotification("docfact/status", (raw: unknown) => this.setStatus({ stats: parseStats(raw) }));
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.log.error(`the server did not start: ${error instanceof Error ? error.message : String(error)}`);
      this.fail(this.status.error ?? "docfact: the server did not start.");
    }
  }

  private errorHandler(): ErrorHandler {
    return {
      error: (_error, _message, count) =>
        (count ?? 0) <= 3 ? { action: ErrorAction.Continue, handled: true } : { action: ErrorAction.Shutdown, handled: true },
      closed: () => {
        const now = Date.now();
        this.crashes = this.crashes.filter((t) => now - t < RESTART_WINDOW_MS);
        this.crashes.push(now);
        if (this.crashes.length > MAX_RESTARTS) {
          this.fail(`docfact: the server stopped ${this.crashes.length} times in a few minutes and was not restarted. Use "docfact: Restart Server" after fixing the cause.`);
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        this.log.warn("the server stopped; restarting it");
        return { action: CloseAction.Restart, handled: true };
      },
    };
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.progressTitles.clear();
    if (client) {
      try {
        if (client.needsStop()) {
          await client.stop(5000);
        }
      } catch (error) {
        this.log.warn(`stopping the server: ${String(error)}`);
      }
      await client.dispose().catch(() => undefined);
    }
  }

  async restart(byUser: boolean): Promise<void> {
    if (byUser) {
      this.shownError = undefined; // the user asked: a persisting problem is shown again
      this.crashes = [];
    }
    await this.starting.catch(() => undefined);
    await this.stop();
    this.setStatus({ phase: "stopped", progress: [], error: undefined });
    await this.start();
  }

  /** One clear message per distinct problem, with the logs a click away (and the action
   * that solves it, when there is one). */
  private fail(message: string, action?: { title: string; run: () => void }): void {
    this.log.error(message);
    this.setStatus({ phase: "failed", error: message, progress: [] });
    if (this.shownError === message) {
      return;
    }
    this.shownError = message;
    const choices = [...(action ? [action.title] : []), "Show logs", "Open settings"];
    void vscode.window.showErrorMessage(message, ...choices).then((choice) => {
      if (action && choice === action.title) {
        action.run();
      } else if (choice === "Show logs") {
        this.log.show(true);
      } else if (choice === "Open settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "@ext:docfact.docfact");
      }
    });
  }

  // --- the hover card's details ---------------------------------------------------------

  /** The details of the hover card at [uri, line, character] (the server's markdown), in a
   * read-only markdown document. */
  private async showCardDetails(args: unknown[]): Promise<void> {
    const [uri, line, character] = args;
    if (typeof uri !== "string" || typeof line !== "number" || typeof character !== "number") {
      return;
    }
    const text = await vscode.commands.executeCommand<string | null>(CARD_DETAILS, uri, line, character);
    if (!text) {
      void vscode.window.showInformationMessage("docfact: no card here any more (the file changed).");
      return;
    }
    const shown = this.cards.show(path.basename(vscode.Uri.parse(uri).path), text);
    const document = await vscode.workspace.openTextDocument(shown);
    // In the editor's own column (a column beside it is narrow), as a preview tab.
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Active, preview: true });
  }

  // --- status ----------------------------------------------------------------------------

  private progressChanged(token: string | number, value: WorkDoneValue): void {
    if (value.kind === "begin") {
      this.progressTitles.set(token, value.title);
    } else if (value.kind === "end") {
      this.progressTitles.delete(token);
    }
    this.setStatus({ progress: [...this.progressTitles.values()] });
  }

  private setStatus(change: Partial<StatusState>): void {
    this.status = { ...this.status, ...change };
    this.render();
  }

  private render(): void {
    const view = describeStatus(this.status);
    this.statusItem.text = view.text;
    this.statusItem.detail = view.detail;
    this.statusItem.busy = view.busy;
    this.statusItem.severity =
      view.severity === "error"
        ? vscode.LanguageStatusSeverity.Error
        : view.severity === "warning"
          ? vscode.LanguageStatusSeverity.Warning
          : vscode.LanguageStatusSeverity.Information;
  }

  // --- CLI commands ---------------------------------------------------------------------

  private async cliLauncher(): Promise<Launcher | undefined> {
    const launcher = this.launcher ?? (await this.findLauncher());
    return (await this.usable(launcher)) ? launcher : undefined;
  }

  private async checkWorkspace(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0) {
      void vscode.window.showInformationMessage("docfact: open a folder to check it.");
      return;
    }
    const launcher = await this.cliLauncher();
    if (!launcher) {
      return;
    }
    const [command, ...prefix] = launcher.argv;
    // As the server: the workspace's pyproject.toml chooses a model only when it is trusted.
    const extra = [...checkArguments(this.serverSettings()), ...(vscode.workspace.isTrusted ? ["--trust-project"] : [])];
    this.checkOutput.clear();
    this.checkOutput.show(true);
    for (const folder of folders) {
      const args = [...prefix, "check", ...extra, folder.uri.fsPath];
      this.checkOutput.appendLine(`$ ${displayCommand([command, ...args])}`);
      const status = await new Promise<number | null>((resolve) => {
        const child = spawn(command, args, { cwd: this.processFolder(), env: processEnvironment() });
        child.stdout.on("data", (chunk: Buffer) => this.checkOutput.append(chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => this.checkOutput.append(chunk.toString()));
        child.on("error", (error) => {
          this.checkOutput.appendLine(String(error));
          resolve(null);
        });
        child.on("close", (code) => resolve(code));
      });
      const meaning = status === 0 ? "no findings" : status === 1 ? "findings above" : "failed";
      this.checkOutput.appendLine(`[exit status ${status ?? "?"}: ${meaning}]`);
    }
  }

  private async clearCache(): Promise<void> {
    const launcher = await this.cliLauncher();
    if (!launcher) {
      return;
    }
    const [command, ...prefix] = launcher.argv;
    const cacheDir = this.serverSettings().cacheDir;
    const args = [...prefix, "cache", "clear", ...(typeof cacheDir === "string" ? ["--cache-dir", cacheDir] : [])];
    this.log.info(`$ ${displayCommand([command, ...args])}`);
    execFile(command, args, { cwd: this.processFolder(), timeout: PROBE_TIMEOUT_MS, env: processEnvironment() }, (error, stdout, stderr) => {
      const output = `${String(stdout)}${String(stderr)}`.trim();
      if (output) {
        this.log.info(output);
      }
      if (error) {
        this.fail(`docfact: clearing the cache failed: ${output.split(/\r?\n/).pop() || String(error)}`);
      } else {
        void vscode.window.showInformationMessage(`docfact: cache cleared${output ? ` (${output.split(/\r?\n/).pop()})` : ""}.`);
      }
    });
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new Extension(context);
  extension.register();
  await extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}
