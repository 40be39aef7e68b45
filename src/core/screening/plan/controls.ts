import type { CandidateInput } from "../../policy/schema.js";

/**
 * The two generic control arms of the five-arm panel, as candidate data: a verify
 * instruction (always-verify) or a reconsider instruction (reconsider) at the first stop
 * of every task. No eligibility (every task), no mechanism, no task content. `behavior`
 * is the real policy's marker so the funnel codes behaviour identically in every arm.
 */
export const ALWAYS_VERIFY_TEXT =
  "Before you finish, verify your work: run the checks or tests that show each requirement of the task is met, look at their output, and fix anything that fails.";
export const RECONSIDER_TEXT =
  "Before you finish, reconsider your approach: re-read the task, think about what could be wrong or missing in what you did, and change it if needed.";

function control(
  id: string,
  title: string,
  text: string,
  behavior: CandidateInput["behavior"],
): CandidateInput {
  return {
    id,
    version: 1,
    family: "control",
    title,
    chain: {
      state: "the agent tries to stop",
      intervention: "generic stop-time instruction",
      behavior: "the real policy's registered behaviour marker",
      verifier: "verifier pass",
    },
    status: "screening",
    notes: "Built-in control arm of the attribution panel (fire screen plan).",
    rules: [
      { id: "stop-instruction", at: "stop", action: "instruct", message: text, nudgeLimit: 1 },
    ],
    behavior,
  };
}

export function alwaysVerifyCandidate(behavior: CandidateInput["behavior"]): CandidateInput {
  return control("control-always-verify", "Always verify at stop", ALWAYS_VERIFY_TEXT, behavior);
}

export function reconsiderCandidate(behavior: CandidateInput["behavior"]): CandidateInput {
  return control("control-reconsider", "Reconsider at stop", RECONSIDER_TEXT, behavior);
}
