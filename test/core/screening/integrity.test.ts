import { describe, expect, it } from "vitest";
import { parseHookLog } from "../../../src/core/hook-log.js";
import { hookEvidence, integrityProblem } from "../../../src/core/screening/results/integrity.js";

const entry = (event: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    ts: "2026-11-30T02:12:06.584Z",
    session: "s1",
    harness: "claude",
    event,
    eventIndex: 0,
    firings: [],
    verdict: { action: "allow" },
    tracked: [],
    output: null,
    ...extra,
  });

const firing = {
  policyId: "report-check",
  policyVersion: 1,
  ruleId: "read-back",
  point: "stop",
  eventIndex: 4,
  action: "instruct",
  message: "Check the report.",
};

function evidence(lines: string[]) {
  const log = parseHookLog(lines.join("\n"), "hook-log.jsonl");
  expect(log.errors).toEqual([]);
  return hookEvidence(log.entries);
}

describe("integrity before scoring", () => {
  it("counts PreToolUse calls, firings and the first hook fault", () => {
    const ev = evidence([
      entry("UserPromptSubmit"),
      entry("PreToolUse"),
      entry("PreToolUse"),
      entry("Stop", {
        firings: [firing],
        verdict: { action: "instruct", message: "Check the report." },
      }),
    ]);
    expect(ev).toEqual({ preToolUse: 2, firings: 1 });
    expect(integrityProblem("policy", ev)).toBeUndefined();
    expect(integrityProblem("baseline", ev)).toBe("baseline attempt has 1 policy firing(s)");
  });

  it("flags hooked arms without hook activity or with a policy load error", () => {
    expect(integrityProblem("policy", undefined)).toBe("no hook log: the policy hook never ran");
    expect(integrityProblem("sham", evidence([entry("UserPromptSubmit"), entry("Stop")]))).toBe(
      "no PreToolUse hook events: the policy hook never ran",
    );
    const broken = evidence([
      entry("PreToolUse", { eventIndex: null, error: "invalid portfolio (1 error(s))" }),
    ]);
    expect(integrityProblem("always-verify", broken)).toBe(
      "policy load error: invalid portfolio (1 error(s))",
    );
    expect(integrityProblem("baseline", undefined)).toBeUndefined();
  });
});
