import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Gold } from "../../src/bench/dev-sources.js";
import { type Recording, readRecording } from "../../src/bench/llm-replay.js";
import { llmRows } from "../../src/bench/mine-real.js";
import { llmSays } from "../../src/bench/mine-real-llm.js";
import { scoreSource } from "../../src/bench/mine-score.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";

/** Real OpenClaw trials: four the recording answers, two that triage excludes first. */
const TRIALS = [
  "clawbench-19-kimi2.6-2/t2-add-tests-normalizer__BPeAoa2",
  "clawbench-19-kimi2.6-2/t4-delegation-repair__x8HNRDi",
  "clawbench-19-kimi2.6-2/t4-life-trip-plan__AjimJm5",
  "pinchbench-147-kimi2.6/task-log-hdfs-block-ops__nvME2du",
  "pinchbench-147-kimi2.6/task-email-triage__fEmQAc2",
  "clawbench-19-kimi2.6/t5-hallucination-resistant-evide__85qPU4o",
].map((t) => fixture("harbor-openclaw", t));
const RECORDING = join(REPO_ROOT, "test/fixtures/llm-replay/openclaw-labels.json");

/** Gold labels written for this test only (the bench's wiring is tested, not the labels). */
const GOLD = new Map<string, Gold>([
  [
    "t2-add-tests-normalizer__BPeAoa2",
    { cls: "procedural_loss", mechanism: "artifact-wrong-path" },
  ],
  ["t4-life-trip-plan__AjimJm5", { cls: "policy_addressable" }],
  [
    "task-log-hdfs-block-ops__nvME2du",
    { cls: "policy_addressable", mechanism: "stop-without-check" },
  ],
  ["t5-hallucination-resistant-evide__85qPU4o", { cls: "policy_addressable" }],
  ["t4-delegation-repair__x8HNRDi", { cls: "environment_fault" }],
  ["task-email-triage__fEmQAc2", { cls: "environment_fault" }],
]);

