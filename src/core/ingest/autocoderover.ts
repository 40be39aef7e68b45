/**
 * AutoCodeRover (v1) results (nus-apr/auto-code-rover): one folder per trial,
 * `<run>/<extract status>/<instance>_<YYYY-MM-DD_HH-MM-SS>/`, holding `meta.json` (the
 * SWE-bench row, `task_info`), `problem_statement.txt`, the search stage
 * (`conversation_round_<k>.json`, `tool_call_sequence.json`, `tool_call_layers.json`), the
 * patch stage (`debug_agent_write_patch_<n>.json`, `agent_patch_raw_<n>`,
 * `extracted_patch_<n>.diff`, `extract_status.json`) and `cost.json`. The run folder holds the
 * SWE-bench grading (`new_eval_results/report.json` and one text log per instance).
 * A trial folder is a unit (its run's report read from outside it); so is a run folder, whose
 * trials are read with the report inside it. One attempt per trial folder.
 * Never read: `developer_patch.diff` (the benchmark's gold patch, copied into every trial) and
 * `task_info.patch` / `test_patch` of `meta.json` (the gold and its tests).
 */
import { basename, dirname, join } from "node:path";
import type { z } from "zod";
import { InputError } from "../errors.js";
import type { AttemptInput } from "../model/attempt.js";
import { APPLICABLE, highest, numbered, patchEvents } from "./autocoderover-patch.js";
import {
  AcrConversation,
  AcrCost,
  AcrExtractStatus,
  AcrLayers,
  AcrMeta,
  AcrRunReport,
  AcrSequence,
  type AcrToolCall,
} from "./autocoderover-schema.js";
import { offeredTools, searchEvents } from "./autocoderover-search.js";
import { EVAL_DIR, evalLogOf, gradedTests, REPORT, testList } from "./autocoderover-verdict.js";
import { EventLog } from "./events.js";
import { isDir, isFile, readSmall, scanFor, subdirs } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { filesStamp } from "./stamp.js";
import { cappedSection, listsNaming, readEvalLog, testSection } from "./swebench-eval-log.js";
import { attemptId } from "./text.js";
import { normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

/** The folders ACR sorts trials into by their best extract status (`ExtractStatus` lowered). */
const STATUS_FOLDERS = [
  "applicable_patch",
  "matched_but_empty_origin",
  "matched_but_empty_diff",
  "raw_patch_but_unmatched",
  "raw_patch_but_unparsed",
  "no_patch",
];
const TRIAL_NAME = /^(.+)_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}$/;

