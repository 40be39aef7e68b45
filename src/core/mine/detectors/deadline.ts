import type { Event } from "../../model/attempt.js";
import { isScratch } from "./destructive-after-probe.js";
import {
  baseName,
  isTimeout,
  namedPaths,
  outOfBudget,
  samePath,
  seenExisting,
  verifierMissing,
  writtenContent,
} from "./paths.js";
import {
  callSucceeded,
  commandOf,
  isWrite,
  segments,
  stopIndex,
  toolCalls,
  writtenPaths,
} from "./shell.js";
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
 * Programs that change files without naming them in a redirection: a patch applied, a merge,
 * an archive unpacked, a build or a compile (its output is written).
 */
const CHANGES_FILES =
  /^(?:patch|git\s+(?:-C\s+\S+\s+)?(?:apply|am|cherry-pick|merge|pull|revert|stash\s+(?:pop|apply)|checkout|restore)|unzip|tar\s+-?[a-zA-Z]*x|make|cmake|ninja|gcc|g\+\+|clang(?:\+\+)?|cc|javac|rustc|cargo\s+build|go\s+build|tsc|npm\s+run\s+build|mvn\s+(?:package|compile|install)|gradlew?|pdflatex|xelatex|lualatex|latexmk)\b/;

/**
 * Whether a call may have written something: a visible write (an edit tool, a redirection,
 * `sed -i`, `cp`, code that opens a file for writing) or a program that changes files
 * (`patch`, `git apply`, a build).
 */
function wroteSomething(call: Event): boolean {
  if (isWrite(call)) return true;
  const cmd = commandOf(call);
  if (!cmd) return false;
  return segments(cmd).some((seg) =>
    CHANGES_FILES.test(seg.replace(/^(?:(?:sudo|time|nice|exec)\s+|[A-Za-z_]\w*=\S*\s+)+/, "")),
  );
}

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
    if (calls.length >= LONG_RUN && !calls.some(wroteSomething)) {
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
    // a scratch file (`/tmp/probe.py`) is no deliverable unless the task or the verifier names it
    const missing = verifierMissing(attempt).paths;
    const named = (p: string) =>
      namedPaths(attempt.taskText).some((n) => samePath(n, p)) ||
      missing.some((n) => samePath(n, p)) ||
      (attempt.verifierOutput ?? "").includes(p);
    for (const [path, ws] of [...byPath.entries()].sort((x, y) => y[1].length - x[1].length)) {
      if (isScratch(path) && !named(path)) continue;
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
