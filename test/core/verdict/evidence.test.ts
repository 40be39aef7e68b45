import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezePortfolio } from "../../../src/core/freeze/freeze.js";
import { listCandidates, type StoredCandidate } from "../../../src/core/lifecycle/store.js";
import { replayScreenFile } from "../../../src/core/screening/paths.js";
import { buildPlan } from "../../../src/core/screening/plan/build.js";
import { writePlan } from "../../../src/core/screening/plan/plan-file.js";
import { mechanicsHash, type ReplayScreen } from "../../../src/core/screening/replay/measure.js";
import {
  readReplayScreen,
  saveReplayScreen,
} from "../../../src/core/screening/replay/screen-files.js";
import { candidateEvidence } from "../../../src/core/verdict/evidence.js";
import { deciding } from "../../../src/core/verdict/finding.js";
import { replayVerdict } from "../../../src/core/verdict/screen-verdict.js";
import { DEFAULT_THRESHOLDS } from "../../../src/core/verdict/thresholds.js";
import { defaultConfig } from "../../../src/core/workspace/config.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const NOW = new Date("2026-11-30T00:00:00Z");

/** Results of a run screen: the policy turns a passing nearby-negative task into failures. */
function rows(): string {
  const out: object[] = [];
  for (const [task, cohort, base, pol] of [
    ["pos-1", "positive", [false, false], [true, true]],
    ["neg-1", "nearby-negative", [true, true], [false, false]],
  ] as const) {
    for (const [attempt, pass] of base.entries())
      out.push({ task, arm: "baseline", attempt, pass, cohort });
    for (const [attempt, pass] of pol.entries())
      out.push({ task, arm: "policy", attempt, pass, cohort });
  }
  return `${out.map((o) => JSON.stringify(o)).join("\n")}\n`;
}

const rate = (k: number, n: number) => ({ k, n, rate: n ? k / n : 0 });

/** A replay screen's summary: fires in time on 3/3 positives, on `neg` of 21 nearby negatives. */
function summary(neg: number): ReplayScreen["summary"] {
  return {
    positiveFiring: rate(3, 3),
    positiveTimely: rate(3, 3),
    negativeFiring: rate(neg, 21),
    silentRouting: rate(0, 10),
    silentFiring: rate(0, 10),
    behaviorPositive: rate(0, 3),
    behaviorNegative: rate(0, 21),
    instructionTokens: {},
    meanAddedTokensPerPositive: 0,
  };
}

/** The parts of a saved replay screen that freezing and the verdict fold read. */
function replayOf(c: StoredCandidate, negativeFirings = 0): ReplayScreen {
  return {
    kind: "fire-replay-screen",
    candidate: c.policy.key,
    candidateSha256: mechanicsHash(c.candidate),
    verdict: replayVerdict(summary(negativeFirings), DEFAULT_THRESHOLDS),
  } as unknown as ReplayScreen;
}

const freezeOne = (dir: string, c: StoredCandidate) =>
  freezePortfolio({
    workspace: dir,
    name: "p",
    candidates: [c],
    attempts: [
      {
        id: "a",
        taskId: "t",
        taskText: "Build main.tex with pdflatex; no overfull hbox.",
      } as never,
    ],
    config: defaultConfig(),
    now: NOW,
  });

