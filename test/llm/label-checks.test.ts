import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DetectorHit, runDetectors } from "../../src/core/mine/detectors/index.js";
import { inScope, isNamed, type Label } from "../../src/core/mine/label.js";
import { Attempt } from "../../src/core/model/attempt.js";
import { labelAttempts } from "../../src/llm/index.js";
import { type LlmLabelAnswer, NAME_CONFIDENCE } from "../../src/llm/label.js";
import { collect } from "../core/ingest/collect.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { goodAnswer, hitsFor, makeAttempt, stopHitsFor } from "./attempts.js";

/*
 * The checks fire runs on a valid LLM answer before it becomes a label (src/llm/label.ts):
 * nothing here changes what the model is asked, so recorded answers stay valid. Each test
 * answers through a real loopback OpenAI-compatible server.
 */

let fake: FakeOpenAI;
let cacheDir: string;
beforeEach(async () => {
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-llm-checks-"));
});
afterEach(async () => {
  await fake.close();
  await rm(cacheDir, { recursive: true, force: true });
});

/** Label one attempt with the server answering `answer` (a fresh cache each call). */
async function labelWith(
  a: Attempt,
  answer: Partial<LlmLabelAnswer>,
  population?: Attempt[],
  hits: DetectorHit[] = hitsFor(a),
  llm: { nameUncorroborated?: boolean } = {},
): Promise<Label> {
  await rm(cacheDir, { recursive: true, force: true });
  fake.respond = () => ({ kind: "json", answer: goodAnswer(answer) });
  const { labels } = await labelAttempts([a], {
    evidence: new Map([[a.id, hits]]),
    config: { model: "fake-model", maxRetries: 0, ...llm },
    cacheDir,
    apiKey: "sk-checks-test-0123456789abcdefghij",
    baseURL: fake.baseURL,
    ...(population ? { population } : {}),
  });
  const label = labels[0];
  if (!label) throw new Error("no label");
  expect(label.unlabelledReason).toBeUndefined();
  return label;
}

/** Why fire refused an answer (invalid after its one repair), with the prompt it sent. */
async function refusal(
  a: Attempt,
  answer: Partial<LlmLabelAnswer>,
  limits: { maxPromptTokens?: number; minPromptTokens?: number } = {},
): Promise<{ reason: string | undefined; prompt: string }> {
  await rm(cacheDir, { recursive: true, force: true });
  fake.respond = () => ({ kind: "json", answer: goodAnswer(answer) });
  const { labels } = await labelAttempts([a], {
    evidence: new Map([[a.id, hitsFor(a)]]),
    config: { model: "fake-model", maxRetries: 0, ...limits },
    cacheDir,
    apiKey: "sk-checks-test-0123456789abcdefghij",
    baseURL: fake.baseURL,
  });
  return {
    reason: labels[0]?.unlabelledReason,
    prompt: fake.chat.at(-1)?.messages[1]?.content ?? "",
  };
}

/** A run its time limit ended, with the limit in its exception's message. */
const timedOut = (id: string): Attempt =>
  Attempt.parse({
    ...makeAttempt(id),
    outcome: "timeout",
    durationS: 900,
    exception: {
      type: "AgentTimeoutError",
      message: "Agent execution timed out after 900 seconds",
    },
  });

/** makeAttempt's destructive call (index 7): the mechanism's event. */
const CLEANUP = 7;
const cleanup = (excerpt: string): LlmLabelAnswer["evidence"][number] => ({
  claim: "mechanism",
  from: "event",
  eventIndex: CLEANUP,
  attemptId: null,
  excerpt,
});

