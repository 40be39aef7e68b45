/**
 * Which log file a run's record grades (run-results.ts reads the records): the file its
 * `log_path` names, matched by path segments below the results' folder (the nearest results up
 * to five folders up that name the log). A byte-identical copy beside that file (a runner that
 * also keeps a timestamped copy) shares the record; a copy that differs is an earlier run the
 * verdict does not cover, unless the named file holds no run at all (gradedFile).
 */
import { readdirSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { isDir, isFile, readSmall, scanFor, statOf } from "./fs-util.js";
import { type RunRecord, type RunResults, resultsIn } from "./run-results.js";

/** Histories are compared byte for byte up to this size (a larger one is no copy). */
const MAX_COMPARE = 64 << 20;

const posix = (p: string): string => p.replace(/\\/g, "/");
const segments = (p: string): string[] => posix(p).split("/").filter(Boolean);

/** Whether path segments `tail` end `whole`. */
function endsWith(whole: readonly string[], tail: readonly string[]): boolean {
  if (tail.length > whole.length) return false;
  const off = whole.length - tail.length;
  return tail.every((t, i) => whole[off + i] === t);
}

/**
 * One folder's `.json` files with their sizes, kept while the folder is unchanged: every
 * history of a trial's folder asks about its siblings.
 */
const listings = new Map<string, { mtime: number; files: { path: string; size: number }[] }>();
function jsonFilesIn(folder: string): { path: string; size: number }[] {
  const mtime = statOf(folder)?.mtimeMs ?? -1;
  const got = listings.get(folder);
  if (got && got.mtime === mtime) return got.files;
  let names: string[];
  try {
    names = readdirSync(folder)
      .filter((n) => n.endsWith(".json"))
      .sort();
  } catch {
    names = [];
  }
  const files: { path: string; size: number }[] = [];
  for (const n of names) {
    const st = statOf(join(folder, n));
    if (st?.isFile()) files.push({ path: join(folder, n), size: st.size });
  }
  if (listings.size > 256) listings.clear();
  listings.set(folder, { mtime, files });
  return files;
}

function sameBytes(a: string, b: string): boolean {
  const sa = statOf(a);
  const sb = statOf(b);
  if (!sa?.isFile() || !sb?.isFile() || sa.size !== sb.size || sa.size > MAX_COMPARE) return false;
  const ta = readSmall(a, MAX_COMPARE);
  return ta !== undefined && ta === readSmall(b, MAX_COMPARE);
}

const RESPONSE = /"kind"\s*:\s*"response"/;

/** Whether a history holds a model response (a run, not a stub of a prompt or an error note). */
const holdsRun = (file: string): boolean => scanFor(file, RESPONSE);

/**
 * Which file of a trial's folder holds the run a record grades: the file its `log_path` names
 * when that holds a model response; else (the named file is missing, or a later stub holding
 * only a prompt overwrote it) the one history in the folder that does, or its byte-identical
 * copies; else, no run anywhere, the named file as it is. Undefined when the folder holds no
 * history of it, or several different runs (the record cannot tell which it graded).
 */
function gradedFile(folder: string, named: string): string | undefined {
  const local = join(folder, named);
  if (isFile(local) && holdsRun(local)) return local;
  const runs = otherRuns(folder, named);
  const first = runs[0];
  if (!first) return isFile(local) ? local : undefined;
  return runs.every((f) => f === first || sameBytes(f, first)) ? first : undefined;
}

/** The histories of a trial's folder other than `named` that hold a model response. */
function otherRuns(folder: string, named: string): string[] {
  return jsonFilesIn(folder)
    .map((f) => f.path)
    .filter((f) => basename(f) !== named && holdsRun(f));
}

/**
 * Whether a file is a byte-identical copy of another `.json` file beside it whose name sorts
 * first (a runner's timestamped copy of one history): the run is read once, from that one.
 */
export function copyOfEarlier(file: string): boolean {
  const own = basename(file);
  const size = statOf(file)?.size;
  return jsonFilesIn(dirname(file)).some(
    (f) => basename(f.path) < own && f.size === size && sameBytes(f.path, file),
  );
}

/**
 * Where a record's log would be below the results' folder: the log's folder (or, when a run
 * never made it, its parent: the trial's folder) and the log's name. Found as the longest tail
 * of the log's path whose folders exist here; undefined when neither exists.
 */
function recordLog(
  results: RunResults,
  r: RunRecord,
): { folder: string; name: string; own: boolean } | undefined {
  const parts = segments(r.log_path);
  const name = parts.at(-1);
  if (!name) return undefined;
  for (const end of [parts.length - 1, parts.length - 2]) {
    for (let i = 0; i < end; i++) {
      const folder = join(results.root, ...parts.slice(i, end));
      if (isDir(folder)) return { folder, name, own: end === parts.length - 1 };
    }
    // a log beside the results themselves
    if (end === parts.length - 1 && isFile(join(results.root, name)))
      return { folder: results.root, name, own: true };
  }
  return undefined;
}

/**
 * For a record whose trial folder is here but holds no history of the run it graded (a run
 * killed at its limit before it saved one, or several different runs it cannot tell apart):
 * that folder. Else undefined.
 */
export function unloggedFolder(results: RunResults, r: RunRecord): string | undefined {
  const at = recordLog(results, r);
  if (!at) return undefined;
  return gradedFile(at.folder, at.name) === undefined ? at.folder : undefined;
}

/**
 * The folders a results file's records name (their logs' folders that exist): what appears or
 * changes there decides which records load without a log.
 */
export function recordFolders(results: RunResults): string[] {
  const out = new Set<string>();
  for (const r of results.records) {
    const at = recordLog(results, r);
    if (at) out.add(at.folder);
  }
  return [...out].sort();
}

/**
 * The run record of a log file's trial: the first results up to five folders up, from the log's
 * own folder on, with a record whose `log_path` names a file in the log's folder (by path
 * segments below the results' folder). `graded` says whether this file holds the run the record
 * graded (gradedFile): `this` file, a byte-identical `copy` of it, or an `other` run kept in
 * the same trial's folder.
 */
export function runRecordOf(
  logFile: string,
): { results: RunResults; record: RunRecord; graded: "this" | "copy" | "other" } | undefined {
  const folder = dirname(logFile);
  let dir = folder;
  for (let up = 0; up <= 5; up++, dir = dirname(dir)) {
    const results = resultsIn(dir);
    if (!results) continue;
    const relDir = segments(relative(dir, folder));
    for (const r of results.records) {
      const parts = segments(r.log_path);
      const name = parts.at(-1);
      if (!name || !endsWith(parts.slice(0, -1), relDir)) continue;
      const g = gradedFile(folder, name);
      const graded = g === logFile ? "this" : g && sameBytes(g, logFile) ? "copy" : "other";
      return { results, record: r, graded };
    }
  }
  return undefined;
}

/**
 * The files a log's reading depends on (for its stamp): the other histories of its folder
 * (which of them is a copy, which holds the graded run) and every results file up the tree.
 */
export function runResultFiles(logFile: string): string[] {
  const folder = dirname(logFile);
  const files = jsonFilesIn(folder)
    .map((f) => f.path)
    .filter((f) => f !== logFile);
  let dir = folder;
  for (let up = 0; up <= 5; up++, dir = dirname(dir))
    files.push(join(dir, "results.json"), join(dir, "experiment.json"));
  return files;
}
