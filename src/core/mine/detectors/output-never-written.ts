import type { Attempt, Event } from "../../model/attempt.js";
import { listedElsewhere } from "./listings.js";
import {
  allWrites,
  baseName,
  callText,
  escapeRe,
  extOf,
  lookedForAt,
  type MissingFact,
  namedFiles,
  namedPaths,
  notFoundCalls,
  samePath,
  seenExisting,
  toolFailed,
  verifierMissing,
} from "./paths.js";
import {
  callSucceeded,
  commandOf,
  leadingCd,
  resolvePath,
  segments,
  stages,
  stopIndex,
  toolCalls,
} from "./shell.js";
import type { Detector, DetectorHit } from "./types.js";

const VERB = "(?:write|save|create|produce|output|generate|store|put|emit|place|record|export)";
const FILE =
  "`?['\"]?((?:[\\w.~-]*/)*[\\w-]+\\.(?:txt|md|json|csv|py|sh|html|pdf|png|jpg|yaml|yml|xml|log|out|tex|js|ts|c|rs|go|sql|ics|db))\\b(?!\\.\\w)";
const NAMED_OUTPUT = new RegExp(`\\b${VERB}\\w*\\b[^.\\n]{0,80}?${FILE}`, "gi");
const TO_FILE = new RegExp(`\\b(?:to|into|in|as|at)\\s+${FILE}`, "gi");
const WRITE_MARKERS =
  /(>|\btee\b|\bcp\b|\bmv\b|\s-o\s|--output|open\(|write|savefig|to_csv|to_json|dump|touch|install)/;
/** Code that writes a database file it names (SQL that changes it, a committed connection). */
const DB_WRITE_MARKERS = /\.commit\(\)|\b(?:INSERT\s+INTO|CREATE\s+TABLE|UPDATE\s+\w+\s+SET)\b/i;

/** Output files an English task text asks for (after a writing verb): one hint among several. */
export function requiredOutputs(taskText: string): string[] {
  const found = new Set<string>();
  for (const m of taskText.matchAll(NAMED_OUTPUT)) if (m[1] && !sourceOfWrite(m)) found.add(m[1]);
  for (const m of taskText.matchAll(TO_FILE)) {
    const before = taskText.slice(Math.max(0, (m.index ?? 0) - 80), m.index ?? 0);
    if (m[1] && new RegExp(`\\b${VERB}`, "i").test(before)) found.add(m[1]);
  }
  return [...found];
}

/**
 * Whether a file a writing verb reached is what the write reads ("write the line count of
 * input.txt to out.txt"): it follows "of" or "from", and a destination ("to/into/as/at FILE")
 * comes after it in the same clause.
 */
function sourceOfWrite(m: RegExpMatchArray): boolean {
  const end = (m.index ?? 0) + m[0].length;
  const fileAt = end - (m[1]?.length ?? 0);
  if (!/\b(?:of|from)\s+[`'"]?$/i.test(m.input?.slice(Math.max(0, fileAt - 8), fileAt) ?? "")) {
    return false;
  }
  const rest = (m.input ?? "").slice(end).split(/[.;\n](?:\s|$)/)[0] ?? "";
  return new RegExp(`\\b(?:to|into|as|at)\\s+${FILE}`, "i").test(rest);
}

/** Whether any tool call wrote `named` (same path, else same file name). */
function written(a: Parameters<Detector["detect"]>[0], named: string): boolean {
  const b = baseName(named);
  if (allWrites(a).some((w) => samePath(named, w.path) || baseName(w.path) === b)) return true;
  // Code that writes without a visible path (python open(), tee, …) naming the file; where
  // the trace records results, only a run of that code that succeeded wrote it (a script
  // saved, then run with an interpreter the host lacks, wrote nothing).
  const withResults = a.events.some((e) => e.kind === "tool_result");
  return a.events.some(
    (e) =>
      e.kind === "tool_call" &&
      callText(e).includes(b) &&
      (WRITE_MARKERS.test(callText(e)) || DB_WRITE_MARKERS.test(callText(e))) &&
      (!withResults || callSucceeded(a, e)),
  );
}

/**
 * The deliverables an attempt was asked for, from evidence rather than English verbs:
 * files the verifier reports missing, task-named files the agent itself found absent,
 * and task-named files after a writing verb. Task-named files the agent saw exist are
 * inputs, not deliverables.
 */
export function requiredArtifacts(a: Parameters<Detector["detect"]>[0]): string[] {
  const named = namedFiles(a.taskText);
  const absent = new Set(
    notFoundCalls(a).flatMap((c) => named.filter((n) => callText(c).includes(baseName(n)))),
  );
  const verbs = new Set(requiredOutputs(a.taskText).map(baseName));
  const out = new Set(verifierMissing(a).paths);
  for (const n of named) {
    if (absent.has(n) || verbs.has(baseName(n))) {
      if (!seenExisting(a, n) || absent.has(n)) out.add(n);
    }
  }
  return [...out];
}

/** A required artifact (named by the task or the verifier) no tool ever wrote, under any path. */
export const outputNeverWritten: Detector = {
  id: "output.never-written",
  description: "a required artifact named by the task or the verifier was never written",
  mechanism: "artifact-never-written",
  detect(attempt) {
    // a file a listing showed in another directory was produced there: wrong-path's reading
    const missing = requiredArtifacts(attempt).filter(
      (p) => !written(attempt, p) && !listedElsewhere(attempt, p),
    );
    if (missing.length === 0) return [];
    const kinds = [...new Set(missing.map((p) => extOf(p) || "file"))].sort().join(",");
    return [
      {
        eventIndices: [stopIndex(attempt)],
        reason: `never written: ${missing.join(", ")}`,
        signature: `missing:${kinds}`,
        // the files themselves: only a verifier line about one of them corroborates the hit
        subject: missing.join("\n"),
      },
    ];
  },
};

/**
 * The verifier found the deliverable absent although the agent wrote it: under another
 * directory (same file name), or — when the verifier names no path — a file of the kind
 * the task names, in a place the verifier did not look.
 */
export const artifactWrongPath: Detector = {
  id: "output.wrong-path",
  description: "the deliverable was written, but not at the path the task or verifier names",
  mechanism: "artifact-wrong-path",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const { paths, createdZero, facts } = verifierMissing(attempt);
    const writes = allWrites(attempt);
    for (const p of paths) {
      // a relative name is where the agent's own run looked for it, when one did
      const looked = lookedForAt(attempt, p);
      const want = looked?.path ?? p;
      const w = writes.find((x) => baseName(x.path) === baseName(p) && !samePath(want, x.path));
      if (w && !writes.some((x) => samePath(want, x.path)))
        return [
          {
            // the write last: it is the state the label points at
            eventIndices: looked ? [looked.call.index, w.call.index] : [w.call.index],
            reason: looked
              ? `verifier wanted ${p}, which the agent's own run looked for at ${looked.path}; the agent wrote ${w.path}`
              : `verifier wanted ${p}, the agent wrote ${w.path}`,
            signature: "written elsewhere",
          },
        ];
    }
    const placed = programPlacedElsewhere(attempt, facts, writes);
    if (placed) return [placed];
    // produced without a write the trace shows (extracted, built, moved) and listed elsewhere
    for (const p of paths) {
      const seen = listedElsewhere(attempt, p);
      if (seen)
        return [
          {
            eventIndices: [seen.call.index],
            reason: `verifier wanted ${p}, a listing showed ${baseName(p)} in ${seen.dir}`,
            signature: "written elsewhere",
          },
        ];
    }
    if (!createdZero || paths.length > 0) return [];
    const task = attempt.taskText.toLowerCase();
    const kinds = new Set(namedFiles(attempt.taskText).map(extOf));
    const w = writes.find((x) => {
      const ext = extOf(x.path);
      return ext !== "" && (kinds.has(ext) || new RegExp(`\\b${ext.slice(1)}\\b`).test(task));
    });
    if (!w) return [];
    return [
      {
        eventIndices: [w.call.index],
        reason: `verifier found no ${extOf(w.path)} deliverable; the agent wrote ${w.path}`,
        signature: "written elsewhere",
      },
    ];
  },
};

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
function programPlacedElsewhere(
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
