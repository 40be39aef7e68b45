import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { faultOf } from "../../../src/core/mine/triage.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { tempDirs } from "../../helpers/temp-dirs.js";
import { collectOne } from "../ingest/collect.js";

/** A real Harbor trial published without agent/ (README there): its agent exited 1 after 57 min. */
const TRIAL = resolve(REPO_ROOT, "test/fixtures/harbor-no-agent/regex-chess__dcdjgBy");
const temp = tempDirs();

describe("a trial whose agent steps were not kept", () => {
  it("loads with its verdict and no actions, and its agent's own exit is no harness fault", async () => {
    const a = await collectOne(TRIAL);
    // graded 0 with an exception: an errored trial
    expect(a.outcome).toBe("error");
    expect(a.reward).toBe(0);
    expect(a.events.filter((e) => e.kind === "tool_call")).toHaveLength(0);
    expect(a.exception?.type).toBe("NonZeroAgentExitCodeError");
    // the recorded usage shows the model answered: the agent ran, so it did not "never start"
    expect(a.tokens?.output).toBeGreaterThan(0);
    expect(faultOf(a)?.reason).toBeUndefined();
  });

  it("reads the same exit with no model output as a run that never started", async () => {
    const dir = temp.copyOf(TRIAL, "fire-no-agent-");
    const file = resolve(dir, "result.json");
    const r = JSON.parse(readFileSync(file, "utf8")) as { agent_result: Record<string, unknown> };
    r.agent_result = { ...r.agent_result, n_output_tokens: 0, n_input_tokens: 0 };
    writeFileSync(file, JSON.stringify(r));
    const b = await collectOne(dir);
    expect(faultOf(b)).toMatchObject({ reason: "provider_fault", code: "harness-exception" });
  });
});
