import type { AttemptInput } from "../model/attempt.js";
import { EventLog, exitCodeFromOutput } from "./events.js";
import { decideOutcome } from "./harbor-outcome.js";
import type {
  InspectHeader,
  InspectMessage,
  InspectSample,
  InspectScore,
} from "./inspect-schema.js";
import { attemptId, capString, inputText } from "./text.js";
import { addTokens, normTokens } from "./tokens.js";
import type { IngestOptions } from "./types.js";

const ATTACHMENT = "attachment://";

/** Inspect moves long strings to `sample.attachments` and leaves `attachment://<hash>`. */
function resolver(attachments: Record<string, string> | null | undefined) {
  const one = (s: string): string =>
    s.startsWith(ATTACHMENT) ? (attachments?.[s.slice(ATTACHMENT.length)] ?? s) : s;
  const deep = (v: unknown): unknown => {
    if (typeof v === "string") return one(v);
    if (Array.isArray(v)) return v.map(deep);
    if (v && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]));
    return v;
  };
  return { one, deep };
}

type Resolve = ReturnType<typeof resolver>;

/** Text and reasoning of a message's content; media parts are noted, not dropped. */
function contentOf(
  content: InspectMessage["content"],
  r: Resolve,
): { text: string; reasoning: string } {
  if (typeof content === "string") return { text: r.one(content), reasoning: "" };
  const text: string[] = [];
  const reasoning: string[] = [];
  for (const part of content ?? []) {
    const p = (part ?? {}) as Record<string, unknown>;
    if (p.type === "text" && typeof p.text === "string") text.push(r.one(p.text));
    else if (p.type === "reasoning" && typeof p.reasoning === "string" && p.redacted !== true)
      reasoning.push(r.one(p.reasoning));
    else if (typeof p.type === "string" && ["image", "audio", "video", "document"].includes(p.type))
      text.push(`[${p.type}]`);
  }
  return { text: text.join("\n"), reasoning: reasoning.join("\n") };
}

/** `inspect_ai.scorer.value_to_float`: C/I/P/N, yes/no, booleans and numbers. */
export function scoreValue(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return undefined;
  const v = value.trim().toLowerCase();
  const named: Record<string, number> = {
    c: 1,
    i: 0,
    p: 0.5,
    n: 0,
    yes: 1,
    no: 0,
    true: 1,
    false: 0,
  };
  if (v in named) return named[v];
  return v !== "" && Number.isFinite(Number(v)) ? Number(v) : undefined;
}

/** Scorers in the order the header's results list them, then any others. */
function orderedScores(h: InspectHeader, s: InspectSample): [string, InspectScore][] {
  const scores = Object.entries(s.scores ?? {});
  const order = (h.results?.scores ?? []).map((x) => x.scorer ?? x.name);
  const rank = (k: string) => order.indexOf(k) + 1 || order.length + 1;
  return scores.sort((a, b) => rank(a[0]) - rank(b[0]));
}