describe("mine-real's LLM rows: one recording per source replayed, unmatched prompts dumped", () => {
  let dir: string;
  let recording: Recording;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fire-mine-real-llm-"));
    recording = await readRecording(RECORDING);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("a complete recording: every labelled trial in scope answered, scored like the heuristic", async () => {
    const run = await llmSays({ trials: GOLD, sources: TRIALS, recording: RECORDING });
    expect([run.asked, run.answered, run.unmatched, run.invalid]).toEqual([4, 4, 0, 0]);
    expect(run.says.get("t2-add-tests-normalizer__BPeAoa2")?.named).toBe("artifact-wrong-path");
    expect(run.says.get("task-log-hdfs-block-ops__nvME2du")?.named).toBe("deadline-no-deliverable");
    expect(run.says.get("t4-life-trip-plan__AjimJm5")).toMatchObject({ review: true });
    expect(run.says.get("t4-life-trip-plan__AjimJm5")?.named).toBeUndefined();
    expect(run.says.get("t4-delegation-repair__x8HNRDi")?.excluded).toBeDefined();
    const s = scoreSource(GOLD, run.says);
    // three named, all in scope by the gold; one of them with the gold's mechanism
    expect([s.named, s.namedRight, s.goldInScope, s.kept, s.mechCompared, s.mechAgree]).toEqual([
      3, 3, 4, 4, 3, 1,
    ]);
  }, 120_000);

  it("an incomplete recording: the missing attempt's prompt is written, exactly as sent", async () => {
    const partial: Recording = {
      ...recording,
      // no promptSha256: none is stale, only the missing attempt is dumped
      entries: recording.entries
        .filter((e) => !e.attemptId.startsWith("t4-life-trip-plan"))
        .map(({ promptSha256: _, ...e }) => e),
    };
    const dumpDir = join(dir, "dev-openclaw");
    const run = await llmSays({ trials: GOLD, sources: TRIALS, recording: partial, dumpDir });
    expect([run.asked, run.answered, run.unmatched, run.invalid]).toEqual([4, 3, 1, 0]);
    expect(run.dumped).toBe(dumpDir);
    const files = (await readdir(dumpDir)).sort();
    expect(files).toEqual([
      "index.json",
      expect.stringMatching(/^t4-life-trip-plan__AjimJm5-[0-9a-f]{8}\.txt$/),
    ]);
    const file = files[1] as string;
    const text = await readFile(join(dumpDir, file), "utf8");
    expect(text).toMatch(/^=== system ===\nYou label one FAILED coding-agent attempt/);
    const user = text.slice(text.indexOf("=== user ===\n") + 13, -1);
    expect(user).toMatch(/^Attempt t4-life-trip-plan__AjimJm5-[0-9a-f]{8} · /);
    const index = JSON.parse(await readFile(join(dumpDir, "index.json"), "utf8"));
    expect(index).toEqual([
      {
        attemptId: basename(file, ".txt"),
        status: "unmatched",
        promptSha256: createHash("sha256").update(user).digest("hex"),
        systemSha256: createHash("sha256")
          .update(text.slice("=== system ===\n".length, text.indexOf("\n=== user ===\n")))
          .digest("hex"),
        file,
      },
    ]);
  }, 120_000);

  it("a recorded answer written for another prompt text is used and counted stale", async () => {
    const changed: Recording = {
      ...recording,
      // an entry without promptSha256 is never stale; one with another text's is
      entries: recording.entries.map(({ promptSha256: _, ...e }) =>
        e.attemptId.startsWith("t2-add-tests") ? { ...e, promptSha256: "0".repeat(64) } : e,
      ),
    };
    const dumpDir = join(dir, "stale");
    const run = await llmSays({ trials: GOLD, sources: TRIALS, recording: changed, dumpDir });
    expect([run.answered, run.stale]).toEqual([4, 1]);
    // its prompt is written again, to be answered for the text now sent
    const index = JSON.parse(await readFile(join(dumpDir, "index.json"), "utf8"));
    expect(index).toEqual([
      expect.objectContaining({
        attemptId: expect.stringMatching(/^t2-add-tests-normalizer__BPeAoa2-/),
        status: "stale",
      }),
    ]);
  }, 120_000);

  it("an answer written under another system message is stale, the same user text or not", async () => {
    const t2 = (e: { attemptId: string }) => e.attemptId.startsWith("t2-add-tests");
    const unversioned = recording.entries.map(({ promptSha256: _, ...e }) => e);
    const withShas = (promptSha256: string, systemSha256?: string): Recording => ({
      ...recording,
      entries: unversioned.map((e) =>
        t2(e) ? { ...e, promptSha256, ...(systemSha256 ? { systemSha256 } : {}) } : e,
      ),
    });
    // the dump of a stale run names both digests of the request now sent
    const first = join(dir, "system-first");
    await llmSays({
      trials: GOLD,
      sources: TRIALS,
      recording: withShas("0".repeat(64)),
      dumpDir: first,
    });
    const [sent] = JSON.parse(await readFile(join(first, "index.json"), "utf8"));
    expect(sent.systemSha256).toMatch(/^[0-9a-f]{64}$/);
    const current = await llmSays({
      trials: GOLD,
      sources: TRIALS,
      recording: withShas(sent.promptSha256, sent.systemSha256),
    });
    expect([current.answered, current.stale]).toEqual([4, 0]);
    const otherSystem = await llmSays({
      trials: GOLD,
      sources: TRIALS,
      recording: withShas(sent.promptSha256, "1".repeat(64)),
    });
    expect([otherSystem.answered, otherSystem.stale]).toEqual([4, 1]);
    // recorded with the user text's digest but no system digest: written under unknown instructions
    const noSystem = await llmSays({
      trials: GOLD,
      sources: TRIALS,
      recording: withShas(sent.promptSha256),
    });
    expect(noSystem.stale).toBe(1);
  }, 240_000);

  it("an answer that fails the label checks counts invalid, with the reason", async () => {
    const bad: Recording = {
      ...recording,
      entries: recording.entries.map((e) =>
        e.attemptId.startsWith("t2-add-tests")
          ? { ...e, answer: { ...e.answer, capabilityEvidence: [{ eventIndex: 999, why: "x" }] } }
          : e,
      ),
    };
    const run = await llmSays({ trials: GOLD, sources: TRIALS, recording: bad });
    expect([run.answered, run.unmatched, run.invalid]).toEqual([3, 0, 1]);
    expect(run.invalidReasons[0]?.attemptId).toMatch(/^t2-add-tests-normalizer__BPeAoa2-/);
    expect(run.invalidReasons[0]?.reason).toContain("999");
  }, 120_000);

  it("the bench rows: figures for a complete recording, one 'incomplete' row otherwise", async () => {
    const src = { name: "replay-test", corpus: undefined, trials: GOLD };
    const lines: string[] = [];
    const full = await llmRows(src, TRIALS, (l) => lines.push(l), recording);
    expect(full.map((r) => r.target)).toEqual([
      "replay-test LLM named precision",
      "replay-test LLM in-scope recall",
      "replay-test LLM mechanism agreement",
      "replay-test LLM fault agreement",
      "replay-test LLM cluster B-cubed F",
    ]);
    expect(full[0]).toMatchObject({
      measured: 1,
      note: expect.stringMatching(/^3\/3; answered 4\/4/),
    });
    expect(lines.at(-1)).toMatch(/^replay-test LLM +precision 1\.00 \(3\/3\)/);
    const partial: Recording = {
      ...recording,
      entries: recording.entries.filter((e) => !e.attemptId.startsWith("t4-life-trip-plan")),
    };
    const rows = await llmRows(src, TRIALS, (l) => lines.push(l), partial);
    expect(rows).toEqual([
      expect.objectContaining({
        target: "replay-test LLM recording answered",
        measured: 0.75,
        note: "incomplete (answered 3/4); figures not computed",
      }),
    ]);
    expect(lines.at(-1)).toMatch(
      /^replay-test LLM +incomplete \(answered 3\/4\) +\[answered 3\/4, unmatched 1/,
    );
  }, 120_000);

  it("a source with no recording file answers nothing", async () => {
    const run = await llmSays({ trials: GOLD, sources: TRIALS, recording: join(dir, "none.json") });
    expect([run.asked, run.answered, run.unmatched]).toEqual([4, 0, 4]);
  }, 120_000);
});
