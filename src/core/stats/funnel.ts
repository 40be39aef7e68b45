import type { ArmName } from "../model/arm.js";
import type { Observation } from "./types.js";

export type FunnelStage = "risky" | "fired" | "behavior" | "pass";
export const FUNNEL_STAGES: readonly FunnelStage[] = ["risky", "fired", "behavior", "pass"];

/**
 * The funnel of one arm: attempts, then how many reached each stage of the registered
 * chain (risky state → fired → behaviour marker → pass), each stage counted among the
 * attempts that reached every earlier stage that was recorded. A stage nobody recorded
 * (e.g. no `risky` column) is null and does not narrow the later stages. `marginal`
 * counts each marker on its own, so arms can be compared marker by marker.
 */
export interface Funnel {
  arm: ArmName;
  attempts: number;
  stages: Record<FunnelStage, number | null>;
  marginal: Record<FunnelStage, number | null>;
}

/** The observations behind a funnel: those reaching each stage, and each marker on its own. */
export interface FunnelReach<T extends Observation> {
  scorable: T[];
  stages: Record<FunnelStage, T[] | null>;
  marginal: Record<FunnelStage, T[] | null>;
}

/** Which observations reach each stage (the funnel's counts are these lists' lengths). */
export function funnelReach<T extends Observation>(obs: readonly T[]): FunnelReach<T> {
  const scorable = obs.filter((o) => !o.unscorable);
  const recorded = (s: FunnelStage): boolean =>
    s === "pass" || scorable.some((o) => o[s] !== undefined);
  const stages = {} as Record<FunnelStage, T[] | null>;
  const marginal = {} as Record<FunnelStage, T[] | null>;
  let reached = scorable;
  for (const s of FUNNEL_STAGES) {
    if (!recorded(s)) {
      stages[s] = null;
      marginal[s] = null;
      continue;
    }
    marginal[s] = scorable.filter((o) => o[s] === true);
    reached = reached.filter((o) => o[s] === true);
    stages[s] = reached;
  }
  return { scorable, stages, marginal };
}

const lengths = (r: Record<FunnelStage, unknown[] | null>) =>
  Object.fromEntries(FUNNEL_STAGES.map((s) => [s, r[s]?.length ?? null])) as Record<
    FunnelStage,
    number | null
  >;

export function funnel(arm: ArmName, obs: readonly Observation[]): Funnel {
  const r = funnelReach(obs);
  return {
    arm,
    attempts: r.scorable.length,
    stages: lengths(r.stages),
    marginal: lengths(r.marginal),
  };
}
