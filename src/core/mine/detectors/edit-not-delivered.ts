import { CUT_MARK } from "../../ingest/text.js";
import type { Attempt, Event } from "../../model/attempt.js";
import { isScratch } from "./destructive-after-probe.js";
import { diffEntries, diffFiles, GIT_DIFF, ofWorkTree } from "./diff-emptied.js";
import { neverRan } from "./never-ran.js";
import { baseName, foundInPlace, namedPaths, samePath } from "./paths.js";
import {
  callSucceeded,
  commandOf,
  handsOverDone,
  outputOf,
  resultOf,
  segments,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import { isTestFile, type Substitution, substitutions } from "./test-changes.js";
import type { Detector } from "./types.js";

/** Commands that change tracked files without naming them: a checkout, a stash, a patch applied. */
const UNNAMED_CHANGE =
  /^(?:sudo\s+)?(?:git\s+(?:checkout|restore|stash|reset|apply|am|cherry-pick|revert|merge|rebase|pull|switch)\b|patch\b)/;
/** A leading `cd` or a path outside the work tree: the file may not be the diff's. */
const ELSEWHERE = /^(?:\/|~|\.\.\/)/;

/**
 * A `git diff` that prints the whole work tree's (or index's) diff, with git's `a/` `b/`
 * headers: against the last commit (ofWorkTree), naming no path (`git diff a.py` shows only
 * a.py: every word an option or HEAD), nothing piped or redirected after it (`| head`,
 * `> fix.patch`), no option that changes the headers or the paths (`--no-prefix`, `--relative`).
 */
function wholeTreeDiff(diffCmd: string): boolean {
  const rest = diffCmd.trim().replace(GIT_DIFF, "");
  if (!ofWorkTree(diffCmd) || /[|<>]/.test(rest)) return false;
  if (/--(?:no-prefix|src-prefix|dst-prefix|relative)\b/.test(rest)) return false;
  return rest
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => w.startsWith("-") || w === "HEAD");
}
/** A diff of the index (`--cached`), or of the index and work tree against a commit (`HEAD`). */
const SHOWS_STAGED = /(?:^|\s)(?:--cached|--staged|HEAD)(?:\s|$)/;

/** Whether the call's output is the whole of what the command printed (not capped). */
function whole(a: Attempt, call: Event): boolean {
  const r = resultOf(a, call);
  const out = r?.output ?? "";
  if (r?.outputBytes !== undefined && r.outputBytes > Buffer.byteLength(out)) return false;
  // a harness that cut a long output says so in it, and so does fire's own cap
  if (CUT_MARK.test(out)) return false;
  return !/<output_head>|<output_tail>|output of your last command was too long/i.test(out);
}

/**
 * The run's last call printed the diff of its work tree (what a diff-based grader receives),
 * and that diff does not name a file the agent had changed in place with a `sed -i`
 * substitution that exited 0: sed reports no match, so a pattern or a line address that missed
 * (`sed -i '183s/…/…/'` one line off) changed nothing, and the edit the agent believed made never
 * reached the submission. Only a file found in place (read or listed before) that no call had
 * written before the substitution (a file the run created may be untracked; a second edit may
 * undo the first), inside the work tree, whose last write is that substitution, with no
 * command after it that changes files it does not name (a checkout, a stash, a patch), no
 * commit (deliverable.diff-emptied-by-commit reads those), and a diff of the whole work tree
 * (no path named, nothing piped or redirected, git's own headers, the index's diff after a
 * `git add`) that was not capped.
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
    if (!last || diffCmd === undefined || !wholeTreeDiff(diffCmd) || !whole(attempt, last))
      return [];
    const output = outputOf(attempt, last);
    const delivered = diffFiles(output);
    // headers git did not write as `diff --git a/… b/…`: the files cannot be read
    if (delivered.length === 0 && /^diff --git /m.test(output)) return [];
    // a plain `git diff` shows nothing staged: after a `git add`, only the index's diff is whole
    const staged = SHOWS_STAGED.test(diffCmd.trim().replace(GIT_DIFF, ""));
    const adds = (c: Event) =>
      segments(commandOf(c) ?? "").some((seg) => /^git\s+add\b/.test(seg.trim()));
    if (!staged && calls.some(adds)) return [];
    const subs: { sub: Substitution; call: Event }[] = [];
    // files a call had written before: an edit of them may undo or redo the agent's own
    const writtenBefore: string[] = [];
    for (const c of calls) {
      if (c === last) break;
      const segs = segments(commandOf(c) ?? "");
      if (segs.some((s) => /^git\s+commit\b/.test(s.trim()))) return [];
      const named = writtenPaths(c);
      // a later write of the file, or a change that names no file, may have undone the edit
      for (let i = subs.length - 1; i >= 0; i--) {
        const s = subs[i];
        if (s && named.some((p) => samePath(p, s.sub.path))) subs.splice(i, 1);
      }
      if (segs.some((s) => UNNAMED_CHANGE.test(s.trim()))) subs.length = 0;
      const ran = !/^\s*cd\s/.test(commandOf(c) ?? "") && callSucceeded(attempt, c);
      if (ran)
        for (const sub of substitutions(commandOf(c) ?? ""))
          if (
            !ELSEWHERE.test(sub.path) &&
            !isScratch(sub.path) &&
            sub.from !== sub.to &&
            !writtenBefore.some((p) => samePath(p, sub.path))
          )
            subs.push({ sub, call: c });
      // a call the harness refused, or that never ran, wrote nothing
      if (!neverRan(attempt, c)) writtenBefore.push(...named);
    }
    const missed = subs.find(
      ({ sub }) => !delivered.some((d) => samePath(d, sub.path)) && foundInPlace(attempt, sub.path),
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

/**
 * A file of the agent's own making, by a word of its name: a reproduction, a debug or scratch
 * script (`reproduce.py`, `new_reproduce_npe.py`, `debug-x.js`; not `checkpoint.go`,
 * `debugger.py` or `examples.py`, whose words only start so).
 */