/** Every scorer whose value reads as a number, by scorer name. */
function numericScores(scores: [string, InspectScore][]): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const [name, sc] of scores) {
    const v = scoreValue(sc.value);
    if (v !== undefined) out[name] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

function scoreLine([name, sc]: [string, InspectScore]): string {
  const value = typeof sc.value === "string" ? sc.value : JSON.stringify(sc.value);
  const answer =
    sc.answer === undefined || sc.answer === null ? "" : ` (answer: ${inputText(sc.answer)})`;
  const why = typeof sc.explanation === "string" && sc.explanation ? ` — ${sc.explanation}` : "";
  return `${name}: ${value}${answer}${why}`;
}

function events(s: InspectSample, r: Resolve, cap: number): EventLog {
  const log = new EventLog(cap);
  const messages = s.messages ?? [];
  for (const m of messages) {
    const { text, reasoning } = contentOf(m.content, r);
    if (m.role === "system") log.text("message", "system", text);
    else if (m.role === "user") log.text("prompt", "user", text);
    else if (m.role === "assistant") {
      log.text("reasoning", "agent", reasoning);
      log.text("message", "agent", text);
      for (const c of m.tool_calls ?? [])
        log.call({ tool: c.function, args: r.deep(c.arguments), callId: c.id ?? undefined });
    } else if (m.role === "tool")
      log.result({
        output: text,
        callId: m.tool_call_id ?? undefined,
        tool: m.function ?? undefined,
        isError: m.error ? true : undefined,
        exitCode: exitCodeFromOutput(text),
      });
  }
  // a sample that ended without an error or a limit ended because the agent stopped
  if (messages.length && !s.error && !s.limit) log.stop();
  return log;
}

/** Why a sample ended early: its error, or the limit it hit (a time limit is a timeout). */
function sampleException(s: InspectSample): AttemptInput["exception"] {
  if (s.error) return { type: "SampleError", message: s.error.message };
  if (!s.limit) return undefined;
  const timeout = s.limit.type === "time" || s.limit.type === "working";
  const type = timeout ? "SampleTimeout" : `${s.limit.type}_limit`;
  return { type, message: `${s.limit.type} limit ${s.limit.limit ?? ""}`.trim() };
}

function taskText(s: InspectSample, r: Resolve): string {
  if (typeof s.input === "string") return r.one(s.input).trim();
  const users = (s.input as InspectMessage[]).filter((m) => m?.role === "user");
  return users
    .map((m) => contentOf(m.content, r).text)
    .join("\n")
    .trim();
}

/**
 * One Inspect sample (one epoch of one dataset row) as an attempt: the task is the
 * eval's task and the sample id, the first scorer's value (as `value_to_float` reads
 * it) is the reward, messages and tool calls are the events.
 */
export function sampleAttempt(
  h: InspectHeader,
  s: InspectSample,
  path: string,
  options: IngestOptions,
): AttemptInput {
  const r = resolver(s.attachments);
  const scores = orderedScores(h, s);
  const reward = scores.map(([, sc]) => scoreValue(sc.value)).find((v) => v !== undefined);
  const exception = sampleException(s);
  const usage = Object.values(s.model_usage ?? {});
  const costs = usage.map((u) => u.total_cost).filter((c): c is number => typeof c === "number");
  const identity = `${h.eval.eval_id ?? h.eval.run_id ?? h.eval.task_id ?? ""}/${h.eval.task}/${s.id}/${s.epoch}`;
  const solver = h.eval.solver ?? h.plan?.steps?.map((x) => x.solver).join("+");
  return {
    id: attemptId("inspect", identity, `${h.eval.task}-${s.id}-e${s.epoch}`),
    source: { format: "inspect-eval", path },
    taskId: `${h.eval.task}/${s.id}`,
    taskText: taskText(s, r),
    agent: solver || undefined,
    model: s.output?.model ?? h.eval.model,
    attemptNo: s.epoch,
    outcome: decideOutcome(reward, exception, options.passThreshold),
    reward: reward ?? null,
    exception,
    costUsd: costs.length ? costs.reduce((a, b) => a + b, 0) : undefined,
    tokens: addTokens(
      usage.map((u) =>
        normTokens({
          input: u.input_tokens,
          output: u.output_tokens,
          cached: u.input_tokens_cache_read,
          cacheWrite: u.input_tokens_cache_write,
          reasoning: u.reasoning_tokens,
          total: u.total_tokens,
        }),
      ),
    ),
    startedAt: s.started_at ?? h.eval.created ?? undefined,
    durationS: s.total_time ?? undefined,
    verifierOutput: scores.length
      ? capString(scores.map(scoreLine).join("\n"), options.outputCap)
      : undefined,
    verifierScores: numericScores(scores),
    events: events(s, r, options.outputCap).events,
  };
}
