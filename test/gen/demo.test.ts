import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAMILIES } from "../../src/core/families.js";
import { CATALOGUE } from "../../src/gen/catalogue/index.js";
import { type Manifest, writeDemo } from "../../src/gen/demo.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { atifCommand, atifProblems } from "./shape.js";
import { filesUnder, treeHashes } from "./tree.js";

const PAPER_FAMILIES = FAMILIES.filter((f) => f !== "stop-without-check");
const dirs: string[] = [];
let a: string;
let manifest: Manifest;

beforeAll(async () => {
  a = await mkdtemp(join(tmpdir(), "fire-demo-"));
  dirs.push(a);
  manifest = (await writeDemo({ outDir: a, seed: 7 })).manifest;
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const readJson = async (p: string) => JSON.parse(await readFile(p, "utf8"));

describe("demo corpus", () => {
  it("is byte-identical for the same seed and different for another", async () => {
    const b = await mkdtemp(join(tmpdir(), "fire-demo-"));
    const c = await mkdtemp(join(tmpdir(), "fire-demo-"));
    dirs.push(b, c);
    await writeDemo({ outDir: b, seed: 7 });
    await writeDemo({ outDir: c, seed: 8 });
    const [ha, hb, hc] = [await treeHashes(a), await treeHashes(b), await treeHashes(c)];
    expect([...hb.entries()].sort()).toEqual([...ha.entries()].sort());
    expect(ha.get("manifest.json")).not.toBe(hc.get("manifest.json"));
    expect(ha.size).toBe(407);
  });

  it("matches what is committed under traces/generated (run `npm run gen:demo` after changing src/gen)", async () => {
    const committed = await treeHashes(join(REPO_ROOT, "traces", "generated"));
    const fresh = await treeHashes(a);
    expect([...committed.entries()].sort()).toEqual([...fresh.entries()].sort());
  });

  it("has, for every paper family, a 1/2 and a 0/2 positive task and a 2/2 nearby negative", () => {
    expect(manifest.tasks).toHaveLength(40);
    for (const family of PAPER_FAMILIES) {
      const tasks = manifest.tasks.filter((t) => t.family === family);
      const shape = tasks.map((t) => `${t.cohort}:${t.passes}/${t.attempts}`).sort();
      expect(shape, family).toEqual(["nearby-negative:2/2", "positive:0/2", "positive:1/2"]);
      for (const t of tasks.filter((x) => x.cohort === "positive")) {
        const failed = t.attemptDetails.filter((d) => d.outcome === "fail");
        expect(failed.length).toBeGreaterThan(0);
        for (const d of failed) {
          expect(d.planted).toBe(family);
          expect(d.preFailure?.command.length).toBeGreaterThan(0);
          expect(d.evidence, `${t.taskId} capability evidence`).not.toBeNull();
        }
      }
    }
  });

  it("has ten or more silent tasks with mixed outcomes, capability gaps and one provider fault", () => {
    const silent = manifest.tasks.filter((t) => t.cohort === "silent");
    expect(silent.length).toBeGreaterThanOrEqual(8);
    expect(silent.every((t) => t.family === null)).toBe(true);
    expect(new Set(silent.map((t) => t.passes))).toEqual(new Set([0, 1, 2]));
    const planted = silent.flatMap((t) => t.attemptDetails.map((d) => d.planted));
    expect(planted.filter((p) => p === "capability_gap")).toHaveLength(3);
    expect(planted.filter((p) => p === "provider_fault")).toHaveLength(1);
    const outcomes = silent.flatMap((t) => t.attemptDetails.map((d) => d.outcome));
    expect(outcomes.filter((o) => o === "error")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "timeout")).toHaveLength(1);
  });

  it("writes trajectories that pass ATIF shape checks, with the manifest's steps in place", async () => {
    let checked = 0;
    for (const t of manifest.tasks) {
      for (const d of t.attemptDetails) {
        const traj = await readJson(join(a, d.path, "agent", "trajectory.json"));
        expect(atifProblems(traj), d.path).toEqual([]);
        const result = await readJson(join(a, d.path, "result.json"));
        expect(result.task_name).toBe(t.taskId);
        expect(result.agent_info.name).toBe(d.agent);
        if (d.outcome === "error") {
          expect(result.exception_info.exception_type).toBe("LLMProviderError");
          expect(result.verifier_result).toBeNull();
          expect(d.reward).toBeNull();
          expect(traj.steps.length).toBe(2);
        } else {
          // A timed-out trial keeps its exception and is still verified, as Harbor does.
          const exc = d.outcome === "timeout" ? "AgentTimeoutError" : undefined;
          expect(result.exception_info?.exception_type).toBe(exc);
          expect(result.verifier_result.rewards.reward).toBe(d.outcome === "pass" ? 1 : 0);
          const reward = await readFile(join(a, d.path, "verifier", "reward.txt"), "utf8");
          expect(Number(reward)).toBe(d.reward);
        }
        for (const ref of [d.preFailure, d.evidence]) {
          if (!ref) continue;
          const step = traj.steps[ref.stepId - 1];
          expect(atifCommand(step.tool_calls[0].arguments)).toBe(ref.command);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it("puts a job-level result.json beside the trials that counts them", async () => {
    const jobs = (await filesUnder(a, "result.json")).filter(
      (p) => p.split("/").length === a.split("/").length + 2,
    );
    expect(jobs.length).toBe(4);
    let total = 0;
    for (const j of jobs) total += (await readJson(j)).n_total_trials;
    expect(total).toBe(80);
  });
});

describe("task texts", () => {
  const CONTRACT: Record<string, RegExp> = {
    "service-persistence": /keep the server running on port \d+ after you finish/i,
    "deployment-preservation": /deployed (site|release) must (still be|remain) in place/i,
    "database-evidence": /recover .* from the SQLite database/i,
    "exact-replacement": /exactly as (listed|given).*change nothing else/is,
    "latex-final-log": /the final PDF must compile with no overfull hbox warnings/i,
    "binary-equivalence": /re-implement the binary .*identical output/is,
    "dataset-token-accounting": /total number of tokens in the dataset/i,
    "multi-answer-enumeration": /print all valid answers, one per line/i,
  };
  it("carry their family's contract phrase, and silent tasks carry none", () => {
    for (const t of CATALOGUE) {
      for (const [family, re] of Object.entries(CONTRACT)) {
        expect(re.test(t.instruction), `${t.id} vs ${family}`).toBe(t.family === family);
      }
    }
  });
  it("include a deliberate near miss: a silent chess task that says 'one per line'", () => {
    const chess = CATALOGUE.find((t) => t.id === "chess-mate-in-two");
    expect(chess?.cohort).toBe("silent");
    expect(chess?.instruction).toMatch(/one per line/);
  });
});
