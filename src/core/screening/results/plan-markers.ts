import { join } from "node:path";
import { loadPolicySource } from "../../freeze/policy-source.js";
import { loadPolicies } from "../../policy/load.js";
import type { CompiledPolicy } from "../../policy/types.js";
import { screenPaths } from "../paths.js";
import { readPlanIfAny } from "../plan/plan-file.js";
import type { ScreenPlan } from "../plan/schema.js";

/** The real policy of a plan, compiled (its arm copy when planned, else its source). */
export function planMarkers(workspace: string, plan: ScreenPlan): CompiledPolicy[] {
  const dir = screenPaths(workspace, plan.name).dir;
  const policyArm = plan.arms.find((a) => a.name === "policy" && a.files.length > 0);
  return policyArm
    ? loadPolicies([join(dir, "arms", "policy")]).policies
    : loadPolicySource(plan.source.path).policies;
}

/** Import tags a screen's plan supplies (none when the screen has no plan). */
export async function planTags(
  workspace: string,
  name: string,
): Promise<{ markers?: CompiledPolicy[]; providerFailures?: string[] }> {
  const plan = await readPlanIfAny(workspace, name);
  if (!plan) return {};
  return {
    markers: planMarkers(workspace, plan),
    providerFailures: plan.replacement.providerFailures,
  };
}
