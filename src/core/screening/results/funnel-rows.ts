import type { ArmName } from "../../model/arm.js";
import { orderArms } from "../../stats/analyze.js";
import { FUNNEL_STAGES, type FunnelStage, funnelReach } from "../../stats/funnel.js";
import type { Observation } from "../../stats/types.js";
import { readScreenRows } from "./analysis.js";
import { type ScreenRow, toObservations } from "./row.js";

/** One row of a run screen's funnel: an arm's attempts reaching a stage, and which they are. */
export interface FunnelRow {
  arm: ArmName;
  /** `attempts` (every scorable one), then the registered chain's stages. */
  stage: "attempts" | FunnelStage;
  count: number;
  /** The normalized attempt ids of the rows counted (rows imported from traces carry one). */
  attemptIds: string[];
  /** Rows counted that name no attempt (imported from a CSV / JSONL table). */
  unnamed: number;
}

/**
 * The funnel of every arm as rows (the report's funnel, with its members): the counts are
 * core/stats/funnel.ts funnelReach's, the same the report's funnel prints. Stages nobody
 * recorded are left out.
 */
export function funnelRows(rows: readonly ScreenRow[]): FunnelRow[] {
  const obs: (Observation & { attemptId?: string })[] = toObservations(rows).map((o, i) => {
    const id = rows[i]!.attemptId;
    return id === undefined ? o : { ...o, attemptId: id };
  });
  const out: FunnelRow[] = [];
  const row = (arm: ArmName, stage: FunnelRow["stage"], members: typeof obs): FunnelRow => {
    const attemptIds = members.flatMap((o) => (o.attemptId ? [o.attemptId] : []));
    return {
      arm,
      stage,
      count: members.length,
      attemptIds,
      unnamed: members.length - attemptIds.length,
    };
  };
  for (const arm of orderArms(obs.map((o) => o.arm))) {
    const r = funnelReach(obs.filter((o) => o.arm === arm));
    out.push(row(arm, "attempts", r.scorable));
    for (const s of FUNNEL_STAGES) {
      const members = r.stages[s];
      if (members) out.push(row(arm, s, members));
    }
  }
  return out;
}

/** The funnel rows of `screens/<name>/results.jsonl` (bad lines skipped, as the report does). */
export async function loadFunnelRows(workspace: string, name: string): Promise<FunnelRow[]> {
  const { rows } = await readScreenRows(workspace, name);
  return funnelRows(rows);
}
