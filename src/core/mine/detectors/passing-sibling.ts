import type { Attempt } from "../../model/attempt.js";
import type { Detector } from "./types.js";

/** "model (agent, arm)" of an attempt, for saying who passed. */
function who(a: Attempt): string {
  const model = a.model || "unknown model";
  const extra = [a.agent, a.arm !== "baseline" ? `arm ${a.arm}` : undefined].filter(Boolean);
  return extra.length ? `${model} (${extra.join(", ")})` : model;
}

/** Capability evidence: another attempt of the same task passed — by which model. */
export const passingSibling: Detector = {
  id: "capability.passing-sibling",
  description: "a sibling attempt of the same task passed (says which model)",
  capability: true,
  detect(attempt, ctx) {
    const passing = ctx.siblings.filter((s) => s.id !== attempt.id && s.outcome === "pass");
    if (passing.length === 0) return [];
    const byModel = new Map<string, string[]>();
    for (const s of passing) byModel.set(who(s), [...(byModel.get(who(s)) ?? []), s.id]);
    const same = passing.some((s) => (s.model ?? "") === (attempt.model ?? ""));
    const models = [...byModel.entries()]
      .sort((x, y) => y[1].length - x[1].length || (x[0] < y[0] ? -1 : 1))
      .map(([m, ids]) => `${m}: ${ids.sort().slice(0, 2).join(", ")}${ids.length > 2 ? ", …" : ""}`)
      .join("; ");
    return [
      {
        eventIndices: [],
        reason: `${passing.length} passing sibling attempt(s)${same ? " (same model)" : " (another model)"} — ${models}`,
      },
    ];
  },
};