describe("an LLM answer is named only with evidence found where it says", () => {
  it("a name at or below the confidence bar stays for review, with the suspect and the reason", async () => {
    const a = makeAttempt("conf-1");
    const at = await labelWith(a, {
      confidence: NAME_CONFIDENCE,
      evidence: [cleanup("rm -rf /app/dist")],
    });
    expect(at.status).toBe("needs_review");
    expect(inScope(at)).toBe(true);
    expect(isNamed(at)).toBe(false);
    expect(at.mechanismId).toBeUndefined();
    expect(at.family).toBeUndefined();
    expect(at.confidence).toBe(NAME_CONFIDENCE);
    expect(at.suspected).toEqual([{ mechanismId: "deployment-preservation", strength: 1 }]);
    expect(at.rationale).toContain(`not named: confidence ${NAME_CONFIDENCE} is not above`);

    const above = await labelWith(a, {
      confidence: NAME_CONFIDENCE + 0.05,
      evidence: [cleanup("rm -rf /app/dist")],
    });
    expect(above.status).toBe("named");
    expect(above.mechanismId).toBe("deployment-preservation");
    expect(above.suspected).toBeUndefined();
  });

  it("a quote the cited event does not hold shows nothing; a quote cut by the prompt still counts", async () => {
    const a = makeAttempt("quote-1");
    const invented = await labelWith(a, { evidence: [cleanup("rm -rf /srv/www/html")] });
    expect(invented.status).toBe("needs_review");
    expect(invented.rationale).toContain("no mechanism or state claim cites evidence found");
    // the event index exists: the answer is valid, only the name is withheld
    expect(invented.evidence?.[0]?.eventIndex).toBe(CLEANUP);

    const cut = await labelWith(a, {
      evidence: [cleanup("$ git clone https://…[52 chars cut]…&& rm -rf /app/dist")],
    });
    expect(cut.status).toBe("named");
    expect(cut.mechanismId).toBe("deployment-preservation");
  });

  it("a line the prompt showed as the verifier's, its test tally included, is quotable", async () => {
    const a = Attempt.parse({
      ...makeAttempt("tally-1"),
      verifierOutput: "collected 2 items\n",
      verifierTests: [
        { name: "test_health", status: "failed", message: "assert 503 == 200" },
        { name: "test_build", status: "passed" },
      ],
    });
    const tally = {
      claim: "mechanism" as const,
      from: "verifier" as const,
      eventIndex: null,
      attemptId: null,
      excerpt: "tests: 1 failed, 1 passed",
    };
    const label = await labelWith(a, { evidence: [tally, cleanup("rm -rf /app/dist")] });
    expect(fake.chat.at(-1)?.messages[1]?.content).toContain("tests: 1 failed, 1 passed");
    expect(label.status).toBe("named");
    // a tally the prompt never showed is dropped: it shows nothing and is not stored
    const never = await labelWith(a, {
      evidence: [{ ...tally, excerpt: "tests: 7 failed, 0 passed" }],
    });
    expect(never.status).toBe("needs_review");
    expect(never.evidence ?? []).toEqual([]);
  });

  it("a line of the run's record, as the prompt showed it, is quotable; one it never showed is refused", async () => {
    const a = timedOut("record-1");
    const record = {
      claim: "mechanism" as const,
      from: "result" as const,
      eventIndex: null,
      attemptId: null,
      excerpt: "exception AgentTimeoutError: Agent execution timed out after 900 seconds",
    };
    // the record alone: a run whose events are not cited still shows its mechanism
    const label = await labelWith(a, { evidence: [record] });
    expect(fake.chat.at(-1)?.messages[1]?.content).toContain(
      "exception AgentTimeoutError: Agent execution timed out after 900 seconds",
    );
    expect(label.status).toBe("named");
    expect(label.evidence?.[0]).toMatchObject({ from: "result", claim: "mechanism" });
    // a record line the prompt never showed is refused (the answer is invalid after repair)
    const { reason } = await refusal(a, {
      evidence: [{ ...record, excerpt: "exception RateLimitError: 429" }],
    });
    expect(reason).toContain("must quote the run's record exactly");
  });

  it("a record line the budget left out of the prompt is not quotable", async () => {
    const quote = {
      claim: "mechanism" as const,
      from: "result" as const,
      eventIndex: null,
      attemptId: null,
      excerpt: "Agent execution timed out after 900 seconds",
    };
    const { reason, prompt } = await refusal(
      timedOut("record-2"),
      { evidence: [quote] },
      { maxPromptTokens: 150, minPromptTokens: 100 },
    );
    expect(prompt).not.toContain("## Run end");
    expect(prompt).not.toContain("timed out after 900 seconds");
    expect(reason).toContain("must quote the run's record exactly");
  });

  it("a sibling claim counts only for the passing sibling the prompt compared with", async () => {
    const failed = makeAttempt("sib-fail");
    const passed = Attempt.parse({
      ...makeAttempt("sib-pass"),
      outcome: "pass",
      reward: 1,
      verifierOutput: "1 passed in 0.20s",
    });
    const bySibling = (attemptId: string): Partial<LlmLabelAnswer> => ({
      evidence: [
        {
          claim: "state",
          from: "sibling",
          eventIndex: null,
          attemptId,
          excerpt: "the sibling kept the deployment",
        },
      ],
    });
    const real = await labelWith(failed, bySibling(passed.id), [failed, passed]);
    expect(fake.chat.at(-1)?.messages[1]?.content).toContain(`passing sibling ${passed.id}`);
    expect(real.status).toBe("named");
    const other = await labelWith(failed, bySibling("some-other-attempt"), [failed, passed]);
    expect(other.status).toBe("needs_review");
  });

  it("takes no detector family for a model that named no known id", async () => {
    // the detectors agree on deployment-preservation; the model, shown them, chose none
    const label = await labelWith(makeAttempt("free-1"), {
      mechanismId: null,
      mechanism: "removed the build output after the probe",
      evidence: [cleanup("rm -rf /app/dist")],
    });
    expect(label.status).toBe("named");
    expect(label.mechanismId).toBeUndefined();
    expect(label.family).toBeUndefined();
    expect(label.mechanism).toBe("removed the build output after the probe");
    expect(isNamed(label)).toBe(false);
  });

  it("a known mechanism no detector reads is the model's reading alone: kept for review", async () => {
    // the quote is found, the confidence is above the bar; only the detectors disagree
    // (hitsFor reads deployment-preservation, nothing reads an overwritten file)
    const a = makeAttempt("alone-1");
    const overwrote: Partial<LlmLabelAnswer> = {
      mechanismId: "overwrote-existing-file",
      mechanism: "deleted the built site",
      evidence: [cleanup("rm -rf /app/dist")],
    };
    const alone = await labelWith(a, overwrote);
    expect(alone.status).toBe("needs_review");
    expect(inScope(alone)).toBe(true);
    expect(isNamed(alone)).toBe(false);
    expect(alone.rationale).toContain("not named: no detector reads this mechanism in the trace");
    expect(alone.suspected).toEqual([{ mechanismId: "overwrote-existing-file", strength: 1 }]);
    // a detector reading the same mechanism is the second reading
    const read: DetectorHit = {
      detectorId: "safety.overwrote-existing",
      mechanism: "overwrote-existing-file",
      eventIndices: [CLEANUP],
      reason: "removed a path that existed before the run",
    };
    const both = await labelWith(a, overwrote, undefined, [...hitsFor(a), read]);
    expect(both.status).toBe("named");
    expect(both.mechanismId).toBe("overwrote-existing-file");
    // a user who wants the model's reading alone named says so in the config
    const trusted = await labelWith(a, overwrote, undefined, hitsFor(a), {
      nameUncorroborated: true,
    });
    expect(trusted.status).toBe("named");
    expect(trusted.mechanismId).toBe("overwrote-existing-file");
  });

  it("a procedural loss without capability evidence found is policy-addressable", async () => {
    const a = makeAttempt("kind-1");
    const none = await labelWith(a, {
      kind: "procedural_loss",
      capabilityEvidence: [],
      evidence: [
        // cites an event that exists, but the quote is not in it
        { claim: "capability", from: "event", eventIndex: 6, attemptId: null, excerpt: "200 OK" },
        cleanup("rm -rf /app/dist"),
      ],
    });
    expect(none.kind).toBe("policy_addressable");
    expect(none.isProceduralLoss).toBe(false);
    expect(none.status).toBe("named");

    const shown = await labelWith(a, {
      kind: "procedural_loss",
      capabilityEvidence: [],
      evidence: [
        {
          claim: "capability",
          from: "event",
          eventIndex: 6,
          attemptId: null,
          excerpt: '{"ok":true}',
        },
        cleanup("rm -rf /app/dist"),
      ],
    });
    expect(shown.kind).toBe("procedural_loss");
    expect(shown.isProceduralLoss).toBe(true);
  });
});

