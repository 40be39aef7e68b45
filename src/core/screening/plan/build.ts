import type { ArmName } from "../../model/arm.js";
import { policyKey } from "../../policy/key.js";
import { Candidate } from "../../policy/schema.js";
import { deriveSham } from "../../policy/sham.js";
import { createRng, shuffled } from "../../stats/prng.js";
import { sha256Json } from "../canonical.js";
import { alwaysVerifyCandidate, reconsiderCandidate } from "./controls.js";
import type { PlanArm, PlanCell, PlanTask, ScreenPlan } from "./schema.js";

export const PROVIDER_FAILURES = [
  "RateLimitError",
  "APIConnectionError",
  "APITimeoutError",
  "InternalServerError",
  "ServiceUnavailableError",
  "ProviderError",
];

export interface PlanInput {
  name: string;
  seed: number | string;
  attempts: number;
  arms: readonly ArmName[];
  source: { kind: "portfolio" | "candidate"; path: string };
  /** The real policy's validated candidates. */
  candidates: readonly Candidate[];
  tasks: readonly PlanTask[];
  createdAt: string;
}

export interface BuiltPlan {
  plan: ScreenPlan;
  /** Candidate files to write, by path relative to the screen dir. */
  files: Record<string, Candidate>;
}

const byId = (cs: readonly Candidate[]): Candidate[] =>
  [...cs].sort((a, b) => policyKey(a).localeCompare(policyKey(b)));

/** Hash of a candidate set (sorted by id@version), the identity of an arm's source. */
export const candidatesHash = (cs: readonly Candidate[]): string => sha256Json(byId(cs));

/** The candidates of one arm: policy = real, sham = derived, controls = built-in data. */
export function armCandidates(arm: ArmName, real: readonly Candidate[]): Candidate[] {
  const first = real[0];
  if (!first) throw new Error("a screen needs at least one policy candidate");
  const behavior = real.length === 1 ? first.behavior : { any: real.map((c) => c.behavior) };
  switch (arm) {
    case "baseline":
      return [];
    case "policy":
      return byId(real);
    case "sham":
      return byId(real.map(deriveSham));
    case "always-verify":
      return [Candidate.parse(alwaysVerifyCandidate(behavior))];
    case "reconsider":
      return [Candidate.parse(reconsiderCandidate(behavior))];
  }
}

/**
 * Randomised schedule: within each replicate the arm order is shuffled from the seed
 * (`<seed>:r<replicate>`); each arm then runs every task.
 */
export function buildSchedule(
  seed: number | string,
  attempts: number,
  arms: readonly ArmName[],
  tasks: readonly PlanTask[],
): PlanCell[] {
  const cells: PlanCell[] = [];
  for (let r = 1; r <= attempts; r++) {
    const order = shuffled(arms, createRng(`${seed}:r${r}`));
    order.forEach((arm, i) => {
      for (const t of tasks)
        cells.push({ id: `r${r}/${arm}/${t.id}`, replicate: r, order: i, arm, task: t.id });
    });
  }
  return cells;
}

/** Hash of the plan body (everything but `hashes`). */
export function planBodyHash(plan: Omit<ScreenPlan, "hashes"> | ScreenPlan): string {
  const { hashes: _h, ...body } = plan as ScreenPlan;
  return sha256Json(body);
}

/** Builds a plan and its arms' candidate files, with every hash, before anything runs. */
export function buildPlan(input: PlanInput): BuiltPlan {
  const files: Record<string, Candidate> = {};
  const arms: PlanArm[] = input.arms.map((name) => {
    const cs = armCandidates(name, input.candidates);
    const rel = cs.map((c) => `arms/${name}/${policyKey(c)}.json`);
    cs.forEach((c, i) => {
      files[rel[i] as string] = c;
    });
    return {
      name,
      files: rel,
      policies: cs.map((c) => policyKey(c)),
      sha256: candidatesHash(cs),
    };
  });
  const tasks = [...input.tasks].sort((a, b) => a.id.localeCompare(b.id));
  const schedule = buildSchedule(input.seed, input.attempts, input.arms, tasks);
  const body: Omit<ScreenPlan, "hashes"> = {
    version: 1,
    name: input.name,
    createdAt: input.createdAt,
    seed: input.seed,
    attempts: input.attempts,
    source: { ...input.source, sha256: candidatesHash(input.candidates) },
    tasks,
    arms,
    schedule,
    replacement: {
      rule: "keep-original-fair-else-first-fair-in-recovery-order",
      providerFailures: PROVIDER_FAILURES,
      maxReplacements: 2,
    },
  };
  const plan: ScreenPlan = {
    ...body,
    hashes: { tasks: sha256Json(tasks), schedule: sha256Json(schedule), plan: planBodyHash(body) },
  };
  return { plan, files };
}
