/**
 * A run's verdicts kept apart from the agent's own logs: a `results.json` beside the run's
 * folders (or an `experiment.json` holding `config` and the same `results`), one record per
 * trial naming the log it wrote (`log_path`: an absolute path on the machine that ran it, or one
 * relative to the results), its `status` and the validator's checks
 * (`verification_result.details[]`: name, passed, message). zrb's LLM challenge runner writes
 * this; any harness that does is read alike.
 *
 * Which log a record grades is run-record-logs.ts's; this file reads the results and what a
 * record says of its trial.
 */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { AttemptInput, Outcome } from "../model/attempt.js";
import { isFile, peek, readSmall, scanFor, statOf } from "./fs-util.js";
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
export function resultsIn(dir: string): RunResults | undefined {
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
