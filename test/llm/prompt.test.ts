import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../src/core/mine/detectors/index.js";
import { Attempt } from "../../src/core/model/attempt.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { writeDemo } from "../../src/gen/demo.js";
import { LlmConfig } from "../../src/llm/config.js";
import { buildLabelPrompt, fullTraceText } from "../../src/llm/prompt.js";
import { estimateTokens } from "../../src/llm/tokens.js";
import { fixture } from "../helpers/paths.js";
import { hitsFor, makeAttempt, PLANTED } from "./attempts.js";

const limits = LlmConfig.parse({});

function randomAttempt(sizes: number[], text: string): Attempt {
  return Attempt.parse({
    id: "rand",
    source: { format: "fire-jsonl", path: "x.jsonl" },
    taskId: "t",
    taskText: text.repeat(20),
    outcome: "fail",
    verifierOutput: "E".repeat(sizes[0] ?? 0),
    events: sizes.map((size, index) =>
      index % 2 === 0
        ? {
            index,
            kind: "tool_call",
            tool: "Bash",
            command: `run ${index} ${"c".repeat(size % 300)}`,
          }
        : {
            index,
            kind: "tool_result",
            output: `out ${index}\n${"o".repeat(size)}`,
            exitCode: size % 3,
          },
    ),
  });
}

describe("buildLabelPrompt", () => {
  it("tags events with their index, keeps evidence and the last events, and marks gaps", () => {
    const a = makeAttempt("p1", 40);
    const hits = hitsFor(a);
    const p = buildLabelPrompt(a, hits, limits);
    const user = p.messages[1]?.content ?? "";
    const last = a.events.length - 1;
    expect(p.shownEvents).toContain(6);
    expect(p.shownEvents).toContain(last - 3);
    expect(p.shownEvents).toContain(last);
    for (const i of p.shownEvents) expect(user).toMatch(new RegExp(`^\\[${i}\\] `, "m"));
    const omitted = [...user.matchAll(/^… (\d+) events? omitted$/gm)].reduce(
      (s, m) => s + Number(m[1]),
      0,
    );
    expect(omitted + p.shownEvents.length).toBe(a.events.length);
    expect(user).toContain("## Task\nDeploy the app so GET /health answers on port 8080.");
    expect(user).toContain(
      "## Verifier: failing checks, then output tail\ntests: 1 failed, 0 passed\nFAILED test_health - ConnectionRefusedError: [Errno 111]",
    );
    expect(user).toContain(
      "- destructive-after-probe (deployment-preservation) @ events 87: rm -rf after a good probe",
    );
    for (const s of Object.values(PLANTED)) expect(user).not.toContain(s);
  });

  it("never exceeds the per-attempt budget and always shows the first evidence event and the stop", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 120 }),
        fc.string({ maxLength: 40 }),
        fc.integer({ min: 300, max: 4_000 }),
        (sizes, text, maxPromptTokens) => {
          const a = randomAttempt(sizes, text);
          const ev = Math.floor(sizes.length / 2);
          const hits = [{ detectorId: "d", eventIndices: [ev], reason: "r".repeat(500) }];
          const cfg = { ...limits, maxPromptTokens, minPromptTokens: 160 };
          const p = buildLabelPrompt(a, hits, cfg);
          expect(p.promptTokens).toBeLessThanOrEqual(p.budgetTokens);
          expect(p.budgetTokens).toBeLessThanOrEqual(maxPromptTokens);
          expect(estimateTokens(p.messages[1]?.content ?? "")).toBe(p.promptTokens);
          expect(p.shownEvents).toContain(ev);
          expect(p.shownEvents).toContain(sizes.length - 1);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("a trace that kept no agent action", () => {
  const bare = (events: Attempt["events"]) =>
    Attempt.parse({
      id: "bare",
      source: { format: "tb1-run", path: "sessions/agent.log" },
      taskId: "t",
      taskText: "Write the solution to /app/solution.py.",
      outcome: "fail",
      verifierOutput:
        "FAILED test_outputs.py::test_exists - AssertionError: solution.py file does not exist",
      events,
    });

  it("says so in the events section, within the budget; a trace with actions gets no note", () => {
    const a = bare([
      { index: 0, kind: "prompt", role: "user", input: "Write the solution to /app/solution.py." },
      { index: 1, kind: "stop" },
    ]);
    const p = buildLabelPrompt(a, [], limits);
    const user = p.messages[1]?.content ?? "";
    expect(user).toMatch(
      /## Events[^\n]*\n\(no agent action was recorded: the trace holds 2 event\(s\)/,
    );
    expect(p.promptTokens).toBeLessThanOrEqual(limits.maxPromptTokens);
    const acted = bare([
      { index: 0, kind: "prompt", role: "user", input: "Write it." },
      { index: 1, kind: "tool_call", tool: "Bash", command: "ls /app" },
      { index: 2, kind: "stop" },
    ]);
    expect(buildLabelPrompt(acted, [], limits).messages[1]?.content).not.toContain(
      "no agent action was recorded",
    );
  });
});

describe("a trial with no recorded event", () => {
  it("says the trace was not kept, not that the agent did nothing, and what the record has", () => {
    const a = Attempt.parse({
      id: "empty-1",
      source: { format: "harbor-trial", path: "/trials/t" },
      taskId: "t",
      taskText: "Write the answer to /app/answer.txt.",
      outcome: "timeout",
      durationS: 900.2,
      exception: {
        type: "AgentTimeoutError",
        message: "Agent execution timed out after 900 seconds",
      },
      events: [],
    });
    const p = buildLabelPrompt(a, [], limits);
    expect(p.messages[1]?.content).toContain(
      "(the agent's trace was not kept: 0 events were recorded, which does not mean the agent did nothing; the record has: outcome timeout · duration 900 s · exception AgentTimeoutError: Agent execution timed out after 900 seconds; judge from it and the verifier)",
    );
    expect(p.promptTokens).toBeLessThanOrEqual(p.budgetTokens);
  });
});

describe("prompt tokens ÷ full trace tokens (chars/4 estimate)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fire-prompt-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function ratioOf(sources: string[]): Promise<{ ratio: number; failed: number }> {
    await writeFile(join(dir, "fire.config.json"), JSON.stringify({ sources }));
    const ws = await loadWorkspace(dir);
    const failed = ws.attempts.filter((a) => a.outcome !== "pass");
    let prompt = 0;
    let full = 0;
    for (const a of failed) {
      const siblings = ws.attempts.filter((b) => b.taskId === a.taskId && b.id !== a.id);
      const p = buildLabelPrompt(a, runDetectors(a, { siblings }), limits);
      prompt += p.promptTokens;
      full += estimateTokens(fullTraceText(a));
    }
    return { ratio: prompt / full, failed: failed.length };
  }

  it("shows a short attempt whole: its task and every event (the demo's ~1.5k-token traces)", async () => {
    await writeDemo({ outDir: join(dir, "traces"), seed: 7 });
    await writeFile(join(dir, "fire.config.json"), JSON.stringify({ sources: ["traces/"] }));
    const ws = await loadWorkspace(dir);
    const failed = ws.attempts.filter((a) => a.outcome !== "pass");
    expect(failed.length).toBeGreaterThan(10);
    for (const a of failed) {
      const p = buildLabelPrompt(a, runDetectors(a, { siblings: [] }), limits);
      expect(p.shownEvents).toHaveLength(a.events.length);
      expect(p.messages[1]?.content).toContain(a.taskText.trim().split("\n").at(-1));
      expect(p.messages[1]?.content).not.toContain("events omitted");
    }
  });

  it("is at most 0.25 on the real Harbor/OpenClaw failures", async () => {
    const { ratio, failed } = await ratioOf([fixture("harbor-openclaw")]);
    expect(failed).toBeGreaterThan(10);
    expect(ratio).toBeLessThanOrEqual(0.25);
  });
});

