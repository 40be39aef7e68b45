import { isTimeout, writtenContent } from "./paths.js";
import { stopIndex, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

/** Rewrites of one file that count as churn instead of progress. */
const CHURN_MIN = 3;
/**
 * Size an earlier write must reach to be the fuller deliverable a placeholder replaced: below
 * it, different sizes are alternatives tried (payloads, one-liners), not lost content.
 */
const FULLER_MIN = 512;
/** Tool calls that count as a long exploration. */
const LONG_RUN = 20;

/**
 * The run hit its time limit while the deliverable was missing or still churning:
 * nothing written after a long exploration, the same contents rewritten again and again,
 * or the last write a fraction of an earlier, fuller one (a placeholder over real content).
 */
export const deadlineNoDeliverable: Detector = {
  id: "deadline.no-deliverable",
  description: "deadline reached after long exploration with no finished deliverable",
  mechanism: "deadline-no-deliverable",
  detect(attempt) {
    if (!isTimeout(attempt)) return [];
    const calls = toolCalls(attempt);
    const writes = calls.filter((c) => writtenPaths(c).length > 0);
    const at = stopIndex(attempt);
    if (writes.length === 0 && calls.length >= LONG_RUN) {
      return [
        {
          eventIndices: [at],
          reason: `timed out after ${calls.length} tool calls without writing anything`,
          signature: "nothing written",
        },
      ];
    }
    const byPath = new Map<string, typeof writes>();
    for (const w of writes)
      for (const p of writtenPaths(w)) byPath.set(p, [...(byPath.get(p) ?? []), w]);
    for (const [path, ws] of [...byPath.entries()].sort((x, y) => y[1].length - x[1].length)) {
      const contents = ws.map(writtenContent).filter((c): c is string => c !== undefined);
      if (contents.length < ws.length) continue;
      const sizes = contents.map((c) => c.length);
      const last = sizes.at(-1) ?? 0;
      const max = Math.max(...sizes);
      const placeholder = max >= FULLER_MIN && last < max / 2;
      // The same contents written again and again: churn, not progress.
      const churn = ws.length >= CHURN_MIN && new Set(contents).size <= ws.length / 2;
      if (churn || placeholder) {
        return [
          {
            eventIndices: ws.map((w) => w.index),
            reason: `timed out while rewriting ${path} (${ws.length} writes${placeholder ? `, last ${last} of ${max} bytes` : ""})`,
            signature: placeholder ? "placeholder deliverable" : "deliverable churn",
          },
        ];
      }
    }
    return [];
  },
};