describe("verdict evidence: a harmful run screen", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fire-evidence-"));
    await mkdir(join(dir, "candidates"), { recursive: true });
    await cp(
      join(REPO_ROOT, "candidates/reference/latex-final-log.yaml"),
      join(dir, "candidates/latex.yaml"),
    );
    const screen = join(dir, "screens", "run-latex");
    await mkdir(screen, { recursive: true });
    const c = listCandidates(dir).candidates[0]!;
    await writePlan(
      dir,
      buildPlan({
        name: "run-latex",
        seed: 1,
        attempts: 2,
        arms: ["baseline", "policy"],
        source: { kind: "candidate", path: "candidates/latex.yaml" },
        candidates: [c.candidate],
        tasks: [
          { id: "pos-1", cohort: "positive" },
          { id: "neg-1", cohort: "nearby-negative" },
        ],
        createdAt: NOW.toISOString(),
      }),
    );
    await writeFile(join(screen, "results.jsonl"), rows());
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("is harmful from the run screen's pass→fail among negatives, with that evidence", async () => {
    const c = listCandidates(dir).candidates[0]!;
    const ev = await candidateEvidence(dir, c);
    expect(ev.runs.map((r) => r.name)).toEqual(["run-latex"]);
    expect(ev.suggested.verdict).toBe("harmful");
    expect(deciding(ev.suggested)).toEqual([
      {
        code: "pass-to-fail",
        verdict: "harmful",
        screen: "run-latex",
        tasks: [{ task: "neg-1", cohort: "nearby-negative" }],
        max: 0,
      },
    ]);
  });

  it("blocks freezing even with a promising replay screen", async () => {
    const c = listCandidates(dir).candidates[0]!;
    const replay = replayOf(c);
    expect(replay.verdict.verdict).toBe("promising");
    await saveReplayScreen(dir, replay);
    const r = await freezeOne(dir, c);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const refusal = r.refused[0]!;
    expect(refusal.verdict.verdict).toBe("harmful");
    expect(deciding(refusal.verdict).map((f) => [f.screen, f.code])).toEqual([
      ["run-latex", "pass-to-fail"],
    ]);
    // the words name the run screen's finding, not the promising replay
    expect(refusal.missing).toEqual([expect.stringContaining("run-latex: harmful: pass→fail")]);
  });

  it("ignores a saved replay screen of the wrong shape (as if none was saved)", async () => {
    const c = listCandidates(dir).candidates[0]!;
    const good = replayOf(c);
    await saveReplayScreen(dir, good);
    expect(readReplayScreen(dir, c.policy.key)?.verdict).toEqual(good.verdict);
    const file = replayScreenFile(dir, c.policy.key);
    await writeFile(
      file,
      JSON.stringify({ ...good, verdict: { verdict: "promising", evidence: "fires in time" } }),
    );
    expect(readReplayScreen(dir, c.policy.key)).toBeUndefined();
    const ev = await candidateEvidence(dir, c);
    expect(ev.replay).toBeUndefined();
    expect(ev.suggested.verdict).toBe("harmful");
  });
});

describe("the freeze gate is the fold the verdict shows", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fire-gate-"));
    await mkdir(join(dir, "candidates"), { recursive: true });
    await cp(
      join(REPO_ROOT, "candidates/reference/latex-final-log.yaml"),
      join(dir, "candidates/latex.yaml"),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("a replay over-broad on 7/21 negatives is refused for firing on negatives", async () => {
    const c = listCandidates(dir).candidates[0]!;
    await saveReplayScreen(dir, replayOf(c, 7));
    const ev = await candidateEvidence(dir, c);
    expect(ev.suggested.verdict).toBe("over-broad");
    const r = await freezeOne(dir, c);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const refusal = r.refused[0]!;
    expect(refusal.verdict).toEqual(ev.suggested);
    expect(deciding(refusal.verdict)).toEqual([
      {
        code: "negative-firing",
        verdict: "over-broad",
        screen: "replay",
        tasks: { k: 7, n: 21, rate: 7 / 21 },
        max: 0.25,
      },
    ]);
    // the refusal quotes the negatives, not the (passing) firing on positives
    expect(refusal.missing.join("\n")).toContain("7/21 nearby-negative");
    expect(refusal.missing.join("\n")).not.toContain("positive attempt");
  });

  it("a replay screen saved before findings keeps its verdict and its words", async () => {
    const c = listCandidates(dir).candidates[0]!;
    const file = replayScreenFile(dir, c.policy.key);
    const old = { ...replayOf(c), verdict: { verdict: "inert", evidence: ["inert: fires late"] } };
    await writeFile(file, JSON.stringify(old));
    const ev = await candidateEvidence(dir, c);
    expect(ev.suggested).toEqual({
      verdict: "inert",
      findings: [
        { code: "recorded", text: "inert: fires late", verdict: "inert", screen: "replay" },
      ],
    });
  });
});
