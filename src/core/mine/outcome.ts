import type { MineResult } from "./mine.js";

/** What a labelling run did, as `fire mine` and the workbench's status line report it. */
export interface LabelOutcome {
  /** Newly labelled in this run. */
  labelled: number;
  /** Tried in this run and not labelled (failed request or bad answer). */
  failed: number;
  /** Reused from the label store; `reusedFailed` of them stayed unlabelled in an earlier run. */
  reused: number;
  reusedFailed: number;
  /**
   * Set when nothing in scope carries a label: every attempt tried failed, or every reused
   * label is an unlabelled one. The run failed as a whole (non-zero exit, error status).
   */
  nothingLabelled: boolean;
  /** The first failure's reason (this run's, else a reused one's). */
  firstError?: string;
}

export function labelOutcome(r: MineResult): LabelOutcome {
  const total = r.labelled + r.failed + r.reused;
  const unlabelled = r.failed + r.reusedFailed;
  const first = r.labels.find((l) => l.unlabelledReason !== undefined)?.unlabelledReason;
  return {
    labelled: r.labelled,
    failed: r.failed,
    reused: r.reused,
    reusedFailed: r.reusedFailed,
    nothingLabelled: total > 0 && unlabelled === total,
    ...(first !== undefined ? { firstError: first } : {}),
  };
}

/** "3 labelled, 11 failed, 0 reused" (plus how many reused ones are unlabelled). */
export function outcomeCounts(o: LabelOutcome): string {
  const reusedBad = o.reusedFailed ? ` (${o.reusedFailed} of them unlabelled)` : "";
  return `${o.labelled} labelled, ${o.failed} failed, ${o.reused} reused${reusedBad}`;
}

const RETRY_HINT = "re-run with `fire mine --retry-unlabelled` to ask again for them";

/**
 * The message for a run that could not label everything, or undefined when it did.
 * `endpoint` names where the requests went (the LLM labeller's base URL).
 */
export function outcomeProblem(o: LabelOutcome, endpoint?: string): string | undefined {
  const unlabelled = o.failed + o.reusedFailed;
  if (unlabelled === 0) return undefined;
  const where = endpoint ? ` (endpoint ${endpoint})` : "";
  const first = o.firstError ? `; first error: ${o.firstError}` : "";
  if (o.nothingLabelled) {
    const what =
      o.failed > 0
        ? `all ${o.failed} labelling request(s) failed${where}`
        : `all ${o.reusedFailed} reused label(s) are unlabelled from an earlier run`;
    return `nothing could be labelled: ${what}${first}; ${RETRY_HINT}`;
  }
  return `${unlabelled} attempt(s) stayed unlabelled${where}${first}; ${RETRY_HINT}`;
}
