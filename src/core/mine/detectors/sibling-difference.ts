import { siblingEvidence } from "../sibling-diff.js";
import type { Detector } from "./types.js";

/**
 * The decisive difference from a passing sibling of the same task (a split task): what the
 * sibling did that this attempt did not, tied to the outcome, and the mechanism it shows
 * (core/mine/sibling-diff.ts). Mechanism evidence independent of any trace pattern.
 */
export const siblingDifference: Detector = {
  id: "sibling.decisive-difference",
  description: "a passing sibling of the same task did what this attempt did not, decisively",
  detect(attempt, ctx) {
    const cmp = siblingEvidence(attempt, ctx.siblings);
    const d = cmp?.decisive;
    if (!cmp || !d?.mechanismId) return [];
    return [
      {
        eventIndices: [...d.failedEvents],
        reason: `${d.sentence} (sibling ${cmp.siblingId})`,
        mechanism: d.mechanismId,
        signature: d.kind,
      },
    ];
  },
};
