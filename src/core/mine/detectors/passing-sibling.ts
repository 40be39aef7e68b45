import type { Detector } from "./types.js";

/** Capability evidence: another attempt of the same task passed. */
export const passingSibling: Detector = {
  id: "capability.passing-sibling",
  description: "a sibling attempt of the same task passed (the agent can solve it)",
  capability: true,
  detect(attempt, ctx) {
    const passing = ctx.siblings.filter((s) => s.id !== attempt.id && s.outcome === "pass");
    if (passing.length === 0) return [];
    const names = passing
      .map((s) => s.id)
      .sort()
      .slice(0, 3)
      .join(", ");
    return [{ eventIndices: [], reason: `${passing.length} passing sibling attempt(s): ${names}` }];
  },
};
