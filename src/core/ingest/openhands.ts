/**
 * OpenHands evaluation output (All-Hands-AI/OpenHands `evaluation/benchmarks/swe_bench`): one
 * folder per run holding, per instance,
 * - `llm_completions/<instance>/*.json`: one file per LLM call as litellm logged it
 *   (`messages` sent, `response`, `cost`, `timestamp`); the newest holds the whole
 *   conversation: the prompt, the agent's tool calls (`execute_bash`, `str_replace_editor`,
 *   `finish`, …) and the tool results;
 * - `infer_logs/instance_<instance>.log`: the run log (agent state changes, the error that
 *   ended a run, e.g. the iteration limit);
 * - `output.swebench_eval.logs/instance_<instance>.log`: the SWE-bench grader's log, whose
 *   `report: {…}` line (a Python dict) has the verdict and FAIL_TO_PASS / PASS_TO_PASS
 *   per test; or a SWE-bench harness `eval_outputs/<instance>/report.json`;
 * - `output.jsonl`: one line per instance (`instance_id`, `instruction`, `history` of
 *   serialized OpenHands events, `test_result`, `report`, `metrics`, `error`), and
 *   `output.swebench_eval.jsonl` (`test_result.report.resolved`), and the run's summary
 *   `output.swebench_eval.md` (Resolved / Unresolved Instances) with `metadata.json`.
 * Any subset is read: a folder of one instance's files too. The summary and `metadata.json`
 * are also looked up in the parent folder and its sub-folders.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { InputError } from "../errors.js";
import type { AttemptInput } from "../model/attempt.js";
import { EventLog } from "./events.js";
import { isDir, isFile, peek, readSmall, readTail, subdirs } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { streamRows } from "./jsonl.js";
import { toolArguments } from "./shell.js";
import { filesStamp } from "./stamp.js";
import {
  entryOf,
  failingLines,
  loggedReport,
  Report,
  type ReportEntry,
  reportTestsWithOutput,
} from "./swebench-report.js";
import { taggedText } from "./tagged.js";
import { attemptId, capString, partsText } from "./text.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

// ---------------------------------------------------------------------------- schemas

const ToolCall = z.looseObject({
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.unknown() }),
});

const Message = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_calls: z.array(ToolCall).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
});

/** One litellm completion log: the messages sent and the response. */
export const Completion = z.looseObject({
  messages: z.array(Message),
  response: z
    .looseObject({
      model: z.string().nullish(),
      choices: z
        .array(z.looseObject({ message: Message.partial({ role: true }).nullish() }))
        .nullish(),
    })
    .nullish(),
  cost: z.number().nullish(),
  timestamp: z.number().nullish(),
});
type Completion = z.infer<typeof Completion>;

/** OpenHands' own report of an instance (`test_result.report`, `report` of output.jsonl). */
const OhReport = z.looseObject({
  resolved: z.boolean().nullish(),
  empty_generation: z.boolean().nullish(),
  failed_apply_patch: z.boolean().nullish(),
  error_eval: z.boolean().nullish(),
  test_timeout: z.boolean().nullish(),
});
type OhReport = z.infer<typeof OhReport>;

const HistoryEvent = z.looseObject({
  id: z.number().nullish(),
  source: z.string().nullish(),
  message: z.string().nullish(),
  action: z.string().nullish(),
  args: z.record(z.string(), z.unknown()).nullish(),
  observation: z.string().nullish(),
  content: z.string().nullish(),
  extras: z.record(z.string(), z.unknown()).nullish(),
  cause: z.number().nullish(),
  timestamp: z.string().nullish(),
  tool_call_metadata: z
    .looseObject({ tool_call_id: z.string().nullish(), function_name: z.string().nullish() })
    .nullish(),
});
type HistoryEvent = z.infer<typeof HistoryEvent>;

/** A line of `output.jsonl`. `history` is a list of events, or (older) of [action, obs] pairs. */
const OutputRow = z.looseObject({
  instance_id: z.string(),
  instruction: z.string().nullish(),
  history: z.array(z.union([HistoryEvent, z.array(HistoryEvent)])).nullish(),
  test_result: z.looseObject({ report: OhReport.nullish() }).nullish(),
  report: OhReport.nullish(),
  metadata: z
    .looseObject({ llm_config: z.looseObject({ model: z.string().nullish() }).nullish() })
    .nullish(),
  metrics: z.looseObject({ accumulated_cost: z.number().nullish() }).nullish(),
  error: z.string().nullish(),
});
type OutputRow = z.infer<typeof OutputRow>;

