/**
 * An agent built on pydantic-ai, read from its saved message history (pydantic-ai-schema.ts):
 * the first user prompt is the task, each `tool-call` a call answered by the `tool-return` (or
 * `retry-prompt`) with its id, `text` and `thinking` the agent's words, and a final response
 * that ends on `stop` without calls is the agent's stop. A shell tool's report ("Command: …
 * Exit Code: N …") gives the exit code. The verdict comes from the run's results beside the
 * logs (run-results.ts; which log a record grades: run-record-logs.ts), when the runner keeps one.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { InputError } from "../errors.js";
import type { AttemptInput } from "../model/attempt.js";
import { EventLog } from "./events.js";
import { agentEndOf, type FinalTurnSeen } from "./final-turn.js";
import { scanFor } from "./fs-util.js";
import { ioReason, parseJsonLoaded, validate } from "./json-file.js";
import {
  HISTORY_HEAD,
  PART_KIND,
  PydanticHistory,
  type PydanticMessage,
  type PydanticPart,
} from "./pydantic-ai-schema.js";
import {
  copyOfEarlier,
  recordFolders,
  runRecordOf,
  runResultFiles,
  unloggedFolder,
} from "./run-record-logs.js";
import {
  isRunResultsFile,
  type RunRecord,
  type RunResults,
  recordVerdict,
  resultsFilesOf,
  runResultsOf,
} from "./run-results.js";
import { toolArguments } from "./shell.js";
import { shellReportExit } from "./shell-report.js";
import { filesStamp } from "./stamp.js";
import { attemptId, partsText, taskIdFromText } from "./text.js";
import { addTokens, normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

/**
 * A user prompt the agent's runtime writes into the history when a run fails, so that its
 * retry sees what went wrong (zrb: `[SYSTEM] Error occurred: <error>`): not the task.
 */
const RUNTIME_ERROR = /^\[SYSTEM\] Error occurred:/;

const WHAT = "a pydantic-ai message history (an array of request/response messages with parts)";

/** Whether a file is a pydantic-ai message history (a long system prompt may push the first part kind on). */
export function isPydanticHistory(path: string, head: string): boolean {
  const h = head.trimStart();
  if (!HISTORY_HEAD.test(h)) return false;
  return PART_KIND.test(h) || scanFor(path, PART_KIND);
}

/**
 * A part's content as text: a user prompt's list of parts (text and media) by their text; what
 * a tool returned or a refused call's validation errors as they are, structured data as JSON.
 */
function contentText(content: unknown, prompt = false): string {
  if (typeof content === "string") return content;
  if (prompt && Array.isArray(content)) return partsText(content);
  if (content === undefined || content === null) return "";
  return JSON.stringify(content);
}

/** A JSON text as JS writes it (a runner's echo of a structured return may space it otherwise). */
function reserialized(text: string): string {
  const t = text.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return text;
  try {
    return JSON.stringify(JSON.parse(t));
  } catch {
    return text;
  }
}

