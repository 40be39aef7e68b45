import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Recording,
  type ReplayServer,
  readRecording,
  startReplay,
} from "../../src/bench/llm-replay.js";
import { fireIn } from "../helpers/cli.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";

/** Four real OpenClaw trials the recording answers, plus two that triage excludes first. */
const TRIALS = [
  "clawbench-19-kimi2.6-2/t2-add-tests-normalizer__BPeAoa2",
  "clawbench-19-kimi2.6-2/t4-delegation-repair__x8HNRDi",
  "clawbench-19-kimi2.6-2/t4-life-trip-plan__AjimJm5",
  "pinchbench-147-kimi2.6/task-log-hdfs-block-ops__nvME2du",
  "pinchbench-147-kimi2.6/task-email-triage__fEmQAc2",
  "clawbench-19-kimi2.6/t5-hallucination-resistant-evide__85qPU4o",
].map((t) => fixture("harbor-openclaw", t));
const RECORDING = join(REPO_ROOT, "test/fixtures/llm-replay/openclaw-labels.json");

interface MinedLabel {
  attemptId: string;
  exclusion: string;
  kind?: string;
  status?: string;
  mechanismId?: string;
  isProceduralLoss: boolean;
  unlabelledReason?: string;
  evidence?: { from: string }[];
}
interface Mined {
  labelled: number;
  failed: number;
  reused: number;
  labels: MinedLabel[];
}

describe("the LLM labeller measured by replaying recorded answers (loopback server)", () => {
  let ws: string;
  let recording: Recording;
  let replay: ReplayServer;
  const mine = (model: string, server: ReplayServer) =>
    fireIn(["mine", "--labeler", "llm", "--json"], {
      cwd: ws,
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-replay-0123456789abcdefghij" },
    }).then(async (r) => ({ ...r, model }));
  const configure = (model: string) =>
    writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: TRIALS, llm: { model, maxRetries: 0 } }),
    );

  beforeAll(async () => {
    ws = await mkdtemp(join(tmpdir(), "fire-replay-"));
    recording = await readRecording(RECORDING);
    replay = await startReplay(recording);
  });
  afterAll(async () => {
    await replay.close();
    await rm(ws, { recursive: true, force: true });
  });

  it("labels as recorded: kinds, statuses, mechanisms, counts, exit 0; a re-run reuses", async () => {
    await configure("replay-model");
    const r = await mine("replay-model", replay);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Mined;
    expect([out.labelled, out.failed, out.reused]).toEqual([4, 0, 0]);
    expect(replay.stats.answered).toBe(4);
    expect(replay.stats.unmatched).toEqual([]);
    const by = new Map(out.labels.map((l) => [l.attemptId.replace(/-[0-9a-f]{8}$/, ""), l]));
    const summary = (k: string) => {
      const l = by.get(k);
      return l && [l.exclusion, l.kind, l.status, l.mechanismId ?? null, l.isProceduralLoss];
    };
    expect(summary("t2-add-tests-normalizer__BPeAoa2")).toEqual([
      "none",
      "procedural_loss",
      "named",
      "artifact-wrong-path",
      true,
    ]);
    expect(summary("task-log-hdfs-block-ops__nvME2du")).toEqual([
      "none",
      "policy_addressable",
      "named",
      "deadline-no-deliverable",
      false,
    ]);
    expect(summary("t5-hallucination-resistant-evide__85qPU4")).toEqual([
      "none",
      "policy_addressable",
      "named",
      "repeated-tool-error",
      false,
    ]);
    // the reviewer could not cite the mechanism: kept in scope for review, no mechanism
    expect(summary("t4-life-trip-plan__AjimJm5")).toEqual([
      "none",
      "policy_addressable",
      "needs_review",
      null,
      false,
    ]);
    // verifier lines were quoted exactly (a wrong quote would have been repaired or failed)
    expect(by.get("t2-add-tests-normalizer__BPeAoa2")?.evidence?.map((e) => e.from)).toContain(
      "verifier",
    );

    const again = await mine("replay-model", replay);
    expect(again.status).toBe(0);
    const second = JSON.parse(again.stdout) as Mined;
    expect([second.labelled, second.failed, second.reused]).toEqual([0, 0, 4]);
    expect(replay.stats.requests).toBe(4);
  }, 180_000);

  it("an attempt the recording lacks stays unlabelled: exit 0, 1 failed, the retry hint", async () => {
    const partial = await startReplay({
      ...recording,
      entries: recording.entries.filter((e) => !e.attemptId.startsWith("t4-life-trip-plan")),
    });
    try {
      await configure("replay-model-2"); // a new model: nothing cached matches
      const r = await mine("replay-model-2", partial);
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as Mined;
      expect([out.labelled, out.failed, out.reused]).toEqual([3, 1, 0]);
      expect(partial.stats.unmatched.map((u) => u.attemptId)).toEqual([
        expect.stringMatching(/^t4-life-trip-plan__AjimJm5-/),
      ]);
      expect(partial.stats.unmatched[0]?.prompt).toMatch(/^Attempt t4-life-trip-plan/);
      expect(r.stderr).toContain("1 attempt(s) stayed unlabelled");
      expect(r.stderr).toContain("no recorded answer for attempt t4-life-trip-plan");
      expect(r.stderr).toContain("--retry-unlabelled");
    } finally {
      await partial.close();
    }
  }, 180_000);

  it("rejects a malformed recording naming the file and the field", async () => {
    const bad = join(ws, "bad-recording.json");
    await writeFile(bad, JSON.stringify({ kind: "fire-llm-recording", version: 1, entries: [{}] }));
    await expect(readRecording(bad)).rejects.toThrow(/entries\.0\.attemptId/);
    await expect(readRecording(bad)).rejects.toMatchObject({ file: bad });
  });
});
