import {
  baseName,
  isTimeout,
  outOfBudget,
  samePath,
  seenExisting,
  verifierMissing,
  writtenContent,
} from "./paths.js";
import { callSucceeded, commandOf, stopIndex, toolCalls, writtenPaths } from "./shell.js";
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
 * Whether a shell command removes `path`: an `rm` (or `unlink`) whose operand is the path,
 * its file name relative to the working folder, or a folder above it.
 */
export function removes(cmd: string, path: string): boolean {
  for (const seg of cmd.split(/&&|\|\||;|\n/)) {
    const words = seg.trim().split(/\s+/);
    let i = 0;
    while (words[i] === "sudo" || words[i] === "command") i++;
    if (words[i] !== "rm" && words[i] !== "unlink") continue;
    for (const w of words.slice(i + 1)) {
      const arg = w.replace(/^['"]|['"]$/g, "").replace(/\/+$/, "");
      if (!arg || arg.startsWith("-")) continue;
      if (samePath(path, arg)) return true;
      if (!arg.includes("/") && arg === baseName(path)) return true;
      if (arg.startsWith("/") && path.startsWith(`${arg}/`)) return true;
    }
  }
  return false;
}

/**
 * The run hit its time limit (or its limit of steps) while the deliverable was missing or
 * still churning:
 * nothing written after a long exploration, the same contents rewritten again and again,
 * or the last write a fraction of an earlier, fuller one (a placeholder over real content).
 */
export const deadlineNoDeliverable: Detector = {
  id: "deadline.no-deliverable",
  description: "deadline reached after long exploration with no finished deliverable",
  mechanism: "deadline-no-deliverable",
  detect(attempt) {
    if (!outOfBudget(attempt)) return [];
    const ended = isTimeout(attempt) ? "timed out" : "ran out of steps";
    const calls = toolCalls(attempt);
    const writes = calls.filter((c) => writtenPaths(c).length > 0);
    const at = stopIndex(attempt);
    if (writes.length === 0 && calls.length >= LONG_RUN) {
      return [
        {
          eventIndices: [at],
          reason: `${ended} after ${calls.length} tool calls without writing anything`,
          signature: "nothing written",
        },
      ];
    }
    // A deliverable the verifier reports missing that existed and was then removed by the
    // agent's own command, never to be made again before the time ran out.
    for (const path of verifierMissing(attempt).paths) {
      // the last removal: an earlier one the agent undid (re-ran the code that writes it)
      // is not how the run ended
      const rm = [...calls]
        .reverse()
        .find(
          (c) =>
            removes(commandOf(c) ?? "", path) &&
            callSucceeded(attempt, c) &&
            seenExisting(attempt, path, c.index),
        );
      if (!rm) continue;
      const again = calls.some(
        (c) =>
          c.index > rm.index &&
          writtenPaths(c).some((w) => samePath(w, path) || baseName(w) === baseName(path)),
      );
      if (!again)
        return [
          {
            eventIndices: [rm.index, at],
            reason: `${ended} after removing its own ${path} (${(commandOf(rm) ?? "").slice(0, 60)})`,
            signature: "deliverable removed",
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
            reason: `${ended} while rewriting ${path} (${ws.length} writes${placeholder ? `, last ${last} of ${max} bytes` : ""})`,
            signature: placeholder ? "placeholder deliverable" : "deliverable churn",
          },
        ];
      }
    }
    return [];
  },
};
