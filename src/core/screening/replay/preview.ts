import type { InputError } from "../../errors.js";
import type { Attempt } from "../../model/attempt.js";
import { compileCandidateText } from "../../policy/load.js";
import type { CompiledPolicy } from "../../policy/types.js";
import { taskTexts } from "../../route/audit.js";
import { routesTask } from "../cohorts.js";
import { measureScreen, type RateOf } from "./measure.js";
import { DEFAULT_SIZES, type ScreenSizes, screenCompetitors } from "./sets.js";

/** Fired ones out of one group (attempts for positives, tasks for negatives and silent). */
export interface GroupCount {
  fired: number;
  total: number;
}

export interface PreviewCounts {
  /** Lineage attempts the candidate fires on (the replay screen's positive firing). */
  positives: GroupCount;
  /** Screened negative tasks, all kinds, with a firing (the replay screen's negatives). */
  negatives: GroupCount;
  /** Screened silent tasks with a firing. */
  silent: GroupCount;
  /** Tasks of the workspace the candidate routes to (eligibility held). */
  routed: number;
}

/** The attempts behind one count: those it counts over, and the ones the candidate fired on. */
export interface GroupAttempts {
  all: string[];
  fired: string[];
}

/** The attempts each preview count names (what opening "negatives 16/87" lists). */
export interface PreviewAttempts {
  positives: GroupAttempts;
  negatives: GroupAttempts;
  silent: GroupAttempts;
  /** Attempts on the tasks the candidate routes to (no firing measured: fired is empty). */
  routed: GroupAttempts;
}

export interface Preview {
  errors: InputError[];
  counts?: PreviewCounts;
  attempts?: PreviewAttempts;
}

/** What the replay screen would also know: the routing competition and the seed. */
export interface PreviewContext {
  /** Every policy of the workspace (the target and retired ones are left out here). */
  pool: readonly CompiledPolicy[];
  /** The workspace's screen seed (fire.config.json `screen.seed`). */
  seed: string | number;
  sizes?: ScreenSizes;
}

const group = (r: RateOf): GroupCount => ({ fired: r.k, total: r.n });

/**
 * Live-preview counts of one policy: the replay screen's own measures (same cohorts, same
 * sets, same replay — core/screening/replay/measure.ts measureScreen), so "negatives 0/11"
 * here is "negatives 0/11" on the replay screen of the same candidate and workspace; with
 * the attempts behind each count.
 */
export function previewMeasure(
  policy: CompiledPolicy,
  attempts: readonly Attempt[],
  ctx: PreviewContext,
): { counts: PreviewCounts; attempts: PreviewAttempts } {
  const m = measureScreen({
    policy,
    others: screenCompetitors(policy, ctx.pool),
    attempts,
    preFailure: new Map(),
    sizes: ctx.sizes ?? DEFAULT_SIZES,
    seed: ctx.seed,
  });
  const routedTasks = new Set(
    taskTexts(attempts)
      .filter((t) => routesTask(policy, t.text))
      .map((t) => t.taskId),
  );
  // negatives are every kind (as the count is); silent only the silent ones
  const negativesOf = (onlySilent: boolean): GroupAttempts => {
    const rows = m.negativeAttempts.filter((n) => !onlySilent || n.kind === "silent");
    return { all: rows.flatMap((n) => n.attemptIds), fired: rows.flatMap((n) => n.firedIds) };
  };
  return {
    counts: {
      positives: group(m.summary.positiveFiring),
      negatives: group(m.summary.negativeFiring),
      silent: group(m.summary.silentFiring),
      routed: routedTasks.size,
    },
    attempts: {
      positives: {
        all: m.positives.map((p) => p.attemptId),
        fired: m.positives.filter((p) => p.fired).map((p) => p.attemptId),
      },
      negatives: negativesOf(false),
      silent: negativesOf(true),
      routed: {
        all: attempts.filter((a) => routedTasks.has(a.taskId)).map((a) => a.id),
        fired: [],
      },
    },
  };
}

/** The preview's counts alone (see previewMeasure). */
export function previewCounts(
  policy: CompiledPolicy,
  attempts: readonly Attempt[],
  ctx: PreviewContext,
): PreviewCounts {
  return previewMeasure(policy, attempts, ctx).counts;
}

/** Compiles a candidate text (schema, safety, regexes) and previews it over the attempts. */
export function previewText(
  text: string,
  file: string,
  attempts: readonly Attempt[],
  ctx: PreviewContext,
): Preview {
  const r = compileCandidateText(text, file);
  if (!r.policy) return { errors: r.errors };
  return { errors: [], ...previewMeasure(r.policy, attempts, ctx) };
}
