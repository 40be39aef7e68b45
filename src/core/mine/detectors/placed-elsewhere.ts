import type { Attempt, Event } from "../../model/attempt.js";
import { baseName, escapeRe, type MissingFact, namedPaths, toolFailed } from "./paths.js";
import { commandOf, leadingCd, resolvePath, segments, stages, toolCalls } from "./shell.js";
import type { DetectorHit } from "./types.js";

/*
 * The wrong-path reading of a program the checker could not start (output.wrong-path's
 * `programPlacedElsewhere`): where the agent's copies of it are left at the end of the run.
 */

/** A program that removes or moves the files it is given (`rm`, `mv`, `git rm`, `/bin/rm`). */
const REMOVER = /^\\?(?:\/(?:usr\/)?bin\/)?(?:rm|mv|unlink|rmdir)$/;
/** Commands that drop or reset whole folders of files (`git clean -fdx`, `find … -delete`). */
const SWEEPS = /\bgit\s+(?:clean|stash|checkout|restore|reset\s+--hard)\b|(?:^|\s)-delete\b/m;
/** A tool whose name says it deletes or moves files. */
const DELETE_TOOL = /(?:delete|remove|move|rename)/i;
/** Another `cd`, `pushd` or `popd` in the command: the folder of a later write is unknown. */
const MOVES_AGAIN = /(?:^|[;&|(\n]\s*)(?:cd|pushd|popd)\b/g;

/** The folder a command's writes land in, when only its leading `cd` moves it ("" unknown). */
function writeFolder(cmd: string): string | undefined {
  const cd = leadingCd(cmd);
  if (!cd) return undefined;
  return [...cmd.matchAll(MOVES_AGAIN)].length === 1 ? cd : "";
}

/** The operands of every remove or move in a command (`rm -rf a b`, `xargs rm x`, `git mv a b`). */
function removedOperands(cmd: string): string[] {
  const out: string[] = [];
  for (const seg of segments(cmd))
    for (const st of stages(seg)) {
      const toks = st.split(/\s+/).map((t) => t.replace(/^['"]|['"]$/g, ""));
      const at = toks.findIndex(
        (t, i) => REMOVER.test(t) || (t === "git" && /^(?:rm|mv)$/.test(toks[i + 1] ?? "")),
      );
      if (at < 0) continue;
      const from = toks[at] === "git" ? at + 2 : at + 1;
      for (const t of toks.slice(from))
        if (t && !t.startsWith("-")) out.push(t.replace(/\/+$/, ""));
    }
  return out;
}

/** A shell glob as an anchored pattern (`*` and `?` within one path segment). */
function globRe(glob: string): RegExp {
  const body = glob
    .split("")
    .map((c) => (c === "*" ? "[^/]*" : c === "?" ? "[^/]" : escapeRe(c)))
    .join("");
  return new RegExp(`^${body}$`);
}

/**
 * Whether a later call removed or moved the file at the absolute `path`: an operand that is the
 * file (by path, name or a glob matching either), one of its folders (absolute, or a relative
 * folder it ends in), a command that sweeps whole folders, or a tool that deletes or moves.
 */
function removedAfter(a: Attempt, path: string, after: number): boolean {
  const b = baseName(path);
  const hits = (o: string): boolean => {
    if (/[*?]/.test(o) && o.length <= 300) {
      const re = globRe(o);
      return o.startsWith("/") ? re.test(path) : re.test(b) || re.test(path.slice(1));
    }
    return (
      o === path ||
      baseName(o) === b ||
      (o.startsWith("/") ? path.startsWith(`${o}/`) : o !== "." && path.includes(`/${o}/`))
    );
  };
  return toolCalls(a).some((c) => {
    if (c.index <= after) return false;
    const cmd = commandOf(c);
    if (cmd === undefined) return !!c.tool && DELETE_TOOL.test(c.tool);
    return SWEEPS.test(cmd) || removedOperands(cmd).some(hits);
  });
}

/**
 * The checker could not start a program it names by a relative path, and every copy of it the
 * agent wrote (and did not remove or move later) is in a folder the write names (an absolute
 * path, or a path under the command's only `cd`, its leading one), a folder no absolute path of
 * the task names: the checker ran from another folder, so the program was delivered to the
 * wrong place. A write whose folder is unknown says nothing, nor a write that failed; a copy
 * in a folder the task names means the program was where it was asked for, and something else
 * kept the checker from it.
 */
export function programPlacedElsewhere(
  a: Attempt,
  facts: MissingFact[],
  writes: readonly { path: string; call: Event }[],
): Omit<DetectorHit, "detectorId" | "family"> | undefined {
  const taskFolders = new Set(
    namedPaths(a.taskText)
      .filter((p) => p.startsWith("/"))
      .map((p) => (p.endsWith("/") ? p.replace(/\/+$/, "") : p.slice(0, p.lastIndexOf("/")))),
  );
  for (const f of facts) {
    if (!f.ran || f.path.startsWith("/") || f.path.startsWith("~") || f.path.includes("..")) {
      continue;
    }
    const name = f.path.replace(/^\.\//, "");
    const b = baseName(name);
    const mine = writes
      .filter((w) => baseName(w.path) === b && !toolFailed(a, w.call))
      .map((w) => {
        const cmd = commandOf(w.call);
        const folder = cmd === undefined ? undefined : writeFolder(cmd);
        return { ...w, at: folder === "" ? w.path : resolvePath(w.path, folder) };
      });
    if (mine.length === 0 || mine.some((w) => !w.at.startsWith("/") || !w.at.endsWith(`/${name}`)))
      continue;
    if (mine.some((w) => taskFolders.has(w.at.slice(0, w.at.length - name.length - 1)))) continue;
    // each place's last write, kept when nothing removed or moved it afterwards
    const lastAt = new Map(mine.map((w) => [w.at, w]));
    const left = [...lastAt.values()].filter((w) => !removedAfter(a, w.at, w.call.index));
    const last = left.sort((x, y) => x.call.index - y.call.index).at(-1);
    if (!last) continue;
    return {
      eventIndices: [last.call.index],
      reason: `the verifier could not start ${name} where it ran it; the agent's ${name} is at ${last.at}`,
      signature: "written elsewhere",
    };
  }
  return undefined;
}