const OWN_SCRIPT =
  /(?:^|[_.-])(?:re?pro(?:duce)?|debug|scratch|tmp|temp|check|try|verify|demo|example)(?:[_.-]|$)/i;
/** Notes and logs: a top-level one is the agent's, not code the task is about. */
const NOTES = /\.(?:md|txt|log|rst)$/i;
/** A task that asks for a test of its own (then a new test module is the deliverable). */
const ASKS_FOR_TESTS =
  /\b(?:add|write|create|include)\s+(?:an?\s+|new\s+|unit\s+|regression\s+)*tests?\b/i;

/**
 * The agent handed its work over (a completion tool such as `submit`, or the sentinel echo that
 * ends the run), what the hand-over printed is the whole diff that was submitted, and that diff
 * holds nothing but files the agent created itself outside the code: test modules, files named
 * as its own scripts (`reproduce.py`, `debug_x.py`), notes at the top of the work tree, none of
 * them named by the task. The change the task asks for, to the code that was there, never
 * reached the submission (an agent that "cannot modify the library" and submits its test, one
 * that fixed a simulation of the code instead). A task that asks for tests, a diff that was cut,
 * or one that also changes a file that was there is none.
 */
export const submissionWithoutFix: Detector = {
  id: "deliverable.submission-without-fix",
  description: "the submitted diff holds only files the agent created, no change to the code",
  mechanism: "artifact-never-written",
  detect(attempt) {
    if (attempt.outcome === "pass" || ASKS_FOR_TESTS.test(attempt.taskText)) return [];
    const last = toolCalls(attempt).at(-1);
    if (!last || !handsOverDone(last) || !whole(attempt, last)) return [];
    const diffCmd = segments(commandOf(last) ?? "").find((seg) => GIT_DIFF.test(seg.trim()));
    if (diffCmd !== undefined && !wholeTreeDiff(diffCmd)) return [];
    const entries = diffEntries(outputOf(attempt, last));
    if (entries.length === 0) return [];
    const named = namedPaths(attempt.taskText);
    // a new file at the top of the tree may be the fix (a Go package laid out at the root):
    // only its tests, its notes and its own scripts are the agent's
    const own = (p: string) =>
      isTestFile(p) ||
      OWN_SCRIPT.test(baseName(p).replace(/\.\w+$/, "")) ||
      isScratch(p) ||
      (!p.includes("/") && NOTES.test(p));
    const ownOnly = entries.every(
      (e) => e.created && own(e.path) && !named.some((n) => samePath(n, e.path)),
    );
    if (!ownOnly) return [];
    return [
      {
        eventIndices: [last.index],
        reason: `the diff the agent submitted at [${last.index}] holds only ${entries.length} file(s) it created itself (${entries
          .slice(0, 3)
          .map((e) => e.path)
          .join(", ")}): no change to the code the task is about`,
        signature: "no change to the code submitted",
      },
    ];
  },
};
