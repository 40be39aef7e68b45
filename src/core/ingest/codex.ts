import { basename } from "node:path";
import { z } from "zod";
import type { AttemptInput } from "../model/attempt.js";
import { isLegacyCodexHead, LEGACY_WHAT, unwrapLegacy } from "./codex-legacy.js";
import { EventLog, exitCodeFromOutput } from "./events.js";
import { metadataResult } from "./json-result.js";
import { streamRows } from "./jsonl.js";
import { joinArgv, toolArguments } from "./shell.js";
import { attemptId, isHarnessText, partsText, sessionTaskId } from "./text.js";
import { normTokens } from "./tokens.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

const Row = z.object({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.unknown(),
});
type P = Record<string, unknown>;

/** Content detection: rollout rows are `{"timestamp":…,"type":"session_meta|response_item|…","payload":…}`. */
const CODEX_HEAD =
  /^\s*\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"(?:session_meta|response_item|event_msg|turn_context)"/;

const HOOK_PROMPT = /^\s*<hook_prompt\b[^>]*>([\s\S]*?)(?:<\/hook_prompt>\s*)?$/;
const BLOCKED = /^Command blocked by (\w+) hook: ([\s\S]*?)(?:\. Command: [\s\S]*)?$/;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function harnessProvenance(p: P): boolean {
  const meta = (p.internal_chat_message_metadata_passthrough as P | undefined)
    ?.content_item_metadata;
  if (!Array.isArray(meta) || !meta.length) return false;
  const prov = (meta[0] as P | undefined)?.provenance as P | undefined;
  return prov?.type === "harness" && prov.hook !== true;
}

/** Function outputs are plain text, or `{"output":…,"metadata":{"exit_code":…}}` in older CLIs. */
function outputOf(raw: unknown): { text: string; exit?: number } {
  const s =
    typeof raw === "string"
      ? raw
      : partsText(raw) || (raw === undefined ? "" : JSON.stringify(raw));
  const m = s.startsWith('{"output"') ? metadataResult(s) : undefined;
  if (m) return { text: m.output, exit: m.exitCode };
  return { text: s, exit: exitCodeFromOutput(s) };
}

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** OpenAI usage: input counts cached input, output counts reasoning (docs/formats.md "Token model"). */
function codexTokens(t: P): AttemptInput["tokens"] {
  return normTokens({
    input: num(t.input_tokens),
    cached: num(t.cached_input_tokens),
    output: num(t.output_tokens),
    reasoning: num(t.reasoning_output_tokens),
    inputIncludesCache: true,
  });
}

class CodexSession {
  readonly log: EventLog;
  taskText = "";
  firstPrompt = "";
  sessionId?: string;
  /** The working directory (`session_meta` / `turn_context` carry `cwd`). */
  cwd?: string;
  model?: string;
  startedAt?: string;
  tokens?: AttemptInput["tokens"];

  constructor(outputCap: number) {
    this.log = new EventLog(outputCap);
  }

  row(type: string, p: P, ts?: string): void {
    if (type === "session_meta" || type === "turn_context") this.cwd ??= str(p.cwd) || undefined;
    if (type === "session_meta") {
      this.sessionId ??= str(p.id) ?? str(p.session_id);
      this.startedAt ??= str(p.timestamp) ?? ts;
    } else if (type === "turn_context") this.model ??= str(p.model);
    else if (type === "response_item") this.item(p, ts);
    else if (type === "event_msg") this.eventMsg(p, ts);
  }

  private eventMsg(p: P, ts?: string): void {
    if (p.type === "user_message" && !this.taskText) this.taskText = str(p.message)?.trim() ?? "";
    else if (p.type === "task_complete") this.log.stop(ts);
    else if (p.type === "token_count") {
      const t = (p.info as P | null | undefined)?.total_token_usage as P | undefined;
      if (t) this.tokens = codexTokens(t);
    }
  }

  private message(p: P, ts?: string): void {
    const text = partsText(p.content);
    if (p.role === "assistant") this.log.text("message", "agent", text, ts);
    if (p.role !== "user") return;
    const hook = HOOK_PROMPT.exec(text);
    if (hook) this.log.hook({ event: "Stop", decision: "block", text: hook[1]!.trim() }, { ts });
    else if (!isHarnessText(text) && !harnessProvenance(p)) {
      this.firstPrompt ||= text.trim();
      this.log.text("prompt", "user", text, ts);
    }
  }

