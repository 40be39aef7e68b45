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
  arm: string;
  attempts: number;
  stages: Record<FunnelStage, number | null>;
  marginal: Record<FunnelStage, number | null>;
}

export function funnel(arm: string, obs: readonly Observation[]): Funnel {
  const scorable = obs.filter((o) => !o.unscorable);
  const recorded = (s: FunnelStage): boolean =>
    s === "pass" || scorable.some((o) => o[s] !== undefined);
  const stages = {} as Record<FunnelStage, number | null>;
  const marginal = {} as Record<FunnelStage, number | null>;
  let reached = scorable;
  for (const s of FUNNEL_STAGES) {
    if (!recorded(s)) {
      stages[s] = null;
      marginal[s] = null;
      continue;
    }
    marginal[s] = scorable.filter((o) => o[s] === true).length;
    reached = reached.filter((o) => o[s] === true);
    stages[s] = reached.length;
  }
  return { arm, attempts: scorable.length, stages, marginal };
}