describe("a named stop check is read against the trial's record", () => {
  const stopAnswer: Partial<LlmLabelAnswer> = {
    kind: "policy_addressable",
    mechanismId: "stop-without-check",
    mechanism: "stopped without checking",
    interventionPoint: "stop",
    capabilityEvidence: [],
    evidence: [
      { claim: "state", from: "event", eventIndex: 9, attemptId: null, excerpt: "Done, the app" },
    ],
  };

  it("keeps it when the agent chose the stop and the deliverable exists", async () => {
    const a = makeAttempt("stop-1");
    const label = await labelWith(a, stopAnswer, undefined, stopHitsFor(a));
    expect(label.mechanismId).toBe("stop-without-check");
    expect(label.status).toBe("named");
  });

  it("a run that hit its time limit did not choose its stop: no deliverable by the deadline", async () => {
    const a = Attempt.parse({ ...makeAttempt("stop-2"), outcome: "timeout" });
    const label = await labelWith(a, stopAnswer);
    expect(label.mechanismId).toBe("deadline-no-deliverable");
    expect(label.status).toBe("named");
    expect(label.mechanism).toBe("stopped without checking");
    expect(label.rationale).toContain("read as deadline-no-deliverable");
  });

  it("a stop with a deliverable the verifier reports missing and never written: artifact never written", async () => {
    const a = Attempt.parse({
      ...makeAttempt("stop-3"),
      verifierOutput:
        "FAILED test_report - FileNotFoundError: [Errno 2] No such file or directory: '/app/out/report.json'",
    });
    const label = await labelWith(a, stopAnswer);
    expect(label.mechanismId).toBe("artifact-never-written");
    expect(label.rationale).toContain("/app/out/report.json");
    // written somewhere by the agent: the generic stop check stands
    const written = Attempt.parse({
      ...a,
      id: "stop-4",
      events: [
        ...a.events.slice(0, -1),
        {
          index: 10,
          kind: "tool_call",
          tool: "Write",
          input: '{"file_path":"/app/out/report.json","content":"{}"}',
          writes: ["/app/out/report.json"],
          callId: "w1",
        },
        { index: 11, kind: "stop" },
      ],
    });
    const stop = await labelWith(written, stopAnswer, undefined, stopHitsFor(written));
    expect(stop.mechanismId).toBe("stop-without-check");
  });

  it("a stop whose submitted patch the record calls empty: artifact never written", async () => {
    const a = Attempt.parse({
      ...makeAttempt("stop-6"),
      verifierOutput:
        "the submitted patch is empty: the last call's git diff printed nothing, so no change was graded",
    });
    const label = await labelWith(a, stopAnswer);
    expect(label.mechanismId).toBe("artifact-never-written");
    expect(label.rationale).toContain("the submitted deliverable empty");
    // a patch that was graded and failed is no empty deliverable: the stop check stands
    const graded = Attempt.parse({ ...a, id: "stop-7", verifierOutput: "resolved: false" });
    const stop = await labelWith(graded, stopAnswer, undefined, stopHitsFor(graded));
    expect(stop.mechanismId).toBe("stop-without-check");
  });

  /** makeAttempt with one more write (whole-file, `content`) before its stop. */
  const withWrite = (a: Attempt, path: string, content: string): Attempt =>
    Attempt.parse({
      ...a,
      events: [
        ...a.events.slice(0, -1),
        {
          index: 10,
          kind: "tool_call",
          tool: "Write",
          input: JSON.stringify({ file_path: path, content }),
          writes: [path],
          callId: "w1",
        },
        { index: 11, kind: "stop" },
      ],
    });

  it("a missing file the agent's own written code names is an input, not a deliverable never written", async () => {
    const a = withWrite(
      Attempt.parse({
        ...makeAttempt("stop-10"),
        verifierOutput:
          "FAILED test_mean - FileNotFoundError: [Errno 2] No such file or directory: '/app/input.csv'",
      }),
      "/app/solution.py",
      "import pandas as pd\nprint(pd.read_csv('/app/input.csv').x.mean())\n",
    );
    const label = await labelWith(a, stopAnswer, undefined, stopHitsFor(a));
    expect(label.status).toBe("needs_review");
    expect(label.mechanismId).toBeUndefined();
    expect(label.rationale).toContain("own written code names it");
  });

  it("a missing file the agent wrote under another folder is a path, not a stop", async () => {
    const a = withWrite(
      Attempt.parse({
        ...makeAttempt("stop-11"),
        verifierOutput: "FAILED test_out - AssertionError: /app/result.txt does not exist",
      }),
      "/workspace/result.txt",
      "42",
    );
    const label = await labelWith(a, stopAnswer, undefined, stopHitsFor(a));
    expect(label.status).toBe("needs_review");
    expect(label.mechanismId).toBeUndefined();
    expect(label.rationale).toContain("the agent wrote /workspace/result.txt");
  });

  it("a timed-out run that wrote its deliverable is no deadline without one, unless the deadline detector reads it", async () => {
    const a = withWrite(
      Attempt.parse({
        ...makeAttempt("stop-12"),
        taskText: "Write /app/solution.py that prints the mean.",
        outcome: "timeout",
        verifierOutput: "FAILED test_mean - AssertionError: expected 3.5, got 3.0",
      }),
      "/app/solution.py",
      "print(3.0)\n",
    );
    const label = await labelWith(a, stopAnswer, undefined, stopHitsFor(a));
    expect(label.status).toBe("needs_review");
    expect(label.mechanismId).toBeUndefined();
    expect(label.rationale).toContain("after writing its deliverable");
    // the deadline detector's own reading (a placeholder over fuller content) names it
    const churn: DetectorHit = {
      detectorId: "deadline.no-deliverable",
      mechanism: "deadline-no-deliverable",
      eventIndices: [11],
      reason: "timed out while rewriting /app/solution.py",
    };
    const named = await labelWith(a, stopAnswer, undefined, [...stopHitsFor(a), churn]);
    expect(named.status).toBe("named");
    expect(named.mechanismId).toBe("deadline-no-deliverable");
  });

  it("an agent offered no tool that runs code could not check: kept for review", async () => {
    const a = Attempt.parse({
      ...makeAttempt("stop-8"),
      offeredTools: ["search_code", "write_patch"],
    });
    const label = await labelWith(a, stopAnswer, undefined, stopHitsFor(a));
    expect(label.status).toBe("needs_review");
    expect(label.rationale).toContain("offered no tool that runs code");
    const shell = Attempt.parse({ ...a, id: "stop-9", offeredTools: ["search_code", "bash"] });
    expect((await labelWith(shell, stopAnswer, undefined, stopHitsFor(shell))).status).toBe(
      "named",
    );
  });

  it("a run the harness ended otherwise shows no stop to name: kept for review", async () => {
    const a = Attempt.parse({
      ...makeAttempt("stop-5"),
      exception: { type: "AgentCrashed", message: "the agent process exited" },
    });
    const label = await labelWith(a, stopAnswer);
    expect(label.status).toBe("needs_review");
    expect(label.rationale).toContain("the harness ended the run");
  });
});

