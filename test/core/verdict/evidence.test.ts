import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezePortfolio } from "../../../src/core/freeze/freeze.js";
import { listCandidates, type StoredCandidate } from "../../../src/core/lifecycle/store.js";
import { buildPlan } from "../../../src/core/screening/plan/build.js";
import { writePlan } from "../../../src/core/screening/plan/plan-file.js";
import { mechanicsHash, type ReplayScreen } from "../../../src/core/screening/replay/measure.js";
import {
  readReplayScreen,
  saveReplayScreen,
} from "../../../src/core/screening/replay/screen-files.js";
import { candidateEvidence } from "../../../src/core/verdict/evidence.js";
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

/** The parts of a saved replay screen that freezing and the verdict fold read. */
function promisingReplay(c: StoredCandidate, evidence: string[]): ReplayScreen {
  return {
    kind: "fire-replay-screen",
    candidate: c.policy.key,
    candidateSha256: mechanicsHash(c.candidate),
    verdict: { verdict: "promising", evidence },
  } as unknown as ReplayScreen;
}

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
    expect(
      ev.suggested.evidence.some((e) =>
        /^run-latex: harmful: pass→fail on 1 task\(s\): neg-1/.test(e),
      ),
    ).toBe(true);
  });

  it("blocks freezing even with a promising replay screen", async () => {
    const c = listCandidates(dir).candidates[0]!;
    const replay = promisingReplay(c, ["fires in time on 3/3 positive attempt(s)"]);
    await saveReplayScreen(dir, replay);
    const r = await freezePortfolio({
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
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refused[0]!.missing).toEqual([
      expect.stringMatching(/^run screen run-latex says harmful: /),
    ]);
  });

  it("ignores a saved replay screen of the wrong shape (as if none was saved)", async () => {
    const c = listCandidates(dir).candidates[0]!;
    const good = promisingReplay(c, ["fires in time"]);
    await saveReplayScreen(dir, good);
    expect(readReplayScreen(dir, c.policy.key)?.verdict.evidence).toEqual(["fires in time"]);
    await saveReplayScreen(dir, {
      ...good,
      verdict: { verdict: "promising", evidence: "fires in time" },
    } as unknown as ReplayScreen);
    expect(readReplayScreen(dir, c.policy.key)).toBeUndefined();
    const ev = await candidateEvidence(dir, c);
    expect(ev.replay).toBeUndefined();
    expect(ev.suggested.verdict).toBe("harmful");
  });
});
