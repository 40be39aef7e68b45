/**
 * A Harbor trial whose agent kept no ATIF trajectory but logged each model call of its
 * loop: `agent/episodes/episode-N/` (or `agent/episode-N/`) with the API `request.json`,
 * the `response.json` and the `tool-results.json` it sent back. Two wire shapes are read:
 * Anthropic Messages (`content` blocks `text` / `thinking` / `tool_use`, results as
 * `tool_result` blocks) and OpenAI Chat Completions (`choices[].message` with `tool_calls`,
 * results as `role: "tool"` messages). Detection is by those shapes, never by agent name.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { AttemptInput } from "../model/attempt.js";
import { EventLog, exitCodeFromOutput } from "./events.js";
import { isDir, isFile, peek, subdirs } from "./fs-util.js";
import { readJsonAs, readJsonFile } from "./json-file.js";
import { partsText } from "./text.js";
import { addTokens, normTokens } from "./tokens.js";
import type { IngestItem, IngestOptions } from "./types.js";

const num = z.number().nullish();

const AnthropicUsage = z.looseObject({
  input_tokens: num,
  output_tokens: num,
  cache_read_input_tokens: num,
  cache_creation_input_tokens: num,
  cost: num,
});
const OpenAiUsage = z.looseObject({
  prompt_tokens: num,
  completion_tokens: num,
  prompt_tokens_details: z.looseObject({ cached_tokens: num }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: num }).nullish(),
  cost: num,
});

const Block = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  thinking: z.string().nullish(),
  id: z.string().nullish(),
  name: z.string().nullish(),
  input: z.unknown().optional(),
});

/** An Anthropic Messages API response. */
const AnthropicResponse = z.looseObject({
  content: z.array(Block),
  model: z.string().nullish(),
  stop_reason: z.string().nullish(),
  usage: AnthropicUsage.nullish(),
});

const ToolCall = z.looseObject({
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

/** An OpenAI Chat Completions response. */
const OpenAiResponse = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.unknown().optional(),
          reasoning_content: z.string().nullish(),
          reasoning: z.string().nullish(),
          tool_calls: z.array(ToolCall).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  model: z.string().nullish(),
  usage: OpenAiUsage.nullish(),
});

const ApiResponse = z.union([
  AnthropicResponse.transform((r) => ({ kind: "anthropic" as const, r })),
  OpenAiResponse.transform((r) => ({ kind: "openai" as const, r })),
]);
type ApiResponse = z.infer<typeof ApiResponse>;

/** One tool result: an Anthropic `tool_result` block or an OpenAI `role: "tool"` message. */
const ToolResult = z.looseObject({
  type: z.string().nullish(),
  role: z.string().nullish(),
  tool_use_id: z.string().nullish(),
  tool_call_id: z.string().nullish(),
  content: z.unknown().optional(),
  is_error: z.boolean().nullish(),
});
/** A list of results, or one user message that carries them as content blocks. */
const ToolResults = z.union([
  z.array(ToolResult),
  z.looseObject({ content: z.array(ToolResult) }).transform((m) => m.content),
]);

const ApiRequest = z.looseObject({
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })),
});

/** `episode-N` folders holding a `response.json`, in N order. */
export function episodeDirs(trialDir: string): string[] {
  for (const base of [join(trialDir, "agent", "episodes"), join(trialDir, "agent")]) {
    if (!isDir(base)) continue;
    const eps = subdirs(base)
      .filter((n) => /^episode-\d+$/.test(n) && isFile(join(base, n, "response.json")))
      .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
    if (eps.length) return eps.map((n) => join(base, n));
  }
  return [];
}

