import { z } from "zod";

/**
 * THE arms of a screen: the baseline (no policy), the policy, and the controls the policy is
 * also compared against (a sham that fires without acting, and two generic interventions).
 * Plans, results rows, observations and the statistics all use this one enum.
 */
export const ARM_NAMES = ["baseline", "policy", "sham", "always-verify", "reconsider"] as const;
export const ArmName = z.enum(ARM_NAMES);
export type ArmName = z.infer<typeof ArmName>;

export const BASELINE_ARM = "baseline" satisfies ArmName;
export const POLICY_ARM = "policy" satisfies ArmName;
/** Controls the real policy is also compared against, when present. */
export const CONTROL_ARMS = [
  "sham",
  "always-verify",
  "reconsider",
] as const satisfies readonly ArmName[];
