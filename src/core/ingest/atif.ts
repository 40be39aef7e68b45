import { basename } from "node:path";
import type { AttemptInput } from "../model/attempt.js";
import { ATIF_HEAD, Atif, type AtifStep } from "./atif-schema.js";
import { EventLog, exitCodeFromOutput } from "./events.js";
import { readJsonAs } from "./json-file.js";
import { attemptId, partsText, taskIdFromText } from "./text.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

type Link = NonNullable<AttemptInput["links"]>[number];

/** What an ATIF trajectory contributes to an attempt (Harbor adds outcome and identity). */
export interface AtifParts {
  taskText: string;
  events: EventLog;
  links: Link[];
  agent?: string;
  model?: string;
  startedAt?: string;
  tokens?: AttemptInput["tokens"];
  costUsd?: number;
  sessionId?: string;
}

/** Terminus-style prompts wrap the task; keep the task itself for routing. */
export function taskFromPrompt(text: string): string {
  const i = text.indexOf("Task Description:\n");
  if (i === -1) return text.trim();
  const rest = text.slice(i + "Task Description:\n".length);
  const end = rest.indexOf("\n\nCurrent terminal state:");
  return (end === -1 ? rest : rest.slice(0, end)).trim();
}

function refOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    const r = v.trajectory_path ?? v.path ?? v.session_id ?? v.trajectory_id;
    return typeof r === "string" ? r : undefined;
  }
  return undefined;
}

function pushRefs(links: Link[], kind: Link["kind"], value: unknown): void {
  for (const v of Array.isArray(value) ? value : [value]) {
    const ref = refOf(v);
    if (ref && !links.some((l) => l.kind === kind && l.ref === ref)) links.push({ kind, ref });
  }
}

/** Some writers store tool arguments as a JSON string. */
function jsonOrText(text: string): unknown {
  if (!text.startsWith("{")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === undefined || content === null) return "";
  return Array.isArray(content) ? partsText(content) : JSON.stringify(content);
}

function addStep(log: EventLog, step: AtifStep, links: Link[]): void {
  const ts = step.timestamp ?? undefined;
  const text = partsText(step.message ?? "");
  const extra = step.extra ?? {};
  const results = step.observation?.results ?? [];
  if (step.source === "user") {
    log.text("prompt", "user", text, ts);
    return;
  }
  if (step.source === "system") log.text("message", "system", text, ts);
  else {
    if (step.reasoning_content) log.text("reasoning", "agent", step.reasoning_content, ts);
    // OpenClaw echoes a tool result as the step message: keep it once, as the result.
    const echo =
      extra.openclaw_role === "toolResult" ||
      (results.length > 0 && text === resultText(results[0]?.content));
    if (!echo) log.text("message", "agent", text, ts);
  }
  const calls = step.tool_calls ?? [];
  for (const c of calls) {
    const args = typeof c.arguments === "string" ? jsonOrText(c.arguments) : c.arguments;
    log.call({ tool: c.function_name, args, callId: c.tool_call_id ?? undefined, ts });
  }
  results.forEach((r, i) => {
    if (r.subagent_trajectory_ref !== undefined)
      pushRefs(links, "subagent", r.subagent_trajectory_ref);
    if (r.content === undefined && r.subagent_trajectory_ref !== undefined) return;
    const callId =
      r.source_call_id ??
      (typeof extra.tool_call_id === "string" ? extra.tool_call_id : undefined) ??
      calls[i]?.tool_call_id ??
      undefined;
    const output = resultText(r.content);
    const exit = typeof extra.exec_exit_code === "number" ? extra.exec_exit_code : undefined;
    const isErr = r.extra?.isError ?? extra.isError;
    log.result({
      output,
      callId,
      ts,
      exitCode: exit ?? exitCodeFromOutput(output),
      isError: typeof isErr === "boolean" ? isErr : undefined,
    });
  });
}

/** Map an ATIF trajectory to events and attempt fields. */
export function atifParts(traj: Atif, options: IngestOptions, endWithStop = true): AtifParts {
  const log = new EventLog(options.outputCap);
  const links: Link[] = [];
  pushRefs(links, "continuation", traj.continued_trajectory_ref);
  pushRefs(links, "subagent", traj.subagent_trajectories);
  let cost = 0;
  let sawCost = false;
  for (const step of traj.steps) {
    addStep(log, step, links);
    if (typeof step.metrics?.cost_usd === "number") {
      cost += step.metrics.cost_usd;
      sawCost = true;
    }
  }
  const last = traj.steps[traj.steps.length - 1];
  if (endWithStop && last && last.source === "agent") log.stop(last.timestamp ?? undefined);
  const first = traj.steps.find((s) => s.source === "user");
  const fm = traj.final_metrics;
  const tokens = fm
    ? {
        input: fm.total_prompt_tokens ?? undefined,
        output: fm.total_completion_tokens ?? undefined,
        cached: fm.total_cached_tokens ?? undefined,
      }
    : undefined;
  return {
    taskText: first ? taskFromPrompt(partsText(first.message ?? "")) : "",
    events: log,
    links,
    agent: traj.agent?.name ?? undefined,
    model: traj.agent?.model_name ?? undefined,
    startedAt: traj.steps.find((s) => s.timestamp)?.timestamp ?? undefined,
    tokens,
    costUsd: fm?.total_cost_usd ?? (sawCost ? cost : undefined),
    sessionId: traj.session_id ?? undefined,
  };
}

/** Standalone ATIF trajectory file. */
export const atifImporter: Importer = {
  format: "atif",
  detect: (_path, head, isDirectory) =>
    !isDirectory && head.trimStart().startsWith("{") && ATIF_HEAD.test(head),
  async *read(path: string, options: IngestOptions): AsyncIterable<IngestItem> {
    const loaded = await readJsonAs(path, Atif, "an ATIF trajectory (schema_version, steps[])");
    if (!loaded.ok) {
      yield { type: "error", error: loaded.error };
      return;
    }
    const traj = loaded.value;
    const p = atifParts(traj, options);
    const file = basename(path);
    const stem = file.replace(/(\.trajectory)?\.json$/i, "");
    const identity = [traj.session_id ?? "", traj.trajectory_id ?? "", file].join("/");
    const attempt: AttemptInput = {
      id: attemptId("atif", identity, stem),
      source: { format: "atif", path },
      taskId: stem && stem !== "trajectory" ? stem : taskIdFromText(p.taskText),
      taskText: p.taskText,
      agent: p.agent,
      model: p.model,
      outcome: "unknown",
      tokens: p.tokens,
      costUsd: p.costUsd,
      startedAt: p.startedAt,
      links: p.links.length ? p.links : undefined,
      events: p.events.events,
    };
    yield { type: "attempt", attempt };
  },
};