/** A response head in either wire shape: typed content blocks, or choices. */
const CHOICES = /"choices"\s*:\s*\[\s*\{/;
const CONTENT = /"content"\s*:\s*\[/;
const BLOCK_TYPE = /"type"\s*:\s*"(?:text|tool_use|thinking|redacted_thinking)"/;

/** Whether the trial has per-episode API logs (the first response has a known shape). */
export function hasApiEpisodes(trialDir: string): boolean {
  const first = episodeDirs(trialDir)[0];
  if (!first) return false;
  const head = peek(join(first, "response.json"), 16 * 1024).trimStart();
  return (
    head.startsWith("{") && (CHOICES.test(head) || (CONTENT.test(head) && BLOCK_TYPE.test(head)))
  );
}

/** What the episode logs contribute to a Harbor attempt. */
export interface EpisodeParts {
  events: EventLog;
  taskText: string;
  model?: string;
  tokens?: AttemptInput["tokens"];
  costUsd?: number;
  /** The last response read: its stop reason, usage and tool calls, and its file. */
  finalTurn?: Omit<NonNullable<AttemptInput["agentEnd"]>, "exitCode" | "exitFile">;
}

/** A response's stop reason (Anthropic `stop_reason`, OpenAI `finish_reason`). */
function stopOf(resp: ApiResponse): string | undefined {
  if (resp.kind === "anthropic") return resp.r.stop_reason ?? undefined;
  return resp.r.choices[0]?.finish_reason ?? undefined;
}

/** An exit status printed at the head of a tool result (`[exit_code=N]`), else the common ones. */
export function resultExitCode(output: string): number | undefined {
  const head = output.length > 600 ? output.slice(0, 600) : output;
  const m = /(?:^|\n)\[exit_code=(-?\d+)[\];]/.exec(head);
  return m ? Number(m[1]) : exitCodeFromOutput(output);
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === undefined || content === null) return "";
  return Array.isArray(content) ? partsText(content) : JSON.stringify(content);
}

function jsonArgs(v: unknown): unknown {
  if (typeof v !== "string" || !v.trimStart().startsWith("{")) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function usageOf(resp: ApiResponse): { tokens?: AttemptInput["tokens"]; cost?: number } {
  if (resp.kind === "anthropic") {
    const u = resp.r.usage;
    if (!u) return {};
    return {
      tokens: normTokens({
        input: u.input_tokens,
        output: u.output_tokens,
        cached: u.cache_read_input_tokens,
        cacheWrite: u.cache_creation_input_tokens,
        inputIncludesCache: false,
      }),
      cost: u.cost ?? undefined,
    };
  }
  const u = resp.r.usage;
  if (!u) return {};
  return {
    tokens: normTokens({
      input: u.prompt_tokens,
      output: u.completion_tokens,
      cached: u.prompt_tokens_details?.cached_tokens,
      reasoning: u.completion_tokens_details?.reasoning_tokens,
      inputIncludesCache: true,
    }),
    cost: u.cost ?? undefined,
  };
}

/** Events of one response; returns how many tool calls it made. */
function addResponse(log: EventLog, resp: ApiResponse): number {
  if (resp.kind === "anthropic") {
    let calls = 0;
    for (const b of resp.r.content) {
      if (b.type === "text" && b.text) log.text("message", "agent", b.text.trim());
      else if (b.type === "thinking" && b.thinking) log.text("reasoning", "agent", b.thinking);
      else if (b.type === "tool_use" && b.name) {
        log.call({ tool: b.name, args: b.input, callId: b.id ?? undefined });
        calls++;
      }
    }
    return calls;
  }
  const m = resp.r.choices[0]!.message;
  const thought = m.reasoning_content ?? m.reasoning;
  if (thought) log.text("reasoning", "agent", thought);
  const text = resultText(m.content).trim();
  if (text) log.text("message", "agent", text);
  const calls = m.tool_calls ?? [];
  for (const c of calls)
    log.call({
      tool: c.function.name,
      args: jsonArgs(c.function.arguments),
      callId: c.id ?? undefined,
    });
  return calls.length;
}

/** The first user message of the first request: the task as the agent was given it. */
async function taskOf(dir: string, errors: IngestItem[]): Promise<string> {
  const f = join(dir, "request.json");
  if (!isFile(f)) return "";
  const req = await readJsonAs(f, ApiRequest, "an API request (messages[])");
  if (!req.ok) {
    errors.push({ type: "error", error: req.error });
    return "";
  }
  const first = req.value.messages.find((m) => m.role === "user");
  return first ? resultText(first.content).trim() : "";
}

/**
 * Read the episode logs of a trial into events, in episode order. A bad file is reported
 * (file:line) and skipped; the other episodes still load. `endWithStop`: a last response
 * with no tool call is the agent stopping (not when the harness cut the run off).
 */
export async function* readApiEpisodes(
  trialDir: string,
  options: IngestOptions,
  endWithStop: boolean,
  out: { parts?: EpisodeParts },
): AsyncGenerator<IngestItem> {
  const log = new EventLog(options.outputCap);
  const errors: IngestItem[] = [];
  const dirs = episodeDirs(trialDir);
  let taskText = "";
  for (const d of dirs) {
    taskText = await taskOf(d, errors);
    if (taskText) break;
  }
  if (taskText) log.text("prompt", "user", taskText);
  const usage: AttemptInput["tokens"][] = [];
  let cost: number | undefined;
  let model: string | undefined;
  let lastCalls = -1;
  let finalTurn: EpisodeParts["finalTurn"];
  let metered = 0;
  for (const d of dirs) {
    if (options.signal?.aborted) return;
    const resp = await readJsonAs(
      join(d, "response.json"),
      ApiResponse,
      "an API response (Anthropic content[] or OpenAI choices[])",
    );
    if (!resp.ok) {
      errors.push({ type: "error", error: resp.error });
      lastCalls = -1;
      continue;
    }
    model ??= resp.value.r.model ?? undefined;
    const u = usageOf(resp.value);
    usage.push(u.tokens);
    if (u.cost !== undefined) cost = (cost ?? 0) + u.cost;
    const from = log.length;
    lastCalls = addResponse(log, resp.value);
    // the turn before this one becomes an earlier turn: count it if it reported usage
    if ((finalTurn?.promptTokens ?? 0) > 0) metered++;
    const own = log.events.slice(from).find((e) => e.kind === "message" || e.kind === "reasoning");
    const stop = stopOf(resp.value);
    finalTurn = {
      ...(own ? { eventIndex: own.index } : {}),
      ...(stop ? { stopReason: stop } : {}),
      ...(u.tokens?.input !== undefined ? { promptTokens: u.tokens.input } : {}),
      ...(u.tokens?.output !== undefined ? { outputTokens: u.tokens.output } : {}),
      meteredTurns: metered,
      toolCalls: lastCalls,
      file: join(d, "response.json"),
    };
    const rf = join(d, "tool-results.json");
    if (!isFile(rf)) continue;
    const res = await readJsonAs(
      rf,
      ToolResults,
      "tool results (tool_result blocks or tool messages)",
    );
    if (!res.ok) {
      errors.push({ type: "error", error: res.error });
      continue;
    }
    for (const r of res.value) {
      const output = resultText(r.content);
      log.result({
        output,
        callId: r.tool_use_id ?? r.tool_call_id ?? undefined,
        exitCode: resultExitCode(output),
        isError: r.is_error ?? undefined,
      });
    }
  }
  if (endWithStop && lastCalls === 0) log.stop();
  // a history compaction is a model call too: its spend counts
  for (const c of await compactionUsage(trialDir, errors)) {
    usage.push(c.tokens);
    if (c.cost !== undefined) cost = (cost ?? 0) + c.cost;
  }
  yield* errors;
  out.parts = {
    events: log,
    taskText,
    model,
    tokens: addTokens(usage),
    costUsd: cost,
    ...(finalTurn ? { finalTurn } : {}),
  };
}

const Compaction = z.looseObject({ response: ApiResponse });

/**
 * Usage of the `agent/compactions/*.json` files that hold a `response` in a known shape
 * (a file in another shape is not a model call we can read; unparsable JSON is reported).
 */
async function compactionUsage(
  trialDir: string,
  errors: IngestItem[],
): Promise<{ tokens?: AttemptInput["tokens"]; cost?: number }[]> {
  const dir = join(trialDir, "agent", "compactions");
  if (!isDir(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
  } catch {
    return [];
  }
  const out: { tokens?: AttemptInput["tokens"]; cost?: number }[] = [];
  for (const n of names) {
    const loaded = await readJsonFile(join(dir, n));
    if (!loaded.ok) {
      errors.push({ type: "error", error: loaded.error });
      continue;
    }
    const r = Compaction.safeParse(loaded.value);
    if (r.success) out.push(usageOf(r.data.response));
  }
  return out;
}