/** The events of a history, its task text, token counts and final turn. */
function readHistory(messages: readonly PydanticMessage[], outputCap: number) {
  const log = new EventLog(outputCap);
  let taskText: string | undefined;
  const usage: AttemptInput["tokens"][] = [];
  let final: FinalTurnSeen | undefined;
  let metered = 0;
  let runtimeError: string | undefined;
  for (const m of messages) {
    if (m.kind === "request") {
      // a runner may echo each tool's return as a user prompt of the same request: one event
      const returned = new Set(
        m.parts.filter((p) => p.part_kind === "tool-return").map((p) => contentText(p.content)),
      );
      for (const p of m.parts)
        requestPart(
          log,
          p,
          m,
          returned,
          (t) => (taskText ??= t),
          (t) => (runtimeError = t),
        );
      continue;
    }
    const u = m.usage;
    const input = u?.input_tokens ?? u?.request_tokens ?? undefined;
    const output = u?.output_tokens ?? u?.response_tokens ?? undefined;
    if (u)
      usage.push(
        normTokens({
          input,
          output,
          cached: u.cache_read_tokens,
          cacheWrite: u.cache_write_tokens,
          inputIncludesCache: true,
        }),
      );
    if (final?.promptTokens) metered++;
    let calls = 0;
    let said: number | undefined;
    for (const p of m.parts) {
      const ts = p.timestamp ?? m.timestamp ?? undefined;
      if (p.part_kind === "text") {
        const text = contentText(p.content).trim();
        if (text) {
          said = log.length;
          log.text("message", "agent", text, ts);
        }
      } else if (p.part_kind === "thinking") {
        const text = contentText(p.content).trim();
        if (text) {
          said ??= log.length;
          log.text("reasoning", "agent", text, ts);
        }
      } else if (p.part_kind === "tool-call" || p.part_kind === "builtin-tool-call") {
        // a provider's built-in tool (web search) runs inside the response: no call the agent
        // waits on, so it does not keep a final response from being the stop
        if (p.part_kind === "tool-call") calls++;
        log.call({
          tool: p.tool_name ?? "tool",
          args: toolArguments(p.args),
          callId: p.tool_call_id ?? undefined,
          ts,
        });
      } else if (p.part_kind === "builtin-tool-return") toolReturn(log, p, ts);
    }
    final = {
      eventIndex: said,
      stopReason: m.finish_reason ?? m.provider_details?.finish_reason ?? undefined,
      promptTokens: input ?? undefined,
      outputTokens: output ?? undefined,
      toolCalls: calls,
    };
  }
  // the agent stopped when its last message is a response that called no tool
  const last = messages.at(-1);
  if (last?.kind === "response" && final?.toolCalls === 0) log.stop(last.timestamp ?? undefined);
  return {
    log,
    taskText: taskText ?? "",
    tokens: addTokens(usage),
    final,
    metered,
    runtimeError,
  };
}

function toolReturn(log: EventLog, p: PydanticPart, ts: string | undefined): void {
  const output = contentText(p.content);
  log.result({
    output,
    callId: p.tool_call_id ?? undefined,
    tool: p.tool_name ?? undefined,
    ts,
    exitCode: shellReportExit(output),
  });
}

function requestPart(
  log: EventLog,
  p: PydanticPart,
  m: PydanticMessage,
  returned: ReadonlySet<string>,
  task: (text: string) => void,
  failure: (text: string) => void,
): void {
  const ts = p.timestamp ?? m.timestamp ?? undefined;
  const text = contentText(
    p.content,
    p.part_kind === "user-prompt" || p.part_kind === "system-prompt",
  );
  switch (p.part_kind) {
    case "system-prompt":
      log.text("message", "system", text, ts);
      return;
    case "user-prompt":
      if (returned.has(text) || returned.has(reserialized(text))) return;
      if (RUNTIME_ERROR.test(text)) {
        // the agent runtime's note of a failed run, kept in the history for its retry
        log.text("message", "system", text, ts);
        failure(text);
        return;
      }
      task(text);
      log.text("prompt", "user", text, ts);
      return;
    case "tool-return":
      toolReturn(log, p, ts);
      return;
    case "retry-prompt":
      // a tool call the framework refused (its arguments failed validation): the call failed
      if (p.tool_call_id) log.result({ output: text, callId: p.tool_call_id, ts, isError: true });
      else log.text("message", "system", text, ts);
      return;
  }
}

/**
 * A run's results file: the trials it grades whose folder holds no log of the run at all (a
 * run killed at its time limit before it saved its history) load with their verdict and no
 * events, so the task's k/n keeps them; the others load from their histories.
 */
function* readResults(path: string): Generator<IngestItem> {
  const results = runResultsOf(path);
  // the records are read once, from the file they were taken from
  if (!results || results.file !== path) return;
  for (const { index, why } of results.refused)
    yield {
      type: "error",
      error: new InputError(
        path,
        undefined,
        `record ${index}: expected a run record (status, log_path): ${why}`,
      ),
    };
  for (const r of results.records) {
    const folder = unloggedFolder(results, r);
    if (folder) yield { type: "attempt", attempt: recordOnly(results, r, folder) };
  }
}

