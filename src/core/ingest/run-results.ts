/**
 * A run's verdicts kept apart from the agent's own logs: a `results.json` beside the run's
 * folders (or an `experiment.json` holding `config` and the same `results`), one record per
 * trial naming the log it wrote (`log_path`: an absolute path on the machine that ran it, or one
 * relative to the results), its `status` and the validator's checks
 * (`verification_result.details[]`: name, passed, message). zrb's LLM challenge runner writes
 * this; any harness that does is read alike.
 *
 * A record belongs to the log file its `log_path` names, matched by path segments below the
 * results' folder (the nearest results up to five folders up that name the log). A
 * byte-identical copy beside that file (a runner that also keeps a timestamped copy) shares the
 * record; a copy that differs is an earlier run the verdict does not cover, unless the named file
 * holds no run at all (gradedFile).
 */
import { readdirSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { z } from "zod";
import type { AttemptInput, Outcome } from "../model/attempt.js";
import { isDir, isFile, peek, readSmall, scanFor, statOf } from "./fs-util.js";
import { parseJsonLoaded, validate } from "./json-file.js";

const Detail = z.looseObject({
  name: z.string(),
  passed: z.boolean().nullish(),
  message: z.string().nullish(),
});

export const RunRecord = z.looseObject({
  model: z.string().nullish(),
  test_case: z.string().nullish(),
  trial_index: z.number().nullish(),
  status: z.string(),
  duration: z.number().nullish(),
  exit_code: z.number().nullish(),
  log_path: z.string().min(1),
  verification_result: z
    .looseObject({
      status: z.string().nullish(),
      score: z.number().nullish(),
      // each check on its own: one malformed check does not cost the record its verdict
      details: z.array(z.unknown()).nullish(),
    })
    .nullish(),
});
export type RunRecord = z.infer<typeof RunRecord>;

const ResultsList = z.array(z.unknown());
const Experiment = z.looseObject({
  config: z
    .looseObject({ cli_name: z.string().nullish(), timeout: z.number().nullish() })
    .nullish(),
  results: z.array(z.unknown()).nullish(),
});

export interface RunResults {
  /** The file the records were read from. */
  file: string;
  /** The folder the records' log paths are relative to (the results file's own). */
  root: string;
  records: RunRecord[];
  /** Records the schema refused, by their index in the file, with what was wrong. */
  refused: { index: number; why: string }[];
  /** The runner's name for the agent it ran (`config.cli_name`), where it says. */
  agent?: string;
  /** The runner's time limit per trial, in seconds, where it says. */
  timeoutS?: number;
}

/** Results files are read up to this size. */
const MAX_RESULTS = 64 << 20;
/** Histories are compared byte for byte up to this size (a larger one is no copy). */
const MAX_COMPARE = 64 << 20;
const LOG_PATH = /"log_path"\s*:/;
const RESULTS_NAMES = new Set(["results.json", "experiment.json"]);

/**
 * Whether a file may be a run's results: named `results.json` or `experiment.json` and naming a
 * `log_path` (looked for past the head: a long first field can push it on).
 */
export function isRunResultsFile(path: string, head?: string): boolean {
  if (!RESULTS_NAMES.has(basename(path))) return false;
  return LOG_PATH.test(head ?? peek(path, 4096)) || scanFor(path, LOG_PATH);
}

const kept = new Map<string, { stamp: string; value: RunResults | undefined }>();

function stampOf(file: string): string {
  const s = statOf(file);
  return s?.isFile() ? `${s.size}:${s.mtimeMs}` : "-";
}

function parseFile(file: string): unknown {
  const text = readSmall(file, MAX_RESULTS);
  if (text === undefined) return undefined;
  const p = parseJsonLoaded(file, text);
  return p.ok ? p.value : undefined;
}

/** The records of one folder's results (its `results.json`, with `experiment.json`'s config). */
function resultsIn(dir: string): RunResults | undefined {
  const file = join(dir, "results.json");
  const exp = join(dir, "experiment.json");
  const key = `${stampOf(file)}\u0000${stampOf(exp)}`;
  const got = kept.get(dir);
  if (got && got.stamp === key) return got.value;
  const value = readResults(dir, file, exp);
  if (kept.size > 64) kept.clear();
  kept.set(dir, { stamp: key, value });
  return value;
}

function readResults(dir: string, file: string, exp: string): RunResults | undefined {
  const hasResults = isFile(file) && isRunResultsFile(file);
  const hasExperiment = isFile(exp) && isRunResultsFile(exp);
  if (!hasResults && !hasExperiment) return undefined;
  const expValue = hasExperiment ? validate(exp, parseFile(exp), Experiment, "") : undefined;
  const experiment = expValue?.ok ? expValue.value : undefined;
  let raw: unknown[] | undefined;
  let from = file;
  if (hasResults) {
    const list = validate(file, parseFile(file), ResultsList, "");
    if (list.ok) raw = list.value;
  }
  if (!raw && experiment?.results) {
    raw = experiment.results;
    from = exp;
  }
  const records: RunRecord[] = [];
  const refused: RunResults["refused"] = [];
  for (const [index, r] of (raw ?? []).entries()) {
    const v = RunRecord.safeParse(r);
    if (v.success) records.push(v.data);
    else
      refused.push({
        index,
        why: v.error.issues.map((i) => `${i.path.join(".") || "record"}: ${i.message}`).join("; "),
      });
  }
  if (!records.length && !refused.length) return undefined;
  return {
    file: from,
    root: dir,
    records,
    refused,
    agent: experiment?.config?.cli_name ?? undefined,
    timeoutS: experiment?.config?.timeout ?? undefined,
  };
}

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

/** The run's results a results file belongs to: undefined when it is not a run's results. */
export function runResultsOf(file: string): RunResults | undefined {
  if (!RESULTS_NAMES.has(basename(file))) return undefined;
  return resultsIn(dirname(file));
}

/** The two files a folder's results are read from (for a stamp: either may change them). */
export const resultsFilesOf = (file: string): string[] => [
  join(dirname(file), "results.json"),
  join(dirname(file), "experiment.json"),
];

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

const PASS = /^(?:pass(?:ed)?|excellent|success(?:ful)?|resolved|ok)$/i;
const FAIL = /^(?:fail(?:ed|ure)?|unresolved|incorrect)$/i;
/** The runner's own word that the run broke (not that the deliverable failed its checks). */
const ERROR = /^(?:error|errored|crash(?:ed)?|exception)$/i;
const TIMEOUT = /time[ _-]?out|timed[ _-]?out/i;

/** What a record says of the attempt: outcome, reward, verifier text and tests. */
export function recordVerdict(
  results: RunResults,
  r: RunRecord,
): Pick<
  AttemptInput,
  | "outcome"
  | "reward"
  | "exception"
  | "durationS"
  | "verifierOutput"
  | "verifierSource"
  | "verifierTests"
> {
  const status = r.status.trim();
  const outcome: Outcome = PASS.test(status)
    ? "pass"
    : TIMEOUT.test(status)
      ? "timeout"
      : FAIL.test(status)
        ? "fail"
        : ERROR.test(status)
          ? "error"
          : "unknown";
  const v = r.verification_result;
  const details = (v?.details ?? []).flatMap((d) => {
    const p = Detail.safeParse(d);
    return p.success ? [p.data] : [];
  });
  const lines = [
    `status: ${status}${v?.score !== undefined && v?.score !== null ? ` (score ${v.score})` : ""}`,
    ...details.map(
      (d) => `${d.passed ? "PASS" : "FAIL"} ${d.name}${d.message ? ` — ${d.message}` : ""}`,
    ),
  ];
  const limit = results.timeoutS ? ` (${results.timeoutS} s)` : "";
  return {
    outcome,
    reward: outcome === "pass" ? 1 : outcome === "unknown" ? null : 0,
    exception:
      outcome === "timeout"
        ? { type: "Timeout", message: `the run exceeded the runner's time limit${limit}` }
        : outcome === "error"
          ? { type: "RunnerError", message: `the runner recorded the run as ${status}` }
          : undefined,
    durationS:
      r.duration !== null && r.duration !== undefined && r.duration >= 0 ? r.duration : undefined,
    verifierOutput: lines.join("\n"),
    verifierSource: { file: results.file },
    verifierTests: details.length
      ? details.map((d) => ({
          name: d.name,
          status: d.passed ? ("passed" as const) : ("failed" as const),
          ...(d.message ? { message: d.message } : {}),
          file: results.file,
        }))
      : undefined,
  };
}
