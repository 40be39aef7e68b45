import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { mine } from "../core/mine/mine.js";
import { loadWorkspace } from "../core/workspace/load.js";
import type { Benchmark, BenchResult } from "./types.js";

/**
 * The bench's mapping from fire's mechanism ids to the rows of the dev set's attribution
 * taxonomy (A..I). It lives here, not in detectors: detectors name mechanisms from
 * evidence; only this bench knows the dev set's vocabulary.
 *   A missing or misplaced required artifact      ← artifact-never-written, artifact-wrong-path
 *   B poor recovery after tool failure (loops)    ← repeated-tool-error
 *   C final verification / consistency miss       ← constraint-unchecked, stop-without-check
 *   F unbounded search, no deliverable by deadline ← deadline-no-deliverable
 *   G safety gating failure                       ← overwrote-existing-file
 *   H task-input discovery miss                   ← task-input-missed
 *   I implementation error, weak final validation ← the paper families
 */
export const MECHANISM_ROW: Record<string, string> = {
  "artifact-never-written": "A",
  "artifact-wrong-path": "A",
  "repeated-tool-error": "B",
  "constraint-unchecked": "C",
  "stop-without-check": "C",
  "deadline-no-deliverable": "F",
  "overwrote-existing-file": "G",
  "task-input-missed": "H",
  "service-persistence": "I",
  "deployment-preservation": "I",
  "database-evidence": "I",
  "exact-replacement": "I",
  "latex-final-log": "I",
  "binary-equivalence": "I",
  "dataset-token-accounting": "I",
  "multi-answer-enumeration": "I",
};
/** Rows the brief keeps in scope; D and E (environment, verifier) are exclusions. */
const EXCLUDED_ROWS = new Set(["D", "E"]);

const DevSet = z.object({
  trials: z.array(
    z.object({
      trial: z.string(),
      row: z.string(),
      /** keep / exclude: decided by the attribution; ambiguous: it splits the blame. */
      scope: z.enum(["keep", "exclude", "ambiguous"]).optional(),
      expectedExclusion: z.string().nullable(),
    }),
  ),
});

/** A row whose attribution splits the blame: marked ambiguous, or an exclusion row with no expected kind. */
function isAmbiguous(t: {
  row: string;
  scope?: string | undefined;
  expectedExclusion: string | null;
}): boolean {
  if (t.scope) return t.scope === "ambiguous";
  return EXCLUDED_ROWS.has(t.row) && t.expectedExclusion === null;
}

/** B-cubed F of predicted clusters against gold classes (items: ids). */
export function bcubedF(
  pred: ReadonlyMap<string, string>,
  gold: ReadonlyMap<string, string>,
): number {
  const ids = [...gold.keys()];
  if (ids.length === 0) return 0;
  let p = 0;
  let r = 0;
  for (const i of ids) {
    const sameP = ids.filter((j) => pred.get(j) === pred.get(i));
    const sameG = ids.filter((j) => gold.get(j) === gold.get(i));
    const both = sameP.filter((j) => gold.get(j) === gold.get(i)).length;
    p += both / sameP.length;
    r += both / sameG.length;
  }
  p /= ids.length;
  r /= ids.length;
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

function devPaths(): { set: string; corpus: string } {
  const set = resolve(
    process.env.FIRE_BENCH_DEV_SET ?? "../shared/fixtures/attributions/dev-openclaw.json",
  );
  const corpus = resolve(
    process.env.FIRE_BENCH_DEV_CORPUS ??
      (existsSync("traces/harbor-openclaw")
        ? "traces/harbor-openclaw"
        : "../shared/fixtures/harbor-openclaw"),
  );
  return { set, corpus };
}

export const mineRealBenchmark: Benchmark = {
  name: "mine-real",
  description:
    "heuristic mining of the real dev set: exclusion, mechanism and cluster agreement with human attributions",
  async run(log) {
    const { set, corpus } = devPaths();
    const dev = DevSet.parse(JSON.parse(readFileSync(set, "utf8")));
    const tmp = await mkdtemp(join(tmpdir(), "fire-bench-mine-real-"));
    try {
      await writeFile(join(tmp, "fire.config.json"), JSON.stringify({ sources: [corpus] }));
      const ws = await loadWorkspace(tmp);
      const r = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
      const byTrial = new Map(ws.attempts.map((a) => [basename(a.source.path), a]));
      const excluded = new Map(r.finalTriage.exclusions.map((e) => [e.attemptId, e.reason]));
      const labels = new Map(r.labels.map((l) => [l.attemptId, l]));
      const clusterOf = new Map(r.clusters.flatMap((c) => c.attemptIds.map((id) => [id, c.id])));
      let scopeAgree = 0;
      let kindAgree = 0;
      let kinds = 0;
      let mechAgree = 0;
      const kept: string[] = [];
      const gold = new Map<string, string>();
      const pred = new Map<string, string>();
      const ambiguous: string[] = [];
      for (const t of dev.trials) {
        const a = byTrial.get(t.trial);
        if (!a) throw new Error(`${set}: trial ${t.trial} not found under ${corpus}`);
        const got = excluded.get(a.id);
        const l = labels.get(a.id);
        const mech = l?.mechanismId ?? l?.family;
        const row = mech ? MECHANISM_ROW[mech] : undefined;
        const said = got ? `excluded ${got}` : `kept → ${mech ?? "no mechanism"} (${row ?? "-"})`;
        // The attribution splits the blame (scope ambiguous, no expected exclusion): neither
        // keeping nor excluding it is a miss, so it is outside every figure, listed apart.
        if (isAmbiguous(t)) {
          ambiguous.push(`${t.trial} (row ${t.row}): ${said}`);
          continue;
        }
        const wantExclude = EXCLUDED_ROWS.has(t.row);
        if (wantExclude === (got !== undefined)) scopeAgree++;
        if (wantExclude && t.expectedExclusion) {
          kinds++;
          if (got === t.expectedExclusion) kindAgree++;
        }
        if (!wantExclude) {
          kept.push(t.trial);
          if (!got && row === t.row) mechAgree++;
          gold.set(t.trial, t.row);
          pred.set(t.trial, clusterOf.get(a.id) ?? `single:${t.trial}`);
        }
        log(
          `${t.row} ${t.trial.padEnd(42)} ${said}${l?.signature ? ` [${l.signature.slice(0, 50)}]` : ""}`,
        );
      }
      const n = dev.trials.length - ambiguous.length;
      for (const line of ambiguous) log(`ambiguous (not counted): ${line}`);
      const f = bcubedF(pred, gold);
      log(
        `${r.clusters.length} cluster(s): ${r.clusters.map((c) => `${c.name} ×${c.attemptIds.length}`).join("; ")}`,
      );
      const results: BenchResult[] = [
        {
          target: "exclusion agreement (keep vs exclude, decided dev-set rows)",
          measured: n ? scopeAgree / n : 0,
          limit: 0.9,
          kind: "min",
          note: `${scopeAgree}/${n}; exclusion kind ${kindAgree}/${kinds}; ${ambiguous.length} ambiguous not counted`,
        },
        {
          target: "mechanism agreement (kept trials, via MECHANISM_ROW)",
          measured: kept.length ? mechAgree / kept.length : 0,
          limit: 0.7,
          kind: "min",
          note: `${mechAgree}/${kept.length}`,
        },
        {
          target: "cluster B-cubed F against attribution rows (kept trials)",
          measured: f,
          limit: 0.75,
          kind: "min",
          note: `${kept.length} trials, ${new Set(pred.values()).size} predicted groups`,
        },
      ];
      return results;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  },
};
