import { createHash } from "node:crypto";
import { cosine, tfidf, words } from "../../mine/tfidf.js";
import type { Attempt } from "../../model/attempt.js";
import type { CompiledPolicy } from "../../policy/types.js";
import { type TaskText, taskTexts } from "../../route/audit.js";
import { positiveTaskIds, routesTask } from "../cohorts.js";

/**
 * Task sets of a replay screen, drawn from the cohorts of core/screening/cohorts.ts. Positives:
 * the tasks of the attempts in the candidate's lineage. Nearby negatives: (a) tasks the candidate routes whose policy-free attempts all
 * passed, (b) the non-positive tasks most similar to the positives by task text (TF-IDF
 * cosine, the mining module's vectors), (c) a seeded sample of silent tasks (routed by no
 * other candidate of the workspace).
 */

export interface ScreenSizes {
  /** (b) most similar tasks. */
  similar: number;
  /** (c) silent tasks sampled. */
  silent: number;
}

export const DEFAULT_SIZES: ScreenSizes = { similar: 5, silent: 5 };

export type NegativeKind = "passing-eligible" | "similar" | "silent";

export interface NegativeTask {
  taskId: string;
  kind: NegativeKind;
  /** TF-IDF cosine to the nearest positive task (for `similar`). */
  similarity?: number;
}

export interface ScreenSets {
  positiveAttempts: string[];
  positiveTasks: string[];
  negatives: NegativeTask[];
}

const isBaseline = (a: Attempt): boolean => a.arm === "baseline";

/** The routing competition of a screen: every other non-retired policy of the pool. */
export function screenCompetitors(
  target: CompiledPolicy,
  pool: readonly CompiledPolicy[],
): CompiledPolicy[] {
  return pool.filter((p) => p.id !== target.id && p.candidate.status !== "retired");
}

function rank(seed: string, id: string): string {
  return createHash("sha256").update(`${seed}\n${id}`).digest("hex");
}

export function selectSets(
  policy: CompiledPolicy,
  others: readonly CompiledPolicy[],
  attempts: readonly Attempt[],
  sizes: ScreenSizes,
  seed: string | number,
): ScreenSets {
  const lineage = new Set(policy.candidate.lineage.attempts);
  const positiveAttempts = attempts.filter((a) => lineage.has(a.id)).map((a) => a.id);
  const positiveTasks = [...positiveTaskIds([policy], attempts)].sort();
  const isPositive = new Set(positiveTasks);
  const texts = taskTexts(attempts);
  const byTask = new Map<string, Attempt[]>();
  for (const a of attempts) {
    if (!isBaseline(a)) continue;
    const list = byTask.get(a.taskId) ?? [];
    list.push(a);
    byTask.set(a.taskId, list);
  }
  const routes = (p: CompiledPolicy, t: TaskText) => routesTask(p, t.text);

  const negatives: NegativeTask[] = [];
  const taken = new Set<string>();
  for (const t of texts) {
    if (isPositive.has(t.taskId) || !routes(policy, t)) continue;
    const list = byTask.get(t.taskId) ?? [];
    if (list.length > 0 && list.every((a) => a.outcome === "pass")) {
      negatives.push({ taskId: t.taskId, kind: "passing-eligible" });
      taken.add(t.taskId);
    }
  }

  const vecs = tfidf(texts.map((t) => words(t.text)));
  const posIdx = texts.flatMap((t, i) => (isPositive.has(t.taskId) ? [i] : []));
  const similar = texts
    .map((t, i) => ({
      taskId: t.taskId,
      s: posIdx.length ? Math.max(...posIdx.map((j) => cosine(vecs[i]!, vecs[j]!))) : 0,
    }))
    .filter((x) => !isPositive.has(x.taskId) && !taken.has(x.taskId) && x.s > 0)
    .sort((a, b) => b.s - a.s || (a.taskId < b.taskId ? -1 : 1))
    .slice(0, sizes.similar);
  for (const x of similar) {
    negatives.push({ taskId: x.taskId, kind: "similar", similarity: Number(x.s.toFixed(4)) });
    taken.add(x.taskId);
  }

  const silent = texts
    .filter((t) => !isPositive.has(t.taskId) && !taken.has(t.taskId))
    .filter((t) => !others.some((p) => routes(p, t)))
    .map((t) => ({ taskId: t.taskId, r: rank(String(seed), t.taskId) }))
    .sort((a, b) => (a.r < b.r ? -1 : 1))
    .slice(0, sizes.silent);
  for (const x of silent) negatives.push({ taskId: x.taskId, kind: "silent" });
  return { positiveAttempts, positiveTasks, negatives };
}
