/**
 * A run's verdicts kept apart from the agent's own logs: a `results.json` beside the run's
 * folders (or an `experiment.json` holding `config` and the same `results`), one record per
 * trial naming the log it wrote (`log_path`, an absolute path on the machine that ran it), its
 * `status` and the validator's checks (`verification_result.details[]`: name, passed,
 * message). zrb's LLM challenge runner writes this; any harness that does is read alike.
 *
 * A record belongs to the log file its `log_path` names, below the results' folder. A
 * byte-identical copy beside that file (a runner that also keeps a timestamped copy) shares
 * the record; a copy that differs is an earlier run the verdict does not cover, unless the named
 * file holds no run at all (gradedFile).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { z } from "zod";
import type { AttemptInput, Outcome } from "../model/attempt.js";
import { isDir, isFile, peek } from "./fs-util.js";
import { parseJsonLoaded, validate } from "./json-file.js";

const Detail = z.looseObject({
  name: z.string(),
  passed: z.boolean(),
  message: z.string().nullish(),
});

export const RunRecord = z.looseObject({
  model: z.string().nullish(),
  test_case: z.string().nullish(),
  trial_index: z.number().nullish(),
  status: z.string(),
  duration: z.number().nullish(),
  exit_code: z.number().nullish(),
  log_path: z.string(),
  verification_result: z
    .looseObject({
      status: z.string().nullish(),
      score: z.number().nullish(),
      details: z.array(Detail).nullish(),
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
  /** The runner's name for the agent it ran (`config.cli_name`), where it says. */
  agent?: string;
  /** The runner's time limit per trial, in seconds, where it says. */
  timeoutS?: number;
}