  private item(p: P, ts?: string): void {
    const callId = str(p.call_id);
    switch (p.type) {
      case "message":
        this.message(p, ts);
        return;
      case "reasoning": {
        const text = partsText(p.summary) || partsText(p.content);
        this.log.text("reasoning", "agent", text, ts);
        return;
      }
      case "function_call": {
        const tool = str(p.name) ?? "function";
        const args = toolArguments(p.arguments);
        const a = (args && typeof args === "object" ? args : {}) as P;
        const command = Array.isArray(a.command) ? joinArgv(a.command) : undefined;
        this.log.call({ tool, args, callId, ts, command });
        return;
      }
      case "local_shell_call": {
        const argv = (p.action as P | undefined)?.command;
        const command = Array.isArray(argv) ? joinArgv(argv) : undefined;
        this.log.call({ tool: "local_shell", args: p.action, callId, ts, command });
        return;
      }
      case "custom_tool_call":
        this.log.call({ tool: str(p.name) ?? "custom_tool", args: p.input, callId, ts });
        return;
      case "function_call_output":
      case "custom_tool_call_output":
      case "local_shell_call_output": {
        const out = outputOf(p.output);
        const blocked = BLOCKED.exec(out.text.slice(0, 4000));
        this.log.result({
          output: out.text,
          callId,
          ts,
          exitCode: out.exit,
          isError: blocked ? true : undefined,
        });
        if (blocked)
          this.log.hook(
            { event: blocked[1]!, decision: "deny", text: blocked[2]!.trim() },
            { ts, callId },
          );
        return;
      }
    }
  }
}

/** Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`). */
export async function* readCodexSession(
  path: string,
  options: IngestOptions,
  out: { session?: CodexSession },
): AsyncGenerator<IngestItem> {
  const s = new CodexSession(options.outputCap);
  let good = 0;
  let legacy: boolean | undefined;
  for await (const item of streamRows(path, options.signal)) {
    if (item.type === "error") {
      yield item;
      continue;
    }
    // a rollout without the {timestamp, type, payload} wrapper: the pre-v0.33 layout
    legacy ??= !("payload" in item.row);
    if (legacy) {
      const u = unwrapLegacy(item.row);
      if (!u.ok) yield item.invalid(LEGACY_WHAT, u.issues);
      else if (!("skip" in u)) s.row(u.type, u.payload, u.ts);
      if (u.ok) good++;
      continue;
    }
    const v = Row.safeParse(item.row);
    if (!v.success) {
      yield item.invalid("a Codex rollout row {timestamp, type, payload}", v.error.issues);
      continue;
    }
    good++;
    const payload =
      v.data.payload && typeof v.data.payload === "object" ? (v.data.payload as P) : {};
    s.row(v.data.type, payload, v.data.timestamp);
  }
  // the old layout has no task_complete event: a session ending on the agent's answer stopped
  if (legacy && s.log.events.at(-1)?.role === "agent") s.log.stop(s.log.events.at(-1)?.ts);
  if (good) out.session = s;
}

export type { CodexSession };

export const codexImporter: Importer = {
  format: "codex-rollout",
  detect: (_p, head, isDirectory) =>
    !isDirectory && (CODEX_HEAD.test(head) || isLegacyCodexHead(head)),
  async *read(path: string, options: IngestOptions): AsyncIterable<IngestItem> {
    const out: { session?: CodexSession } = {};
    yield* readCodexSession(path, options, out);
    const s = out.session;
    if (!s) return;
    const taskText = s.taskText || s.firstPrompt;
    yield {
      type: "attempt",
      attempt: {
        id: attemptId("codex", s.sessionId ?? basename(path)),
        source: { format: "codex-rollout", path },
        taskId: sessionTaskId(taskText, s.cwd),
        taskText,
        agent: "codex",
        model: s.model,
        outcome: "unknown",
        tokens: s.tokens,
        startedAt: s.startedAt,
        events: s.log.events,
      },
    };
  },
};
