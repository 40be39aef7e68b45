import { allWrites, samePath } from "./paths.js";
import { callSucceeded, commandOf, outputOf, segments, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** A commit that recorded changes: git's summary line of what it committed. */
const COMMITTED = /\b\d+ files? changed\b/;

/** Options that print a summary or nothing, not the diff itself. */
const SUMMARY_ONLY =
  /^(?:--(?:stat|shortstat|numstat|dirstat|name-only|name-status|summary|quiet|no-patch|check)\b|-s$)/;
/** Options that print the patch after all (`--stat -p`). */
const PATCH = /^(?:-p|-u|--patch)$/;
/** A revision, not a path: `HEAD~1`, `main..feat`, `@{u}`, an abbreviated commit id. */
const REVISION = /[~^@]|\.\.|^[0-9a-f]{7,40}$/;
/** `git diff` as git is called (`git --no-pager diff`, `git -C dir diff`; not `git diff-index`). */
export const GIT_DIFF = /^git(?:\s+(?:-[cC]\s+[^-\s]\S*|--no-pager|-P))*\s+diff(?=\s|$)/;

/**
 * Whether a `git diff` prints the work tree's (or the index's) changes against the last commit
 * in full: no revision but HEAD before a `--` (`git diff HEAD~1` compares with a commit the
 * agent's commit did not move), no option that prints a summary or nothing (`--stat` names no
 * `diff --git` line) unless the patch is asked for too. A path or a branch name is not read as
 * a revision; what follows a pipe or a redirection is another command's.
 */
export function ofWorkTree(cmd: string): boolean {
  const c = cmd.trim();
  const m = GIT_DIFF.exec(c);
  if (!m) return false;
  const own = c.slice(m[0].length).split(/\||>|<|;|&&/)[0] ?? "";
  let summary = false;
  let patch = false;
  for (const w of own.split(/\s+/).filter(Boolean)) {
    if (w === "--") break;
    if (PATCH.test(w)) patch = true;
    else if (SUMMARY_ONLY.test(w)) summary = true;
    else if (!w.startsWith("-") && w !== "HEAD" && REVISION.test(w)) return false;
  }
  return !summary || patch;
}

/** The files of a unified diff (`diff --git a/x b/x`), each with whether it creates it (`new file mode`). */
export function diffEntries(diff: string): { path: string; created: boolean }[] {
  const out: { path: string; created: boolean }[] = [];
  for (const line of diff.split("\n")) {
    const head = /^diff --git a\/(\S+) b\/\S+/.exec(line);
    const current = out.at(-1);
    if (head) out.push({ path: head[1] as string, created: false });
    else if (current && /^new file mode \d+/.test(line)) current.created = true;
  }
  return out;
}

/** The files a unified diff touches (`diff --git a/x b/x`). */
export function diffFiles(diff: string): string[] {
  return diffEntries(diff).map((e) => e.path);
}

/**
 * The run delivered the diff of its work tree (its last call prints `git diff`), but the agent
 * had committed its changes before: a commit moves them into the history the diff compares
 * against, so what was graded held none of them. Seen when the diff came out empty, or named
 * none of the files the agent wrote before its commit. Only a commit whose output reports
 * changed files counts (one that committed nothing lost nothing). No tool, task or benchmark is
 * named: the submission is the output of the run's own last call.
 */
export const diffEmptiedByCommit: Detector = {
  id: "deliverable.diff-emptied-by-commit",
  description: "the submitted git diff lost the changes the agent had committed",
  mechanism: "artifact-never-written",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const calls = toolCalls(attempt);
    const last = calls.at(-1);
    const lastCmd = last ? (commandOf(last) ?? "") : "";
    const diffCmd = segments(lastCmd).find((s) => GIT_DIFF.test(s.trim()));
    if (!last || diffCmd === undefined || !ofWorkTree(diffCmd)) return [];
    const commit = calls.findLast(
      (c) =>
        c !== last &&
        segments(commandOf(c) ?? "").some((s) => /^git\s+commit\b/.test(s)) &&
        callSucceeded(attempt, c) &&
        COMMITTED.test(outputOf(attempt, c)),
    );
    if (!commit) return [];
    const diff = outputOf(attempt, last);
    const before = allWrites(attempt)
      .filter((w) => w.call.index < commit.index)
      .map((w) => w.path);
    const delivered = diffFiles(diff);
    const lost =
      diff.trim() === ""
        ? "came out empty"
        : before.length > 0 && !before.some((w) => delivered.some((d) => samePath(d, w)))
          ? `names only ${delivered.slice(0, 3).join(", ") || "no file"}, none of the files written before the commit`
          : undefined;
    if (!lost) return [];
    return [
      {
        eventIndices: [commit.index, last.index],
        reason: `the agent committed its changes at [${commit.index}] (${COMMITTED.exec(outputOf(attempt, commit))?.[0]}); the submitted git diff at [${last.index}] ${lost}`,
        signature: "diff emptied by a commit",
      },
    ];
  },
};