const RESULTS_HEAD = /^\[\s*\{[\s\S]*"log_path"\s*:/;
const EXPERIMENT_HEAD = /^\{[\s\S]*"(?:results|config)"\s*:/;

const kept = new Map<string, { stamp: string; value: RunResults | undefined }>();

function stampOf(file: string): string {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.size}:${s.mtimeMs}` : "";
}

function parseFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const p = parseJsonLoaded(file, text);
  return p.ok ? p.value : undefined;
}

/** The records of one folder's results (its `results.json`, with `experiment.json`'s config). */
function resultsIn(dir: string): RunResults | undefined {
  const file = join(dir, "results.json");
  const exp = join(dir, "experiment.json");
  const hasResults = isFile(file) && RESULTS_HEAD.test(peek(file, 4096).trimStart());
  const hasExperiment = isFile(exp) && EXPERIMENT_HEAD.test(peek(exp, 4096).trimStart());
  if (!hasResults && !hasExperiment) return undefined;
  const key = `${dir}\u0000${hasResults ? stampOf(file) : ""}\u0000${hasExperiment ? stampOf(exp) : ""}`;
  const got = kept.get(dir);
  if (got && got.stamp === key) return got.value;
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
  for (const r of raw ?? []) {
    const v = RunRecord.safeParse(r);
    if (v.success) records.push(v.data);
  }
  const value: RunResults | undefined = records.length
    ? {
        file: from,
        root: dir,
        records,
        agent: experiment?.config?.cli_name ?? undefined,
        timeoutS: experiment?.config?.timeout ?? undefined,
      }
    : undefined;
  if (kept.size > 64) kept.clear();
  kept.set(dir, { stamp: key, value });
  return value;
}

const posix = (p: string): string => p.replace(/\\/g, "/");

function sameBytes(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    if (sa.size !== sb.size) return false;
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

const RESPONSE = /"kind"\s*:\s*"response"/;

function holdsRun(file: string): boolean {
  try {
    return RESPONSE.test(readFileSync(file, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Which file of a trial's folder holds the run a record grades: the file its `log_path` names
 * when that holds a model response; else (the named file is missing, or a later stub holding
 * only a prompt overwrote it) the one history in the folder that does, or its byte-identical
 * copies; else, no run anywhere, the named file as it is. Several different runs there: none
 * (the record cannot tell which it graded).
 */
export function gradedFile(folder: string, named: string): string | undefined {
  const local = join(folder, named);
  if (isFile(local) && holdsRun(local)) return local;
  const runs = otherRuns(folder, named);
  const first = runs[0];
  if (!first) return isFile(local) ? local : undefined;
  return runs.every((f) => f === first || sameBytes(f, first)) ? first : undefined;
}

/** The histories of a trial's folder other than `named` that hold a model response. */
function otherRuns(folder: string, named: string): string[] {
  try {
    return readdirSync(folder)
      .filter((n) => n.endsWith(".json") && n !== named)
      .map((n) => join(folder, n))
      .filter((f) => isFile(f) && holdsRun(f));
  } catch {
    return [];
  }
}

/**
 * Whether a file is a byte-identical copy of another `.json` file beside it whose name sorts
 * first (a runner's timestamped copy of one history): the run is read once, from that one.
 */
export function copyOfEarlier(file: string): boolean {
  const folder = dirname(file);
  const own = basename(file);
  try {
    return readdirSync(folder).some(
      (n) => n.endsWith(".json") && n < own && sameBytes(join(folder, n), file),
    );
  } catch {
    return false;
  }
}

/**
 * For a record whose trial folder is here but holds no log of it at all (the run left none):
 * that folder (the nearest of the log's folders that exists). Else undefined.
 */
export function unloggedFolder(results: RunResults, r: RunRecord): string | undefined {
  const at = recordLog(results, r);
  if (!at) return undefined;
  const none = !isFile(join(at.folder, at.name)) && otherRuns(at.folder, at.name).length === 0;
  return none ? at.folder : undefined;
}

/**
 * Where a record's log would be below the results' folder: the log's folder and name, found as
 * the longest tail of its path whose folders exist here; when the log's own folder is missing
 * (a run that never saved one), the nearest of its ancestors that exists, as long as that
 * still lies below the results' folder's own name in the path (the trial's folder).
 */
function recordLog(
  results: RunResults,
  r: RunRecord,
): { folder: string; name: string } | undefined {
  const parts = posix(r.log_path).split("/").filter(Boolean);
  const name = parts.at(-1);
  if (!name) return undefined;
  const rootName = basename(results.root);
  const at = parts.lastIndexOf(rootName);
  for (let end = parts.length - 1; end > 0; end--) {
    // the tail below the results' folder's name, else the longest tail that exists
    const starts = at >= 0 && at + 1 < end ? [at + 1] : at >= 0 ? [] : [...Array(end).keys()];
    for (const i of starts) {
      const folder = join(results.root, ...parts.slice(i, end));
      if (isDir(folder)) return { folder, name };
    }
  }
  return undefined;
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
 * The run's results a results file belongs to (its folder's `results.json`, or the
 * `experiment.json` beside it that holds the same records): undefined when not a run's results.
 */
export function runResultsOf(file: string): RunResults | undefined {
  return resultsIn(dirname(file));
}

/** Whether a file's head is a run's results list or an experiment file holding one. */
export function isRunResultsHead(path: string, head: string): boolean {
  const name = basename(path);
  const h = head.trimStart();
  if (name === "results.json") return RESULTS_HEAD.test(h);
  return name === "experiment.json" && EXPERIMENT_HEAD.test(h) && /"log_path"\s*:/.test(h);
}

/**
 * The run record of a log file's trial, looked up in the results of its folder's ancestors (up
 * to five folders up): the record whose `log_path` names a file in the same folder below them.
 * `graded` says whether this file holds the run the record graded (gradedFile): `this` file,
 * a byte-identical `copy` of it, or an `other` run kept in the same trial's folder.
 */
export function runRecordOf(
  logFile: string,
): { results: RunResults; record: RunRecord; graded: "this" | "copy" | "other" } | undefined {
  const folder = dirname(logFile);
  let dir = folder;
  for (let up = 0; up < 5; up++) {
    dir = dirname(dir);
    const results = resultsIn(dir);
    if (!results) continue;
    const relDir = posix(relative(dir, folder));
    for (const r of results.records) {
      const lp = posix(r.log_path);
      const name = lp.slice(lp.lastIndexOf("/") + 1);
      if (!name || !lp.endsWith(`/${relDir}/${name}`)) continue;
      const g = gradedFile(folder, name);
      const graded = g === logFile ? "this" : g && sameBytes(g, logFile) ? "copy" : "other";
      return { results, record: r, graded };
    }
    return undefined;
  }
  return undefined;
}

/**
 * The files a log's reading depends on (for its stamp): the other histories of its folder
 * (which of them is a copy, which holds the graded run) and the run's results, where found.
 */
export function runResultFiles(logFile: string): string[] {
  const folder = dirname(logFile);
  const files: string[] = [];
  try {
    for (const n of readdirSync(folder).sort())
      if (n.endsWith(".json") && join(folder, n) !== logFile) files.push(join(folder, n));
  } catch {
    /* the folder is gone: the stamp says so */
  }
  let dir = folder;
  for (let up = 0; up < 5; up++) {
    dir = dirname(dir);
    const found = [join(dir, "results.json"), join(dir, "experiment.json")].filter(isFile);
    if (found.length && resultsIn(dir)) return [...found, ...files];
  }
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
  const details = v?.details ?? [];
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
