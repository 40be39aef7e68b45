import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Attempt } from "../../../../src/core/model/attempt.js";
import { fieldsOf, setField } from "../../../../src/core/policy/fields.js";
import { compileCandidateText, loadPolicies } from "../../../../src/core/policy/load.js";
import type { CompiledPolicy } from "../../../../src/core/policy/types.js";
import { routesTask } from "../../../../src/core/screening/cohorts.js";
import { runReplayScreen } from "../../../../src/core/screening/replay/measure.js";
import { previewCounts, previewText } from "../../../../src/core/screening/replay/preview.js";
import { DEFAULT_SIZES, screenCompetitors } from "../../../../src/core/screening/replay/sets.js";
import { DEFAULT_THRESHOLDS } from "../../../../src/core/verdict/thresholds.js";
import { loadWorkspace } from "../../../../src/core/workspace/load.js";
import { REPO_ROOT } from "../../../helpers/paths.js";

const FILE = join(REPO_ROOT, "candidates/reference/service-persistence.yaml");
const OTHER = join(REPO_ROOT, "candidates/reference");
let attempts: Attempt[];
let seed: number;
let pool: CompiledPolicy[];
/** The reference policy with the failed attempts it routes as its lineage. */
let text: string;

beforeAll(async () => {
  const ws = await loadWorkspace(REPO_ROOT);
  attempts = ws.attempts;
  seed = ws.config.screen.seed;
  pool = loadPolicies([OTHER]).policies;
  const ref = loadPolicies([FILE]).policies[0]!;
  const lineage = attempts.filter(
    (a) => a.outcome !== "pass" && a.arm === "baseline" && routesTask(ref, a.taskText ?? ""),
  );
  expect(lineage.length).toBeGreaterThan(1);
  const original = readFileSync(FILE, "utf8");
  text = `${original}\nlineage:\n  attempts: [${lineage.map((a) => JSON.stringify(a.id)).join(", ")}]\n`;
});

describe("live preview counts: the replay screen's own numbers", () => {
  it("equals the replay screen of the same candidate, workspace and pool", () => {
    const p = previewText(text, FILE, attempts, { pool, seed });
    expect(p.errors).toEqual([]);
    const policy = compileCandidateText(text, FILE).policy!;
    const screen = runReplayScreen({
      policy,
      others: screenCompetitors(policy, pool),
      attempts,
      preFailure: new Map(),
      sizes: DEFAULT_SIZES,
      seed,
      thresholds: DEFAULT_THRESHOLDS,
      now: new Date(0),
    });
    const s = screen.summary;
    expect(p.counts).toEqual({
      positives: { fired: s.positiveFiring.k, total: s.positiveFiring.n },
      negatives: { fired: s.negativeFiring.k, total: s.negativeFiring.n },
      silent: { fired: s.silentFiring.k, total: s.silentFiring.n },
      routed: expect.any(Number),
    });
    // The reference policy fires on each routed failure and on no screened negative.
    expect(p.counts!.positives.fired).toBe(p.counts!.positives.total);
    expect(p.counts!.negatives).toEqual({ fired: 0, total: screen.negatives.length });
    expect(p.counts!.routed).toBeGreaterThanOrEqual(new Set(screen.sets.positiveTasks).size);
  });

  it("an edit that breaks the rule's trigger shows as no firing; a bad regex as an error", () => {
    const quiet = previewText(
      text.replace("flag: launched\n      not:", "flag: never\n      not:"),
      FILE,
      attempts,
      { pool, seed },
    );
    expect(quiet.counts?.positives.fired).toBe(0);
    expect(quiet.counts?.positives.total).toBeGreaterThan(1);
    const bad = previewText(
      text.replace("(keep|leave|remain|stay)", "(keep|leave"),
      FILE,
      attempts,
      {
        pool,
        seed,
      },
    );
    expect(bad.counts).toBeUndefined();
    expect(bad.errors[0]?.format()).toMatch(/service-persistence\.yaml:\d+: eligibility\.anyOf\.0/);
  });

  it("without a lineage there are no positives, as on the replay screen (inconclusive)", () => {
    const ref = loadPolicies([FILE]).policies[0]!;
    const c = previewCounts(ref, attempts, { pool, seed });
    expect(c.positives).toEqual({ fired: 0, total: 0 });
    expect(c.negatives.total).toBeGreaterThan(0);
  });

  it("names the attempts behind each count (fired ones among those counted)", () => {
    // the first eligibility phrase made to route any text with "the": negatives fire
    const first = fieldsOf(text, FILE).find(
      (f) => f.path.join(".") === "eligibility.anyOf.0.pattern",
    )!;
    const broad = setField(text, FILE, first, "\\bthe\\b");
    const p = previewText(broad, FILE, attempts, { pool, seed });
    const sets = p.attempts!;
    const counts = p.counts!;
    const taskOf = new Map(attempts.map((a) => [a.id, a.taskId]));
    const tasks = (ids: string[]) => new Set(ids.map((id) => taskOf.get(id))).size;
    expect(sets.positives.all).toHaveLength(counts.positives.total);
    expect(sets.positives.fired).toHaveLength(counts.positives.fired);
    // negatives and silent count tasks: their attempts span exactly that many tasks
    expect(tasks(sets.negatives.all)).toBe(counts.negatives.total);
    expect(tasks(sets.negatives.fired)).toBe(counts.negatives.fired);
    expect(counts.negatives.fired).toBeGreaterThan(0);
    expect(tasks(sets.silent.fired)).toBe(counts.silent.fired);
    for (const id of sets.negatives.fired) expect(sets.negatives.all).toContain(id);
    expect(tasks(sets.routed.all)).toBe(counts.routed);
  });
});