describe("where a workspace lives", () => {
  it("leaves every prompt unchanged when the traces move to a folder with a longer path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fire-prompt-move-"));
    try {
      await writeFile(
        join(dir, "fire.config.json"),
        JSON.stringify({ sources: [fixture("harbor-openclaw")] }),
      );
      const ws = await loadWorkspace(dir);
      const failed = ws.attempts.filter((a) => a.outcome !== "pass");
      expect(failed.length).toBeGreaterThan(10);
      // a share that puts the real traces' budgets between the floor and the cap, where the
      // budget follows the full trace's size
      const banded = {
        ...limits,
        promptShare: 0.05,
        minPromptTokens: 100,
        maxPromptTokens: 50_000,
      };
      const long = `/${"deeply-nested-folder/".repeat(40)}`;
      const moved = (a: Attempt): Attempt => ({
        ...a,
        source: { ...a.source, path: long + a.source.path },
        ...(a.verifierSource
          ? { verifierSource: { ...a.verifierSource, file: long + a.verifierSource.file } }
          : {}),
        ...(a.verifierTests
          ? {
              verifierTests: a.verifierTests.map((t) =>
                t.file ? { ...t, file: long + t.file } : t,
              ),
            }
          : {}),
      });
      for (const a of failed) {
        const hits = runDetectors(a, { siblings: [] });
        const here = buildLabelPrompt(a, hits, banded);
        const there = buildLabelPrompt(moved(a), hits, banded);
        expect(there.budgetTokens).toBe(here.budgetTokens);
        expect(there.messages).toEqual(here.messages);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("headTail", () => {
  it("keeps head and tail, and never splits a redaction marker", async () => {
    const { headTail } = await import("../../src/llm/prompt.js");
    expect(headTail("abcdef", 10)).toBe("abcdef");
    const text = `${"a".repeat(30)}[REDACTED:openai-key]${"b".repeat(100)}[REDACTED:aws-access-key]${"c".repeat(10)}`;
    const cut = headTail(text, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut.startsWith("a".repeat(30))).toBe(true);
    expect(cut.match(/\[REDACTED/g)?.length ?? 0).toBe(
      (cut.match(/\[REDACTED:[a-z-]+\]/g) ?? []).length,
    );
    expect(cut.endsWith("c".repeat(10))).toBe(true);
  });
});
