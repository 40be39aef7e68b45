import type { FamilyId } from "../../core/families.js";
import type { Rng } from "../prng.js";
import type { AttemptKind, AttemptScript, TaskSpec } from "../types.js";

export type Builder = (rng: Rng) => AttemptScript;

export interface TaskDef {
  id: string;
  instruction: string;
  good?: Builder;
  bad?: Builder;
  bad2?: Builder;
}

/**
 * The three tasks every family gets in the demo: a positive 1/2 (one failure showing the
 * procedural loss, one pass done right), a positive 0/2 whose failures show the omission, and
 * an eligible nearby negative of the same kind that passes 2/2.
 */
export function familyTasks(
  family: FamilyId,
  oneOfTwo: TaskDef,
  zeroOfTwo: TaskDef,
  nearby: TaskDef,
): TaskSpec[] {
  return [
    spec(family, "positive", oneOfTwo, ["bad", "good"]),
    spec(family, "positive", zeroOfTwo, ["bad", "bad2"]),
    spec(family, "nearby-negative", nearby, ["good", "good"]),
  ];
}

export function spec(
  family: FamilyId | null,
  cohort: TaskSpec["cohort"],
  def: TaskDef & { gap?: Builder; fault?: Builder; timeout?: Builder },
  plan: AttemptKind[],
): TaskSpec {
  return {
    id: def.id,
    family,
    cohort,
    instruction: def.instruction,
    plan,
    build(kind: AttemptKind, rng: Rng): AttemptScript {
      const b =
        kind === "bad2"
          ? (def.bad2 ?? def.bad)
          : (def as unknown as Record<string, Builder | undefined>)[kind];
      if (!b) throw new Error(`task ${def.id} has no '${kind}' attempt`);
      return b(rng);
    },
  };
}
