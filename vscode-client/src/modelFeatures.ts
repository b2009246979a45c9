/**
 * "docfact: Enable Model Features": the `llm` extra (litellm, hypothesis, numpy) installed
 * into the environment the server runs from, then the server restarted, so that the model
 * is used at once (a running server has already decided that litellm is missing). What it
 * does with VS Code goes through `ModelFeaturesHost`, so that it is unit-tested without it.
 */
import { displayCommand, environmentName, type Launcher, modelFeaturesCommand, OWN_ENVIRONMENT } from "./interpreter";

export interface ModelFeaturesHost {
  /** Runs each step's commands with progress; false (after telling why) when one failed. */
  runSteps(steps: string[][][], environment: string, title: string): Promise<boolean>;
  inform(message: string): void;
  fail(message: string): void;
  restart(): Promise<void>;
}

/** Installs the model features where `launcher` runs docfact, then restarts the server;
 * true when they were installed. */
export async function enableModelFeatures(
  launcher: Launcher,
  wheel: string | undefined,
  workspaceFolder: string | undefined,
  host: ModelFeaturesHost,
): Promise<boolean> {
  if (!launcher.python) {
    host.fail(`docfact: ${displayCommand(launcher.argv)} is not run by a Python known here; install docfact's llm extra where it lives.`);
    return false;
  }
  const environment = launcher.source === "docfact's environment" ? OWN_ENVIRONMENT : environmentName(launcher.python, workspaceFolder);
  const steps = [[modelFeaturesCommand(launcher.python, wheel)]];
  if (!(await host.runSteps(steps, environment, `docfact: installing the model features into ${environment}`))) {
    return false;
  }
  host.inform(
    `docfact: the model features are installed into ${environment} (${displayCommand(launcher.python)}); the server restarts to use them. Set docfact.llm.model to choose the model.`,
  );
  await host.restart();
  return true;
}
