import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Launcher } from "../interpreter";
import { enableModelFeatures, type ModelFeaturesHost } from "../modelFeatures";

const OWN: Launcher = { argv: ["/s/env/bin/python", "-m", "docfact"], source: "docfact's environment", python: ["/s/env/bin/python"] };

/** A host that records what happened, in order; its install works when `installs` says so. */
function host(installs: boolean): ModelFeaturesHost & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    runSteps: async (steps) => {
      events.push(`install ${steps[0]?.[0]?.join(" ")}`);
      return installs;
    },
    inform: (message) => events.push(`inform ${message}`),
    fail: (message) => events.push(`fail ${message}`),
    restart: async () => {
      events.push("restart");
    },
  };
}

describe("Enable Model Features", () => {
  it("restarts the server after the extra is installed, so the model is used at once", async () => {
    const seen = host(true);
    assert.equal(await enableModelFeatures(OWN, "/x/wheels/docfact-1.0-py3-none-any.whl", undefined, seen), true);
    assert.equal(seen.events.length, 3);
    assert.equal(seen.events[0], "install /s/env/bin/python -m pip install /x/wheels/docfact-1.0-py3-none-any.whl[llm]");
    assert.match(seen.events[1] ?? "", /^inform docfact: the model features are installed into its own environment .*the server restarts/);
    assert.equal(seen.events[2], "restart");
  });

  it("leaves the server alone when the install failed (the failure was told)", async () => {
    const seen = host(false);
    assert.equal(await enableModelFeatures(OWN, undefined, undefined, seen), false);
    assert.deepEqual(seen.events.filter((e) => e === "restart" || e.startsWith("inform")), []);
  });

  it("says where to install when docfact is not run by a known Python", async () => {
    const seen = host(true);
    const path: Launcher = { argv: ["/opt/bin/docfact"], source: "docfact.path" };
    assert.equal(await enableModelFeatures(path, undefined, undefined, seen), false);
    assert.equal(seen.events.length, 1);
    assert.match(seen.events[0] ?? "", /^fail docfact: \/opt\/bin\/docfact is not run by a Python known here/);
  });
});