describe("a run that ended with its terminal waiting for input shows no stop to name", () => {
  it("a named stop-time mechanism stays for review; a tool-time one is named", async () => {
    // a real Terminus-2 trial (test/fixtures/harbor-terminus2-waiting/README.md)
    const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-terminus2-waiting")]);
    const a = got.attempts.find((x) => x.id.includes("8bfzFj2")) as Attempt;
    const hits = runDetectors(a, { siblings: [] });
    expect(hits.some((h) => h.detectorId === "shell.waiting-for-input")).toBe(true);
    const md5 = a.events.find((e) => e.kind === "tool_call" && /^md5sum /.test(e.command ?? ""));
    const answer = (mechanismId: LlmLabelAnswer["mechanismId"]): Partial<LlmLabelAnswer> => ({
      kind: "policy_addressable",
      mechanismId,
      mechanism: "the agent read silence as success",
      capabilityEvidence: [],
      evidence: [
        {
          claim: "state",
          from: "event",
          eventIndex: md5?.index ?? 0,
          attemptId: null,
          excerpt: "md5sum preprocess_data.py",
        },
      ],
    });
    const stop = await labelWith(a, answer("stop-without-check"), undefined, hits);
    expect(stop.status).toBe("needs_review");
    expect(stop.rationale).toContain("terminal waiting for an earlier command's input");
    // a tool-time mechanism a detector also reads (the loop detector's hit, as it reports one)
    const loop: DetectorHit = {
      detectorId: "loop.repeated-failure",
      mechanism: "repeated-tool-error",
      eventIndices: [md5?.index ?? 0],
      reason: "the same failing call repeated",
    };
    const tool = await labelWith(a, answer("repeated-tool-error"), undefined, [...hits, loop]);
    expect(tool.status).toBe("named");
    expect(tool.mechanismId).toBe("repeated-tool-error");
    // the same answer without the waiting state names the stop check
    const without = hits.filter((h) => h.detectorId !== "shell.waiting-for-input");
    const named = await labelWith(a, answer("stop-without-check"), undefined, without);
    expect(named.status).toBe("named");
  });
});
