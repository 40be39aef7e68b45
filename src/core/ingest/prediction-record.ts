/**
 * Per-instance prediction records with the agent's transcript beside them: a benchmark harness
 * that keeps, for each SWE-bench instance, `<instance>.json` (a prediction: `instance_id`,
 * `model_patch`, often the model, the try that was chosen and, once graded, `resolved`) and the
 * agent's own transcript under the same name, `<instance>.md` (aider's chat history; aider's
 * SWE-bench harness writes both). The record is the unit; the transcript gives the events (every
 * session of it: a harness that retries opens a new one per try), the first request the task.
 * The verdict is the record's `resolved` (a boolean, or "True" / "False" as that harness writes
 * it), else the submission's (a run summary in the folder, as for any SWE-bench submission). A
 * harness summary beside such records is read with them, never as a source of its own.
 */
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { InputError } from "../errors.js";
import type { AttemptInput } from "../model/attempt.js";
import {
  aiderFirstRequest,
  aiderHistoryItems,
  aiderWithheldFailure,
  appendPrinted,
  isAiderHistory,
} from "./agent-printed.js";
import { EventLog } from "./events.js";
import { peek, readSmall, scanFor } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { filesStamp } from "./stamp.js";
import {
  INSTANCE_HEAD,
  instanceInHead,
  jsonStem,
  SUMMARY_KEY,
  submissionFiles,
  submissionVerdict,
} from "./swebench-submission.js";
import { attemptId, capString } from "./text.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

/** Transcripts above this size are not read (they would not fit the trace caps anyway). */
const MAX_TRANSCRIPT = 64 << 20;

/** A flag as such harnesses write it: a boolean, or Python's `str(bool)`. */
const Flag = z
  .union([z.boolean(), z.enum(["True", "False", "true", "false"])])
  .transform((v) => v === true || v === "True" || v === "true");

const PredictionRecord = z.looseObject({
  instance_id: z.string().min(1),
  model_patch: z.string().nullish(),
  model: z.string().nullish(),
  model_name_or_path: z.string().nullish(),
  resolved: Flag.nullish(),
  cost: z.union([z.number(), z.string()]).nullish(),
});

const PATCH_KEY = /"model_patch"\s*:/;
const RESOLVED_KEY = /"resolved"\s*:\s*(?:true|false|"(?:True|False|true|false)")/;

/** The transcript a record keeps beside it: `<stem>.md` holding aider's chat history. */
function transcriptOf(recordPath: string): string | undefined {
  const file = join(dirname(recordPath), `${jsonStem(recordPath)}.md`);
  return existsSync(file) && isAiderHistory(peek(file, 4096)) ? file : undefined;
}

/**
 * Whether a file is a prediction record: its transcript beside it, or graded (`resolved`) with
 * none (a harness that lost the transcript: the attempt still counts in its task's k/n).
 */
export function isPredictionRecord(path: string, head: string): boolean {
  if (!/\.json$/i.test(path)) return false;
  const h = head.trimStart();
  if (!INSTANCE_HEAD.test(h) || !PATCH_KEY.test(h)) return false;
  return transcriptOf(path) !== undefined || scanFor(path, RESOLVED_KEY, 64 << 20);
}

/** A harness summary (lists of instance ids with a `resolved` list) beside prediction records. */
function isSummaryBesideRecords(path: string, head: string): boolean {
  if (!/\.json$/i.test(path) || !/^\{\s*"[^"\\]{1,100}"\s*:\s*\[/.test(head.trimStart()))
    return false;
  if (!SUMMARY_KEY.test(head) && !scanFor(path, SUMMARY_KEY, 64 << 20)) return false;
  const dir = dirname(path);
  return listing(dir).some((n) => n !== basename(path) && hasRecordPair(join(dir, n)));
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function hasRecordPair(file: string): boolean {
  return /\.json$/i.test(file) && isPredictionRecord(file, peek(file, 4096));
}

async function* readPredictionRecord(
  path: string,
  options: IngestOptions,
): AsyncGenerator<IngestItem> {
  // a summary claimed beside the records: read with them
  if (!INSTANCE_HEAD.test(peek(path, 4096).trimStart())) return;
  const transcript = transcriptOf(path);
  const loaded = await readJsonAs(
    path,
    PredictionRecord,
    "a prediction record (instance_id, model_patch, resolved)",
  );
  if (!loaded.ok) return yield { type: "error", error: loaded.error };
  const r = loaded.value;
  const read = transcript ? readSmall(transcript, MAX_TRANSCRIPT) : undefined;
  const text = read ?? "";
  if (transcript && read === undefined)
    yield {
      type: "error",
      error: new InputError(
        transcript,
        undefined,
        `not read: larger than ${MAX_TRANSCRIPT >> 20} MiB or unreadable; the attempt loads with its verdict and no actions`,
      ),
    };
  if (!transcript)
    yield {
      type: "error",
      error: new InputError(
        path,
        undefined,
        `no transcript beside this record (${jsonStem(path)}.md, aider's chat history): the attempt loads with its verdict and no actions`,
      ),
    };
  const log = new EventLog(options.outputCap);
  appendPrinted(log, aiderHistoryItems(text, true));
  const withheld = transcript ? aiderWithheldFailure(text, transcript) : undefined;
  const verdict = await submissionVerdict(path, r.instance_id, options.outputCap);
  for (const error of verdict.errors) yield { type: "error", error };
  const resolved = r.resolved ?? verdict.resolved;
  const empty = !r.model_patch?.trim();
  const fromRecord =
    r.resolved !== undefined && r.resolved !== null
      ? capString(
          [
            `resolved: ${r.resolved} (the prediction record)`,
            ...(empty ? ["the record holds no patch"] : []),
            ...(verdict.verifierOutput ? [verdict.verifierOutput] : []),
          ].join("\n"),
          options.outputCap,
        )
      : undefined;
  const cost = typeof r.cost === "string" ? Number.parseFloat(r.cost) : r.cost;
  const attempt: AttemptInput = {
    id: attemptId("prediction-record", `${r.instance_id}\u0000${path}`, r.instance_id),
    source: { format: "prediction-record", path },
    taskId: r.instance_id,
    taskText: aiderFirstRequest(text),
    agent: transcript ? "aider" : undefined,
    model: r.model ?? r.model_name_or_path ?? verdict.model ?? undefined,
    outcome: resolved === undefined ? "unknown" : resolved ? "pass" : "fail",
    reward: resolved === undefined ? null : resolved ? 1 : 0,
    ...(withheld ? { harnessFailure: withheld } : {}),
    costUsd: cost !== undefined && cost !== null && Number.isFinite(cost) ? cost : undefined,
    verifierOutput: fromRecord ?? verdict.verifierOutput,
    verifierSource: fromRecord ? { file: path } : verdict.verifierSource,
    verifierTests: verdict.verifierTests,
    events: log.events,
  };
  yield { type: "attempt", attempt };
}

export const predictionRecordImporter: Importer = {
  format: "prediction-record",
  detect: (path, head, isDirectory) =>
    !isDirectory && (isPredictionRecord(path, head) || isSummaryBesideRecords(path, head)),
  read: (path, options) => readPredictionRecord(path, options),
  outsideStamp: (path) => {
    const t = transcriptOf(path);
    const id = instanceInHead(path) ?? jsonStem(path);
    return filesStamp([...(t ? [t] : []), ...submissionFiles(path, id)]);
  },
};
