import { policyKey } from "./key.js";
import type { Candidate } from "./schema.js";

/** Generic review sentences: no mechanism, no task content (the triggered-sham arm). */
const GENERIC = [
  "Take a moment to review your recent steps.",
  "Check that your work so far matches what the task asks for.",
  "Re-read the task description and compare it with what you have done.",
  "Consider whether anything you assumed still holds.",
  "Look over your last few actions for anything you may have missed.",
  "Make sure the result is in the form the task requests.",
  "If something looks uncertain, double-check it before moving on.",
  "Continue when you are satisfied with the current state of your work.",
];

/** Generic review text whose length is close to `target` characters (at least one sentence). */
export function genericText(target: number): string {
  let out = "";
  for (
    let i = 0;
    out.length === 0 || out.length + GENERIC[i % GENERIC.length]!.length / 2 < target;
    i++
  ) {
    const s = GENERIC[i % GENERIC.length]!;
    out = out.length === 0 ? s : `${out} ${s}`;
    if (i > 64) break;
  }
  return out;
}

/**
 * The triggered sham of a candidate: same eligibility, tracking and trigger timing (same
 * points, conditions, nudge limits, releases), every message replaced by the candidate's
 * `sham` text or generic review text of similar length, and every deny turned into an
 * instruct. Identity: `<id>-sham`, same version.
 */
export function deriveSham(c: Candidate): Candidate {
  return {
    ...c,
    id: `${c.id}-sham`,
    title: `Triggered sham of ${c.title}`,
    status: c.status,
    rules: c.rules.map((r) => ({
      ...r,
      action: "instruct" as const,
      message: c.sham ?? genericText(r.message.length),
    })),
    notes: `Derived sham of ${policyKey(c)}: same eligibility and trigger timing, generic text.`,
  };
}
