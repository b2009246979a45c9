import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeStatus, formatTokens, parseStats } from "../status";

describe("describeStatus", () => {
  it("starting, failed and stopped", () => {
    assert.equal(describeStatus({ phase: "starting", progress: [] }).text, "docfact: starting");
    const failed = describeStatus({ phase: "failed", progress: [], error: "docfact: Python was not found" });
    assert.equal(failed.severity, "error");
    assert.equal(failed.detail, "docfact: Python was not found");
    assert.equal(describeStatus({ phase: "stopped", progress: [] }).severity, "warning");
  });

  it("indexing from the server's progress", () => {
    const view = describeStatus({ phase: "running", progress: ["docfact: indexing workspace"] });
    assert.equal(view.text, "docfact: indexing");
    assert.equal(view.busy, true);
  });

  it("model calls in flight and tokens spent", () => {
    const stats = parseStats({ inFlight: 2, calls: 7, promptTokens: 12_000, completionTokens: 345, failures: 1 });
    const view = describeStatus({ phase: "running", progress: [], stats, launcher: "python3 -m docfact (PATH)" });
    assert.equal(view.text, "docfact · 2 model calls · 12k tok");
    assert.match(view.detail, /7 model calls, 12k tokens \(12k prompt, 345 completion\)/);
    assert.match(view.detail, /1 failed model call/);
    assert.match(view.detail, /Server: python3 -m docfact \(PATH\)/);
    assert.equal(view.severity, "warning");
    assert.equal(view.busy, true);
  });

  it("says what keeps the model features from working, as the server tells it", () => {
    const unset = "the model openai/gpt-4o-mini needs the environment variable OPENAI_API_KEY, which is not set";
    const stats = parseStats({ calls: 0, problems: [unset, 3] });
    const view = describeStatus({ phase: "running", progress: [], stats });
    assert.equal(view.text, "docfact · 1 model problem");
    assert.ok(view.detail.startsWith(unset));
    assert.equal(view.severity, "warning");
    const fixed = describeStatus({ phase: "running", progress: [], stats: parseStats({ calls: 2, problems: [] }) });
    assert.equal(fixed.severity, "information");
  });

  it("says Restricted Mode and what it leaves out", () => {
    const view = describeStatus({ phase: "running", progress: [], restricted: true });
    assert.equal(view.text, "docfact (restricted)");
    assert.match(view.detail, /checks without a model.*Trust the workspace/);
  });

  it("idle", () => {
    const view = describeStatus({ phase: "running", progress: [], stats: parseStats({}) });
    assert.deepEqual([view.text, view.busy, view.severity], ["docfact", false, "information"]);
  });

  it("parseStats tolerates junk", () => {
    assert.equal(parseStats(null), undefined);
    assert.deepEqual(parseStats({ inFlight: "x", calls: 1 }), { inFlight: 0, calls: 1, promptTokens: 0, completionTokens: 0, failures: 0, problems: [] });
  });

  it("formatTokens", () => {
    assert.deepEqual([0, 999, 1234, 45_678, 2_500_000].map(formatTokens), ["0", "999", "1.2k", "46k", "2.5M"]);
  });
});