const EvalRow = z.looseObject({
  instance_id: z.string(),
  test_result: z.looseObject({ report: OhReport.nullish() }).nullish(),
});

const Metadata = z.looseObject({
  agent_class: z.string().nullish(),
  llm_config: z.looseObject({ model: z.string().nullish() }).nullish(),
});

// ---------------------------------------------------------------------------- layout

const COMPLETIONS = "llm_completions";
const INFER_LOGS = "infer_logs";
const EVAL_LOGS = "output.swebench_eval.logs";
const OUTPUT = "output.jsonl";
const EVAL_OUTPUT = "output.swebench_eval.jsonl";
const SUMMARY = "output.swebench_eval.md";
const INSTANCE_LOG = /^instance_(.+)\.log$/;
const OUTPUT_HEAD = /^\{\s*"instance_id"\s*:/;

function files(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Whether a folder is an OpenHands evaluation output (of a run, or of one instance). */
export function isOpenHandsEvalFolder(dir: string): boolean {
  if (isDir(join(dir, COMPLETIONS)) && subdirs(join(dir, COMPLETIONS)).length > 0) return true;
  if (files(join(dir, INFER_LOGS)).some((f) => INSTANCE_LOG.test(f))) return true;
  const out = join(dir, OUTPUT);
  if (!isFile(out)) return false;
  const head = peek(out, 64 * 1024).trimStart();
  return OUTPUT_HEAD.test(head) && /"(?:instruction|history)"\s*:/.test(head);
}

/** The instance ids a folder has completions or a run log for. */
function instancesOnDisk(dir: string): string[] {
  const ids = new Set(subdirs(join(dir, COMPLETIONS)));
  for (const f of files(join(dir, INFER_LOGS))) {
    const m = INSTANCE_LOG.exec(f);
    if (m?.[1]) ids.add(m[1]);
  }
  return [...ids].sort();
}

/** When a completion file was written: the epoch in its name, else its modification time. */
function completionTime(path: string): number {
  const m = /-(\d{9,11}(?:\.\d+)?)\.json$/.exec(basename(path));
  if (m) return Number(m[1]);
  return (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) / 1000;
}

/** The configured model a completion file is named after (`provider__model-<epoch>.json`). */
function modelOfFile(path: string): string | undefined {
  const m = /^(.+)-\d{9,11}(?:\.\d+)?\.json$/.exec(basename(path));
  return m?.[1]?.replaceAll("__", "/");
}

function completionFiles(dir: string, instance: string): string[] {
  const d = join(dir, COMPLETIONS, instance);
  return files(d)
    .filter((f) => f.endsWith(".json"))
    .map((f) => join(d, f))
    .sort((a, b) => completionTime(a) - completionTime(b));
}

/**
 * The run's `metadata.json` and summary: in the folder, else in its parent, else in a folder
 * beside it that is not an evaluation folder itself (a run split into instance folders keeps
 * them apart); never in another run's folder, whose summary lists the same instances.
 */
function runFile(dir: string, name: string): string | undefined {
  const up = dirname(dir);
  for (const f of [join(dir, name), join(up, name)]) if (isFile(f)) return f;
  for (const s of subdirs(up)) {
    const f = join(up, s, name);
    if (join(up, s) !== dir && isFile(f) && !isOpenHandsEvalFolder(join(up, s))) return f;
  }
  return undefined;
}

// ---------------------------------------------------------------------------- verdict

interface Verdict {
  resolved: boolean;
  entry?: ReportEntry;
  flags?: OhReport;
  file: string;
  /** Where it was read when not a per-instance report (summary list, jsonl report). */
  via: string;
}

function verdictText(v: Verdict, cap: number): string {
  const lines = [`resolved: ${v.resolved}`];
  if (!v.entry) lines.push(`(${v.via})`);
  if (v.entry?.patch_successfully_applied === false || v.flags?.failed_apply_patch)
    lines.push("patch not applied");
  if (v.flags?.empty_generation) lines.push("empty patch");
  if (v.flags?.error_eval) lines.push("the evaluation failed (error_eval)");
  if (v.flags?.test_timeout) lines.push("the tests timed out");
  if (v.entry) lines.push(...failingLines(v.entry));
  return capString(lines.join("\n"), cap);
}

/** The report the grader logged (`[id] report: {…}`), else what the log says went wrong. */
function gradedInLog(
  file: string,
  instance: string,
): { entry?: ReportEntry; flags?: OhReport; error?: InputError } | undefined {
  const text = readSmall(file, 32 << 20);
  if (text === undefined) return undefined;
  const logged = loggedReport(text, file, instance);
  if (logged) return logged;
  if (text.includes("APPLY_PATCH_FAIL") && text.includes(instance))
    return { flags: { resolved: false, failed_apply_patch: true } };
  return undefined;
}

/** Resolved / unresolved as the run's summary lists the instance. */
function summaryVerdict(file: string, instance: string): boolean | undefined {
  const text = readSmall(file, 8 << 20);
  if (!text) return undefined;
  let section = "";
  for (const line of text.split("\n")) {
    const h = /^##\s(.*)$/.exec(line);
    if (h) {
      section = (h[1] ?? "").trim().toLowerCase();
      continue;
    }
    const item = /^\s*[-*]\s+\[?([^\]\s(]+)/.exec(line);
    if (item?.[1] !== instance) continue;
    if (section.startsWith("resolved")) return true;
    if (section.startsWith("unresolved")) return false;
  }
  return undefined;
}

// ---------------------------------------------------------------------------- events

/** The problem inside an OpenHands SWE-bench prompt, else the whole prompt. */
export function taskOf(prompt: string): string {
  return (taggedText(prompt, ["pr_description", "issue_description"]) ?? prompt).trim();
}

const EXIT_LINE =
  /\[(?:Command finished with exit code|The command completed with exit code) (-?\d+)\.?\]/g;

/** The exit code OpenHands appends to a command's output (the last one printed). */
export function exitCodeOf(output: string): number | undefined {
  const tail = output.length > 600 ? output.slice(-600) : output;
  let code: number | undefined;
  for (const m of tail.matchAll(EXIT_LINE)) code = Number(m[1]);
  return code;
}

const isEditorError = (tool: string | undefined, text: string) =>
  tool !== undefined && !/bash|shell|cmd/i.test(tool) && /^ERROR:\s/.test(text);

/** Events of a litellm conversation (the newest completion: messages + its response). */
function conversationEvents(
  c: Completion,
  log: EventLog,
): { task: string; finished: boolean; calls: number } {
  const messages = [...c.messages];
  const reply = c.response?.choices?.[0]?.message;
  if (reply) messages.push({ ...reply, role: reply.role ?? "assistant" });
  let task = "";
  let prompted = false;
  let finished = false;
  let calls = 0;
  for (const m of messages) {
    const text = partsText(m.content ?? "");
    if (m.role === "system") log.text("message", "system", text);
    else if (m.role === "user") {
      if (!prompted) {
        prompted = true;
        task = taskOf(text);
        log.text("prompt", "user", text);
      } else log.text("message", "user", text);
    } else if (m.role === "assistant") {
      log.text("message", "agent", text.trim());
      for (const [i, tc] of (m.tool_calls ?? []).entries()) {
        const tool = tc.function.name ?? "unknown";
        if (tool === "finish") {
          // newer versions put the agent's closing words in the call (`message`)
          const parsed = toolArguments(tc.function.arguments);
          const args =
            parsed !== null && typeof parsed === "object"
              ? (parsed as Record<string, unknown>)
              : {};
          const said = args.message ?? args.final_thought;
          if (!text.trim() && typeof said === "string") log.text("message", "agent", said.trim());
          finished = true;
          continue;
        }
        calls++;
        log.call({
          tool,
          args: toolArguments(tc.function.arguments),
          callId: tc.id ?? `call-${i}`,
        });
      }
    } else if (m.role === "tool") {
      const tool = log.toolOf(m.tool_call_id ?? undefined) ?? m.name ?? undefined;
      log.result({
        output: text,
        callId: m.tool_call_id ?? undefined,
        tool,
        exitCode: exitCodeOf(text),
        isError: isEditorError(tool, text) ? true : undefined,
      });
    } else log.text("message", "system", text);
  }
  if (finished) log.stop();
  return { task, finished, calls };
}

/** The tool an OpenHands action stands for, and its arguments. */
function actionCall(e: HistoryEvent): { tool: string; args: Record<string, unknown> } | undefined {
  const a = e.args ?? {};
  const fn = e.tool_call_metadata?.function_name ?? undefined;
  switch (e.action) {
    case "run":
      return { tool: fn ?? "execute_bash", args: { command: a.command } };
    case "run_ipython":
      return { tool: fn ?? "execute_ipython_cell", args: { code: a.code } };
    case "edit": {
      const { thought: _t, ...rest } = a;
      return { tool: fn ?? "str_replace_editor", args: rest };
    }
    case "read":
      return { tool: fn ?? "read", args: { path: a.path } };
    case "write":
      return { tool: fn ?? "write", args: { path: a.path, content: a.content } };
    case "browse":
    case "browse_interactive": {
      const { thought: _t, ...rest } = a;
      return { tool: fn ?? "browser", args: rest };
    }
    default:
      return undefined;
  }
}

/** Events of an `output.jsonl` history (serialized OpenHands actions and observations). */
function historyEvents(
  history: NonNullable<OutputRow["history"]>,
  log: EventLog,
): { task: string; finished: boolean; calls: number } {
  const flat: HistoryEvent[] = history.flatMap((h) => (Array.isArray(h) ? h : [h]));
  let task = "";
  let prompted = false;
  let finished = false;
  let calls = 0;
  let lastCall: string | undefined;
  /** The call id of each action event id, for the observations that name their cause. */
  const byEventId = new Map<number, string>();
  for (const [i, e] of flat.entries()) {
    const ts = e.timestamp ?? undefined;
    const thought = typeof e.args?.thought === "string" ? e.args.thought : "";
    if (e.action) {
      if (e.action === "message" || e.action === "system") {
        const text = String(e.args?.content ?? e.message ?? "");
        if (e.source === "user" && !prompted) {
          prompted = true;
          task = taskOf(text);
          log.text("prompt", "user", text, ts);
        } else if (e.action === "system") log.text("message", "system", text, ts);
        else log.text("message", e.source === "user" ? "user" : "agent", text, ts);
        continue;
      }
      if (e.action === "think") {
        log.text("reasoning", "agent", thought, ts);
        continue;
      }
      if (e.action === "finish") {
        const final = String(e.args?.final_thought ?? e.args?.outputs ?? "");
        log.text("message", "agent", (thought || final).trim(), ts);
        finished = true;
        log.stop(ts);
        continue;
      }
      const call = actionCall(e);
      if (!call || e.source === "environment") continue;
      log.text("message", "agent", thought.trim(), ts);
      lastCall = e.tool_call_metadata?.tool_call_id ?? `oh-${e.id ?? i}`;
      if (typeof e.id === "number") byEventId.set(e.id, lastCall);
      calls++;
      log.call({ tool: call.tool, args: call.args, callId: lastCall, ts });
      continue;
    }
    if (!e.observation || e.observation === "null" || e.observation === "agent_state_changed")
      continue;
    const text = e.content ?? "";
    const callId =
      e.tool_call_metadata?.tool_call_id ??
      (typeof e.cause === "number" ? byEventId.get(e.cause) : undefined) ??
      lastCall;
    if (!callId || !log.toolOf(callId)) {
      log.text("message", "system", text, ts);
      continue;
    }
    const meta = e.extras?.metadata as { exit_code?: unknown } | undefined;
    const code = e.extras?.exit_code ?? meta?.exit_code;
    log.result({
      output: text,
      callId,
      ts,
      exitCode: typeof code === "number" ? code : exitCodeOf(text),
      isError: e.observation === "error" || isEditorError(log.toolOf(callId), text) || undefined,
    });
    lastCall = undefined;
  }
  return { task, finished, calls };
}

// ---------------------------------------------------------------------------- run log

/** How the run ended, from its log: the agent's last state and the error that set it. */
function runEnd(file: string): { state?: string; error?: string } {
  const text = readTail(file, 256 * 1024) ?? "";
  let state: string | undefined;
  let at = -1;
  for (const m of text.matchAll(/state from AgentState\.\w+ to AgentState\.(\w+)/g)) {
    state = m[1];
    at = m.index ?? -1;
  }
  if (state !== "ERROR") return { state };
  const lines = text.slice(Math.max(0, text.lastIndexOf("to AgentState.RUNNING", at))).split("\n");
  const err = lines.find((l) => / - ERROR - /.test(l));
  return { state, error: err?.replace(/^.* - ERROR - /, "").trim() };
}

function exceptionOf(message: string): { type: string; message: string } {
  if (/maximum iteration/i.test(message)) return { type: "MaxIterationsReached", message };
  const named = /^(\w+(?:Error|Exception))\b/.exec(message)?.[1];
  return { type: named ?? "AgentError", message };
}

// ---------------------------------------------------------------------------- read

interface RunContext {
  dir: string;
  model?: string;
  summary?: string;
  evalReports: Map<string, OhReport>;
}

async function instanceAttempt(
  ctx: RunContext,
  instance: string,
  row: { value: OutputRow; file: string; line: number } | undefined,
  options: IngestOptions,
): Promise<IngestItem[]> {
  const { dir } = ctx;
  const out: IngestItem[] = [];
  const log = new EventLog(options.outputCap);
  const comps = completionFiles(dir, instance);
  const newest = comps[comps.length - 1];
  let shape = { task: "", finished: false, calls: 0 };
  let model: string | undefined;
  let source = row?.file ?? join(dir, INFER_LOGS, `instance_${instance}.log`);
  if (newest) {
    const c = await readJsonAs(newest, Completion, "a litellm completion log (messages[])");
    if (c.ok) {
      shape = conversationEvents(c.value, log);
      model = modelOfFile(newest) ?? c.value.response?.model ?? undefined;
      source = newest;
    } else out.push({ type: "error", error: c.error });
  }
  if (shape.calls === 0 && log.length === 0 && row?.value.history)
    shape = historyEvents(row.value.history, log);
  // cost: every LLM call of the instance (retries included), else what output.jsonl says
  let cost: number | undefined = row?.value.metrics?.accumulated_cost ?? undefined;
  if (cost === undefined && comps.length > 0) {
    let sum = 0;
    let seen = false;
    for (const f of comps) {
      const m = /"cost"\s*:\s*(-?[\d.]+(?:[eE][-+]?\d+)?)\s*[,}]/.exec(readTail(f, 2048) ?? "");
      if (m) {
        sum += Number(m[1]);
        seen = true;
      }
    }
    if (seen) cost = sum;
  }

  // the verdict: the grader's per-test report, else OpenHands' own reports, else the summary
  let verdict: Verdict | undefined;
  const evalLog = join(dir, EVAL_LOGS, `instance_${instance}.log`);
  const harness = join(dir, "eval_outputs", instance, "report.json");
  if (isFile(harness)) {
    const r = await readJsonAs(harness, Report, "a SWE-bench report");
    if (!r.ok) out.push({ type: "error", error: r.error });
    else {
      const entry = entryOf(r.value, instance);
      if (entry) verdict = { resolved: entry.resolved, entry, file: harness, via: "report" };
    }
  }
  if (!verdict && isFile(evalLog)) {
    const g = gradedInLog(evalLog, instance);
    if (g?.error) out.push({ type: "error", error: g.error });
    if (g?.entry) verdict = { resolved: g.entry.resolved, entry: g.entry, file: evalLog, via: "" };
    else if (g?.flags)
      verdict = { resolved: false, flags: g.flags, file: evalLog, via: "the grader's log" };
  }
  const ohReport =
    ctx.evalReports.get(instance) ?? row?.value.report ?? row?.value.test_result?.report;
  if (!verdict && typeof ohReport?.resolved === "boolean")
    verdict = {
      resolved: ohReport.resolved,
      flags: ohReport,
      file: ctx.evalReports.has(instance) ? join(dir, EVAL_OUTPUT) : (row?.file ?? dir),
      via: "OpenHands' report of the instance",
    };
  if (!verdict && ctx.summary) {
    const r = summaryVerdict(ctx.summary, instance);
    if (r !== undefined)
      verdict = {
        resolved: r,
        file: ctx.summary,
        via: `listed as ${r ? "resolved" : "unresolved"} in the run's summary`,
      };
  }
  if (verdict && !verdict.flags && ohReport) verdict.flags = ohReport;

  // how the run ended
  const inferLog = join(dir, INFER_LOGS, `instance_${instance}.log`);
  const end = isFile(inferLog) ? runEnd(inferLog) : {};
  const errorText = row?.value.error ?? end.error;
  const exception =
    errorText && !shape.finished
      ? exceptionOf(errorText)
      : end.state === "ERROR" && !shape.finished
        ? { type: "AgentError", message: "the agent ended in state ERROR" }
        : undefined;

  const instruction = row?.value.instruction;
  const attempt: AttemptInput = {
    id: attemptId("openhands", `${instance}\u0000${dir}`, instance),
    source: { format: "openhands", path: dir },
    taskId: instance,
    taskText: instruction ? taskOf(instruction) : shape.task,
    agent: "openhands",
    // the configured model (a proxy's response may name the backend that served each call)
    model: row?.value.metadata?.llm_config?.model ?? ctx.model ?? model,
    outcome: verdict ? (verdict.resolved ? "pass" : "fail") : "unknown",
    reward: verdict ? (verdict.resolved ? 1 : 0) : null,
    exception,
    costUsd: cost,
    verifierOutput: verdict ? verdictText(verdict, options.outputCap) : undefined,
    verifierSource: verdict ? { file: verdict.file } : undefined,
    verifierTests: verdict?.entry ? reportTestsWithOutput(verdict.entry, verdict.file) : undefined,
    events: log.events,
  };
  if (log.length === 0)
    out.push({
      type: "error",
      error: new InputError(
        source,
        undefined,
        `no conversation for ${instance}: neither ${COMPLETIONS}/${instance}/ nor a history in ${OUTPUT}`,
      ),
    });
  out.push({ type: "attempt", attempt });
  return out;
}

async function* readOpenHands(dir: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  const ctx: RunContext = { dir, evalReports: new Map() };
  const metaFile = runFile(dir, "metadata.json");
  if (metaFile) {
    const m = await readJsonAs(metaFile, Metadata, "an OpenHands metadata.json");
    if (m.ok) ctx.model = m.value.llm_config?.model ?? undefined;
    else yield { type: "error", error: m.error };
  }
  ctx.summary =
    runFile(dir, SUMMARY) ??
    [join(dir, "README.md")].find(
      (f) => isFile(f) && peek(f, 200).startsWith("# SWE-bench Report"),
    );
  const evalOut = join(dir, EVAL_OUTPUT);
  if (isFile(evalOut))
    for await (const item of streamRows(evalOut, options.signal)) {
      if (item.type === "error") {
        yield item;
        continue;
      }
      const r = EvalRow.safeParse(item.row);
      if (!r.success) yield item.invalid("an OpenHands evaluation row", r.error.issues);
      else if (r.data.test_result?.report)
        ctx.evalReports.set(r.data.instance_id, r.data.test_result.report);
    }
  const done = new Set<string>();
  const output = join(dir, OUTPUT);
  if (isFile(output))
    for await (const item of streamRows(output, options.signal)) {
      if (item.type === "error") {
        yield item;
        continue;
      }
      const r = OutputRow.safeParse(item.row);
      if (!r.success) {
        yield item.invalid("an OpenHands output row (instance_id, history)", r.error.issues);
        continue;
      }
      const id = r.data.instance_id;
      if (done.has(id)) continue;
      done.add(id);
      yield* await instanceAttempt(
        ctx,
        id,
        { value: r.data, file: output, line: item.line },
        options,
      );
    }
  for (const id of instancesOnDisk(dir)) {
    if (done.has(id)) continue;
    done.add(id);
    yield* await instanceAttempt(ctx, id, undefined, options);
  }
}

export const openhandsImporter: Importer = {
  format: "openhands",
  detect: (path, _head, isDirectory) => isDirectory && isOpenHandsEvalFolder(path),
  read: (path, options) => readOpenHands(path, options),
  // the run's metadata and summary, which a folder of one instance finds beside it
  outsideStamp: (path) =>
    filesStamp(
      [runFile(path, "metadata.json"), runFile(path, SUMMARY)].filter(
        (f): f is string => f !== undefined && dirname(f) !== path,
      ),
    ),
};