/** Whether a folder is an ACR trial: `meta.json` with `task_info`, and its search stage. */
export function isAcrTrial(dir: string): boolean {
  const meta = join(dir, "meta.json");
  if (!isFile(meta)) return false;
  const searched =
    isFile(join(dir, "tool_call_sequence.json")) ||
    numbered(dir, "conversation_round_", ".json").size > 0;
  return searched && scanFor(meta, /"task_info"\s*:\s*\{/, 1 << 20);
}

/** The trial folders of a run folder (below its status folders), if it is one. */
function runTrials(dir: string): string[] {
  const out: string[] = [];
  for (const s of STATUS_FOLDERS) {
    const d = join(dir, s);
    if (!isDir(d)) continue;
    for (const t of subdirs(d)) if (isAcrTrial(join(d, t))) out.push(join(d, t));
  }
  return out;
}

function isAcrRun(dir: string): boolean {
  for (const s of STATUS_FOLDERS) {
    const d = join(dir, s);
    if (isDir(d) && subdirs(d).some((t) => isAcrTrial(join(d, t)))) return true;
  }
  return false;
}

/** The run folder of a trial: above its status folder, else the folder holding it. */
function runOf(trial: string): string {
  const up = dirname(trial);
  return STATUS_FOLDERS.includes(basename(up)) ? dirname(up) : up;
}

/** The instance a trial folder's name gives (`<instance>_<date>_<time>`). */
function instanceOfName(trial: string): string {
  const name = basename(trial);
  return TRIAL_NAME.exec(name)?.[1] ?? name;
}

interface RunReport {
  file: string;
  lists: Record<string, unknown>;
}

async function loadReport(runDir: string): Promise<{ report?: RunReport; error?: InputError }> {
  const file = join(runDir, EVAL_DIR, REPORT);
  if (!isFile(file)) return {};
  const r = await readJsonAs(file, AcrRunReport, "a SWE-bench run report (resolved[], …)");
  return r.ok ? { report: { file, lists: r.value } } : { error: r.error };
}

async function trialAttempt(
  dir: string,
  report: RunReport | undefined,
  options: IngestOptions,
): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  const fail = (e: InputError) => out.push({ type: "error", error: e });
  const metaFile = join(dir, "meta.json");
  const meta = await readJsonAs(metaFile, AcrMeta, "an ACR meta.json (task_info.instance_id)");
  if (!meta.ok) {
    fail(meta.error);
    return out;
  }
  const instance = meta.value.task_info.instance_id;

  /** A file of the trial read by its schema: undefined when absent, its error reported. */
  const optional = async <S extends z.ZodType>(
    file: string | undefined,
    schema: S,
    what: string,
  ): Promise<z.infer<S> | undefined> => {
    if (!file || !isFile(file)) return undefined;
    const r = await readJsonAs(file, schema, what);
    if (r.ok) return r.value;
    fail(r.error);
    return undefined;
  };

  // the search stage: the highest conversation round holds it all
  const convFile = highest(numbered(dir, "conversation_round_", ".json"));
  if (!convFile)
    fail(
      new InputError(dir, undefined, "no conversation_round_<k>.json: the search stage is missing"),
    );
  const conversation: AcrConversation =
    (await optional(convFile, AcrConversation, "an ACR conversation ([{role, content}])")) ?? [];
  const sequence: AcrToolCall[] =
    (await optional(
      join(dir, "tool_call_sequence.json"),
      AcrSequence,
      "an ACR tool call sequence ([{func_name, arguments}])",
    )) ?? [];
  const layers: AcrToolCall[][] | undefined = await optional(
    join(dir, "tool_call_layers.json"),
    AcrLayers,
    "ACR tool call layers ([[{func_name, …}]])",
  );
  const statusFile = join(dir, "extract_status.json");
  const statuses: string[] =
    (await optional(statusFile, AcrExtractStatus, "an ACR extract_status.json"))?.extract_status ??
    [];
  const chat: AcrConversation | undefined = await optional(
    highest(numbered(dir, "debug_agent_write_patch_", ".json")),
    AcrConversation,
    "an ACR patch chat ([{role, content}])",
  );
  const cost: AcrCost | undefined = await optional(
    join(dir, "cost.json"),
    AcrCost,
    "an ACR cost.json",
  );

  const log = new EventLog(options.outputCap);
  const search = searchEvents(conversation, sequence, layers, log);
  const patch = patchEvents(dir, chat, conversation, statuses, log);
  const patched = statuses.includes(APPLICABLE) || patch.applied;

  // the verdict: the run's report, and the harness's log of the instance
  const runDir = runOf(dir);
  const evalLog = evalLogOf(runDir, instance);
  const logText = evalLog ? readEvalLog(evalLog.file) : undefined;
  const section = logText !== undefined ? testSection(logText) : undefined;
  const lists = report ? listsNaming(report.lists, instance) : [];
  const graded = patched && lists.length > 0;
  const resolved = graded ? lists.includes("resolved") : undefined;
  const outcome = !patched ? "fail" : graded ? (resolved ? "pass" : "fail") : "unknown";
  const shown = section ? cappedSection(section, options.outputCap) : undefined;
  const noPatch = `no patch was applied or graded: ${
    statuses.length > 0
      ? `every write_patch try was rejected (${statuses.join(", ")})`
      : "write_patch produced no applicable diff"
  }`;
  const groups = {
    target: testList(meta.value.task_info.FAIL_TO_PASS),
    regression: testList(meta.value.task_info.PASS_TO_PASS),
  };

  const taskText =
    readSmall(join(dir, "problem_statement.txt"), 4 << 20) ??
    meta.value.task_info.problem_statement ??
    search.issue;
  const start = cost?.start_epoch;
  const attempt: AttemptInput = {
    id: attemptId("autocoderover", dir, instance),
    source: { format: "autocoderover", path: dir },
    taskId: instance,
    taskText,
    agent: "autocoderover",
    model: cost?.model ?? evalLog?.model,
    outcome,
    reward: outcome === "pass" ? 1 : outcome === "fail" ? 0 : null,
    costUsd: cost?.total_cost ?? undefined,
    tokens: normTokens({ input: cost?.total_input_tokens, output: cost?.total_output_tokens }),
    startedAt: typeof start === "number" ? new Date(start * 1000).toISOString() : undefined,
    durationS: cost?.elapsed_seconds ?? undefined,
    verifierOutput: !patched ? noPatch : shown?.text,
    verifierSource: !patched
      ? { file: isFile(statusFile) ? statusFile : dir }
      : shown && evalLog
        ? { file: evalLog.file, firstLine: shown.firstLine }
        : undefined,
    verifierTests:
      graded && evalLog ? gradedTests(groups, section, evalLog.file, resolved) : undefined,
    events: log.events,
  };
  const offered = offeredTools(conversation);
  if (offered.length > 0) attempt.offeredTools = offered;
  if (search.calls === 0 && patch.tries === 0)
    fail(new InputError(dir, undefined, "no search calls and no write_patch try were read"));
  out.push({ type: "attempt", attempt });
  return out;
}

async function* readAcr(path: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  const trials = isAcrTrial(path) ? [path] : runTrials(path);
  const runs = new Map<string, Awaited<ReturnType<typeof loadReport>>>();
  for (const trial of trials) {
    if (options.signal?.aborted) return;
    const runDir = runOf(trial);
    let r = runs.get(runDir);
    if (!r) {
      r = await loadReport(runDir);
      runs.set(runDir, r);
      if (r.error) yield { type: "error", error: r.error };
    }
    yield* await trialAttempt(trial, r.report, options);
  }
}

/** The run files a trial folder's reading takes from outside it. */
function outsideFiles(path: string): string[] {
  if (!isAcrTrial(path)) return [];
  const runDir = runOf(path);
  const logs = join(runDir, EVAL_DIR, "logs");
  const log = evalLogOf(runDir, instanceOfName(path));
  // the logs folder itself: a log that appears there changes its modification time
  return [join(runDir, EVAL_DIR, REPORT), logs, ...(log ? [log.file] : [])];
}

export const autocoderoverImporter: Importer = {
  format: "autocoderover",
  detect: (path, _head, isDirectory) => isDirectory && (isAcrTrial(path) || isAcrRun(path)),
  read: (path, options) => readAcr(path, options),
  outsideStamp: (path) => filesStamp(outsideFiles(path)),
};
