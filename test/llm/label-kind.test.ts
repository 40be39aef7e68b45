import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  inScope,
  isNamed,
  SCOPE_DEFINITIONS,
  STATUS_DEFINITION,
} from "../../src/core/mine/label.js";
import type { Attempt } from "../../src/core/model/attempt.js";
import { labelAttempts } from "../../src/llm/index.js";
import type { LlmLabelAnswer } from "../../src/llm/label.js";
import { LABEL_SYSTEM_PROMPT } from "../../src/llm/prompt.js";
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { goodAnswer, makeAttempt, stopHitsFor } from "./attempts.js";

let fake: FakeOpenAI;
let cacheDir: string;
beforeEach(async () => {
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-llm-kind-"));
});
afterEach(async () => {
  await fake.close();
  await rm(cacheDir, { recursive: true, force: true });
});

/**
 * Label one attempt with the server answering `answers` in turn (then the last again); its
 * hits include the stop detector's, so a named stop check has a second reading.
 */
async function labelWith(a: Attempt, ...answers: Partial<LlmLabelAnswer>[]) {
  fake.respond = (_b: ChatBody, n: number) => ({
    kind: "json",
    answer: goodAnswer(answers[Math.min(n, answers.length - 1)]),
  });
  const { labels, report } = await labelAttempts([a], {
    evidence: new Map([[a.id, stopHitsFor(a)]]),
    config: { model: "fake-model", maxRetries: 0 },
    cacheDir,
    apiKey: "sk-kind-test-0123456789abcdefghij",
    baseURL: fake.baseURL,
  });
  const label = labels[0];
  if (!label) throw new Error("no label");
  return { label, report };
}

describe("the LLM labeller's scope definitions and answer", () => {
  it("quotes core's one definition of the in-scope kinds, exclusions and status", () => {
    for (const line of SCOPE_DEFINITIONS) expect(LABEL_SYSTEM_PROMPT).toContain(line);
    expect(LABEL_SYSTEM_PROMPT).toContain(STATUS_DEFINITION);
    // capability evidence is not required for the policy-addressable kind
    expect(LABEL_SYSTEM_PROMPT).toMatch(/policy_addressable: no capability evidence/);
  });

  it("keeps a policy-addressable failure in scope, named, and not a procedural loss", async () => {
    const { label } = await labelWith(makeAttempt("pa-1"), {
      kind: "policy_addressable",
      mechanismId: "stop-without-check",
      capabilityEvidence: [],
      evidence: [
        { claim: "state", from: "event", eventIndex: 9, attemptId: null, excerpt: "Done" },
        {
          claim: "mechanism",
          from: "verifier",
          eventIndex: null,
          attemptId: null,
          excerpt: "FAILED test_health - ConnectionRefusedError",
        },
      ],
    });
    expect(label.kind).toBe("policy_addressable");
    expect(label.isProceduralLoss).toBe(false);
    expect(label.status).toBe("named");
    expect(inScope(label)).toBe(true);
    expect(isNamed(label)).toBe(true);
    expect(label.mechanismId).toBe("stop-without-check");
    expect(label.evidence?.map((e) => e.from)).toEqual(["event", "verifier"]);
  });

  it("accepts a needs-review answer whose free-text mechanism is null, in one request", async () => {
    const { label, report } = await labelWith(makeAttempt("nr-null"), {
      kind: "policy_addressable",
      status: "needs_review",
      mechanismId: null,
      mechanism: null,
    });
    expect(report.repairs).toBe(0);
    expect(fake.requests.length).toBe(1);
    expect(label.status).toBe("needs_review");
    expect(label.mechanism).toBe("none named");
    expect(label.mechanismId).toBeUndefined();
  });

  it("a named answer without evidence of its mechanism is kept for review, with no mechanism", async () => {
    const { label } = await labelWith(makeAttempt("nr-1"), {
      status: "named",
      mechanismId: "deployment-preservation",
      evidence: [
        { claim: "capability", from: "event", eventIndex: 6, attemptId: null, excerpt: "ok" },
      ],
    });
    expect(label.status).toBe("needs_review");
    expect(label.mechanismId).toBeUndefined();
    expect(label.family).toBeUndefined();
    expect(inScope(label)).toBe(true);
    expect(isNamed(label)).toBe(false);
    expect(label.evidenceEvents).toEqual([6]);
  });

  it("drops a verifier quote that is not in the verifier's output, not the whole answer", async () => {
    const made = (excerpt: string): Partial<LlmLabelAnswer> => ({
      evidence: [
        { claim: "mechanism", from: "verifier", eventIndex: null, attemptId: null, excerpt },
        { claim: "state", from: "event", eventIndex: 6, attemptId: null, excerpt: '{"ok":true}' },
      ],
    });
    const { label, report } = await labelWith(
      makeAttempt("vq-1"),
      made("AssertionError: expected 200 got 404"),
    );
    expect(report.repairs).toBe(0);
    expect(label.unlabelledReason).toBeUndefined();
    // the misquote is not stored as the verifier's; the name rests on the event it cites
    expect(label.evidence?.map((e) => e.from)).toEqual(["event"]);
    expect(label.status).toBe("named");
    // a quote that is there is kept
    await rm(cacheDir, { recursive: true, force: true });
    const kept = await labelWith(makeAttempt("vq-2"), made("ConnectionRefusedError: [Errno 111]"));
    expect(kept.label.evidence?.[0]?.excerpt).toBe("ConnectionRefusedError: [Errno 111]");
  });

  it("a verifier quote matches without the terminal's colour escapes it could not reproduce", async () => {
    const a = {
      ...makeAttempt("vq-esc"),
      verifierOutput: "\u001b[31;1m/app/db/user.go:100 \u001b[35;1mrecord not found\u001b[0m\n",
    };
    const { label, report } = await labelWith(a, {
      evidence: [
        {
          claim: "mechanism",
          from: "verifier",
          eventIndex: null,
          attemptId: null,
          excerpt: "[31;1m/app/db/user.go:100 [35;1mrecord not found",
        },
      ],
    });
    expect(report.repairs).toBe(0);
    expect(label.unlabelledReason).toBeUndefined();
  });

  it("an in-scope answer needs its kind; an excluded one keeps a second reading", async () => {
    const bad = await labelWith(makeAttempt("k-1"), { kind: null });
    expect(bad.label.unlabelledReason).toContain("needs its kind");

    await rm(cacheDir, { recursive: true, force: true });
    const { label } = await labelWith(makeAttempt("sr-1"), {
      exclusion: "provider_fault",
      kind: null,
      mechanismId: "artifact-never-written",
      evidence: [
        { claim: "fault", from: "event", eventIndex: 9, attemptId: null, excerpt: "final turn" },
      ],
      secondReading: {
        kind: "policy_addressable",
        interventionPoint: "stop",
        why: "the stop left the deliverable missing",
      },
    });
    expect(inScope(label)).toBe(false);
    expect(label.kind).toBeUndefined();
    expect(label.status).toBeUndefined();
    expect(label.secondReading).toEqual({
      kind: "policy_addressable",
      mechanismId: "artifact-never-written",
      interventionPoint: "stop",
      why: "the stop left the deliverable missing",
    });
  });
});
