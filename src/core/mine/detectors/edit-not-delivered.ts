import type { Attempt, Event } from "../../model/attempt.js";
import { isScratch } from "./destructive-after-probe.js";
import { diffFiles, GIT_DIFF, ofWorkTree } from "./diff-emptied.js";
import { foundInPlace, samePath, writtenContent } from "./paths.js";
import {
  callSucceeded,
  commandOf,
  outputOf,
  resultOf,
  segments,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import { type Substitution, substitutions } from "./test-changes.js";
import type { Detector } from "./types.js";

/** Commands that change tracked files without naming them: a checkout, a stash, a patch applied. */
const UNNAMED_CHANGE =
  /^(?:sudo\s+)?(?:git\s+(?:checkout|restore|stash|reset|apply|am|cherry-pick|revert|merge|rebase|pull|switch)\b|patch\b)/;
/** A leading `cd` or a path outside the work tree: the file may not be the diff's. */
const ELSEWHERE = /^(?:\/|~|\.\.\/)/;

/** A `git diff` that names no path (`git diff a.py` shows only a.py): every word an option or HEAD. */
function namesNoPath(diffCmd: string): boolean {
  const own =
    diffCmd
      .trim()
      .replace(GIT_DIFF, "")
      .split(/\||>|<|;|&&/)[0] ?? "";
  return own
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => w.startsWith("-") || w === "HEAD");
}

/** Whether the call's output is the whole of what the command printed (not capped). */
function whole(a: Attempt, call: Event): boolean {
  const r = resultOf(a, call);
  const out = r?.output ?? "";
  if (r?.outputBytes !== undefined && r.outputBytes > Buffer.byteLength(out)) return false;
  // a harness that cut a long output says so in it
  return !/<output_head>|<output_tail>|output of your last command was too long/i.test(out);
}

/**
 * The run's last call printed the diff of its work tree (what a diff-based grader receives),
 * and that diff does not name a file the agent had changed in place with a `sed -i`
 * substitution that exited 0: sed reports no match, so a pattern or a line address that missed
 * (`sed -i '183s/…/…/'` one line off) changed nothing, and the edit the agent believed made never
 * reached the submission. Only a file found in place (read or listed before; a file the run
 * created may be untracked), inside the work tree, whose last write is that substitution, with
 * no command after it that changes files it does not name (a checkout, a stash, a patch), no
 * commit (deliverable.diff-emptied-by-commit reads those), and a diff of the whole work tree
 * (no path named) that was not capped.
 */
export const editMissingFromDiff: Detector = {
  id: "deliverable.edit-missing-from-diff",
  description: "an in-place substitution the agent made is missing from the submitted diff",
  mechanism: "artifact-never-written",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const calls = toolCalls(attempt);
    const last = calls.at(-1);
    const diffCmd = segments(last ? (commandOf(last) ?? "") : "").find((s) =>
      GIT_DIFF.test(s.trim()),
    );
    if (!last || diffCmd === undefined || !ofWorkTree(diffCmd) || !namesNoPath(diffCmd)) return [];
    if (!whole(attempt, last)) return [];
    const delivered = diffFiles(outputOf(attempt, last));
    const subs: { sub: Substitution; call: Event }[] = [];
    for (const c of calls) {
      if (c === last) break;
      const segs = segments(commandOf(c) ?? "");
      if (segs.some((s) => /^git\s+commit\b/.test(s.trim()))) return [];
      const named = new Set(writtenPaths(c));
      // a later write of the file, or a change that names no file, may have undone the edit
      for (let i = subs.length - 1; i >= 0; i--) {
        const s = subs[i];
        if (s && [...named].some((p) => samePath(p, s.sub.path))) subs.splice(i, 1);
      }
      if (segs.some((s) => UNNAMED_CHANGE.test(s.trim()))) subs.length = 0;
      if (/^\s*cd\s/.test(commandOf(c) ?? "") || !callSucceeded(attempt, c)) continue;
      for (const sub of substitutions(commandOf(c) ?? ""))
        if (!ELSEWHERE.test(sub.path) && !isScratch(sub.path) && sub.from !== sub.to)
          subs.push({ sub, call: c });
    }
    const created = (path: string) =>
      calls.some(
        (c) => writtenContent(c) !== undefined && writtenPaths(c).some((p) => samePath(p, path)),
      );
    const missed = subs.find(
      ({ sub }) =>
        !delivered.some((d) => samePath(d, sub.path)) &&
        !created(sub.path) &&
        foundInPlace(attempt, sub.path),
    );
    if (!missed) return [];
    const cmd = (commandOf(missed.call) ?? "").trim().split("\n")[0]?.slice(0, 80) ?? "";
    return [
      {
        eventIndices: [missed.call.index, last.index],
        reason: `the agent's in-place substitution at [${missed.call.index}] (\`${cmd}\`) exited 0, but ${missed.sub.path} is not in the diff its last call submitted at [${last.index}] (${delivered.length ? `names ${delivered.slice(0, 3).join(", ")}` : "empty"}): the substitution changed nothing`,
        signature: "edit missing from the submitted diff",
      },
    ];
  },
};