/** A graded trial with no log: its verdict, no events; its source is the trial's folder. */
function recordOnly(results: RunResults, r: RunRecord, folder: string): AttemptInput {
  const taskId = r.test_case ?? `record-${r.log_path}`;
  return {
    id: attemptId("pydantic-ai", `${results.file}\u0000${r.log_path}`, taskId),
    source: { format: "pydantic-ai", path: folder },
    taskId,
    taskText: "",
    agent: results.agent ?? "pydantic-ai",
    model: r.model ?? undefined,
    replicate: r.trial_index ?? undefined,
    ...recordVerdict(results, r),
    events: [],
  };
}

async function* readPydantic(path: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  if (runResultsOf(path)) return yield* readResults(path);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return yield { type: "error", error: new InputError(path, undefined, ioReason(err)) };
  }
  const parsed = parseJsonLoaded(path, text);
  if (!parsed.ok) return yield { type: "error", error: parsed.error };
  const v = validate(path, parsed.value, PydanticHistory, WHAT);
  if (!v.ok) return yield { type: "error", error: v.error };
  const messages = v.value;
  const h = readHistory(messages, options.outputCap);
  const found = runRecordOf(path);
  // a byte-identical copy of the graded history (a runner's timestamped copy): the same run,
  // read once from the file the results name
  if (found?.graded === "copy") return;
  if (found?.graded !== "this" && copyOfEarlier(path)) return;
  // another run kept in the trial's folder is of the same task, but the verdict is not its
  const verdict = found?.graded === "this" ? recordVerdict(found.results, found.record) : undefined;
  const lastModel = messages.findLast((m) => m.kind === "response" && m.model_name)?.model_name;
  // one run's identity: its run id, else the history's bytes in its folder (a copy of it
  // beside it is the same run; the same few bytes in another trial's folder are not)
  const run =
    messages.find((m) => m.run_id)?.run_id ??
    messages.find((m) => m.conversation_id)?.conversation_id ??
    `${dirname(path)}\u0000${createHash("sha256").update(text).digest("hex")}`;
  const taskId = found?.record.test_case ?? taskIdFromText(h.taskText);
  const f = h.final;
  const attempt: AttemptInput = {
    id: attemptId("pydantic-ai", run, taskId),
    source: { format: "pydantic-ai", path },
    taskId,
    taskText: h.taskText,
    agent: found?.results.agent ?? "pydantic-ai",
    model: found?.record.model ?? lastModel ?? undefined,
    replicate: found?.record.trial_index ?? undefined,
    outcome: verdict?.outcome ?? "unknown",
    reward: verdict?.reward ?? null,
    exception: verdict?.exception,
    // the runtime's own note that a run failed: with no agent step after it, the trial's loss
    ...(h.runtimeError
      ? { harnessFailure: { message: h.runtimeError.slice(0, 2000), file: path } }
      : {}),
    tokens: h.tokens,
    startedAt: messages.find((m) => m.timestamp)?.timestamp ?? undefined,
    durationS: verdict?.durationS,
    verifierOutput: verdict?.verifierOutput,
    verifierSource: verdict?.verifierSource,
    verifierTests: verdict?.verifierTests,
    agentEnd: f ? { ...agentEndOf(f, h.metered), file: path } : undefined,
    events: h.log.events,
  };
  yield { type: "attempt", attempt };
}

export const pydanticAiImporter: Importer = {
  format: "pydantic-ai",
  detect: (path, head, isDirectory) =>
    !isDirectory &&
    (isPydanticHistory(path, head) ||
      (isRunResultsFile(path, head) && runResultsOf(path) !== undefined)),
  read: (path, options) => readPydantic(path, options),
  outsideStamp: (path) => {
    const results = runResultsOf(path);
    if (!results) return filesStamp(runResultFiles(path));
    return filesStamp([...resultsFilesOf(path), ...recordFolders(results)]);
  },
};
