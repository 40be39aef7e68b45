import { normalizeEvidence } from "../mechanisms.js";
import { callText, errorText, toolFailed } from "./paths.js";
import { resultOf, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** Minimum identical failing calls that count as a loop. */
export const LOOP_MIN = 3;
/**
 * Repeats that make the loop the mechanism of the failure (a loop that eats the budget),
 * not just a sign of struggle: three tries of a hard step are normal flailing.
 */
export const LOOP_MECHANISM_MIN = 5;

/**
 * The same tool failing with the same error again and again, whatever the tool (shell,
 * read/write/edit, browser, MCP or any function name): keyed by tool name and the
 * normalized error text, so a loop of identical non-shell failures is seen as that
 * tool's repeated error. Loops come out largest first.
 */
export const repeatedFailure: Detector = {
  id: "loop.repeated-failure",
  description: `the same tool error repeated ${LOOP_MIN}+ times without a change of approach`,
  detect(attempt) {
    const seen = new Map<
      string,
      { idx: number[]; tool: string; error: string; inputs: Set<string>; first: string }
    >();
    for (const call of toolCalls(attempt)) {
      if (!toolFailed(attempt, call)) continue;
      const tool = call.tool ?? "tool";
      const error = normalizeEvidence(errorText(resultOf(attempt, call)) || "failed", 160);
      const key = `${tool}\u0000${error}`;
      const entry = seen.get(key) ?? {
        idx: [],
        tool,
        error,
        inputs: new Set<string>(),
        first: callText(call).replace(/\s+/g, " ").trim(),
      };
      entry.idx.push(call.index);
      entry.inputs.add(normalizeEvidence(callText(call), 400));
      seen.set(key, entry);
    }
    return (
      [...seen.values()]
        // Without a change of approach: mostly the same input again, not new attempts.
        .filter((e) => e.idx.length >= LOOP_MIN && e.inputs.size <= e.idx.length / 2)
        .sort((x, y) => y.idx.length - x.idx.length || (x.tool < y.tool ? -1 : 1))
        .map((e) => ({
          eventIndices: e.idx,
          reason: `${e.idx.length}× ${e.tool} failed: ${e.error.slice(0, 100)} (on: ${e.first.slice(0, 80)})`,
          signature: `${e.tool}: ${e.error}`.slice(0, 200),
          ...(e.idx.length >= LOOP_MECHANISM_MIN ? { mechanism: "repeated-tool-error" } : {}),
        }))
    );
  },
};
