import { z } from "zod";
import type { AttemptInput } from "../model/attempt.js";
import { EventLog, exitCodeFromOutput } from "./events.js";
import { agentEndOf, type FinalTurnSeen } from "./final-turn.js";
import { partsText } from "./text.js";
import { addTokens, normTokens } from "./tokens.js";

const Block = z.looseObject({ type: z.string() });
const Message = z.object({
  id: z.string().optional(),
  role: z.string().optional(),
  model: z.string().optional(),
  content: z.union([z.string(), z.array(Block)]),
  stop_reason: z.string().nullish(),
  usage: z
    .object({
      input_tokens: z.number().optional(),
      output_tokens: z.number().optional(),
      cache_read_input_tokens: z.number().optional(),
      cache_creation_input_tokens: z.number().optional(),
    })
    .nullish(),
});
export const ConversationRow = z.object({
  type: z.enum(["user", "assistant"]),
  message: Message,
  timestamp: z.string().optional(),
  sessionId: z.string().optional(),
  isMeta: z.boolean().optional(),
  isSidechain: z.boolean().optional(),
});
const HookAttachment = z.looseObject({
  hookEvent: z.string().optional(),
  hookName: z.string().optional(),
  blockingError: z
    .union([z.string(), z.looseObject({ blockingError: z.string().optional() })])
    .optional(),
});

const HOOK_ERROR = /^(?:Error: )?(\w+):(\S+) hook (?:error|blocking error)[^:]*: ([\s\S]*)$/;
/** Slash-command wrappers and interruption notes: prompts, but never the task. */
const HARNESS_PROMPT =
  /^\s*(?:<(?:command-name|command-message|local-command-std(?:out|err))>|\[Request interrupted)/;
const STOP_FEEDBACK = /^(\w+) hook feedback:\n?/;

/** Mutable state of one transcript while it streams. */
export class ClaudeSession {
  readonly log: EventLog;
  taskText = "";
  sessionId?: string;
  /** The working directory the session ran in (rows carry `cwd`). */
  cwd?: string;
  model?: string;
  startedAt?: string;
  costUsd?: number;
  /** Whether this file is a sub-agent (sidechain) transcript, fixed by its first conversation row. */
  sidechain?: boolean;
  private pendingStop?: { id?: string; ts?: string };
  /** Usage per assistant message id (a message streamed over several rows repeats it). */
  private readonly usage = new Map<string, AttemptInput["tokens"]>();
  /** The last assistant message: its stop reason, usage, tool calls and text event. */
  private last?: FinalTurnSeen & { id?: string };
  /** Earlier assistant messages that reported prompt tokens. */
  private metered = 0;

  constructor(outputCap: number) {
    this.log = new EventLog(outputCap);
  }

  private flushStop(nextId?: string): void {
    if (!this.pendingStop || (nextId !== undefined && nextId === this.pendingStop.id)) return;
    this.log.stop(this.pendingStop.ts);
    this.pendingStop = undefined;
  }

  private userText(text: string, meta: boolean, ts?: string): void {
    const m = STOP_FEEDBACK.exec(text);
    if (m) {
      this.log.hook({ event: m[1]!, decision: "block", text: text.slice(m[0].length) }, { ts });
      return;
    }
    if (meta) return;
    if (!this.taskText && !HARNESS_PROMPT.test(text)) this.taskText = text.trim();
    this.log.text("prompt", "user", text, ts);
  }

  row(r: Record<string, unknown>, parsed: z.infer<typeof ConversationRow> | undefined): void {
    const ts = typeof r.timestamp === "string" ? r.timestamp : undefined;
    if (typeof r.sessionId === "string") this.sessionId ??= r.sessionId;
    if (typeof r.cwd === "string" && r.cwd) this.cwd ??= r.cwd;
    if (r.type === "cost-state" && typeof r.totalCostUSD === "number")
      this.costUsd = r.totalCostUSD;
    if (r.type === "attachment") this.attachment(r.attachment, ts);
    if (!parsed) return;
    // A sub-agent transcript is all sidechain rows; in a main transcript they are skipped.
    this.sidechain ??= parsed.isSidechain === true;
    if (parsed.isSidechain && !this.sidechain) return;
    this.startedAt ??= ts;
    const msg = parsed.message;
    this.flushStop(parsed.type === "assistant" ? msg.id : undefined);
    const meta = parsed.isMeta === true;
    if (parsed.type === "assistant") this.assistant(msg, ts);
    else if (typeof msg.content === "string") this.userText(msg.content, meta, ts);
    else
      for (const b of msg.content) {
        if (b.type === "text" && typeof b.text === "string") this.userText(b.text, meta, ts);
        else if (b.type === "tool_result") this.toolResult(b, ts);
      }
  }

  private assistant(msg: z.infer<typeof Message>, ts?: string): void {
    if (msg.model && msg.model !== "<synthetic>") this.model ??= msg.model;
    if (msg.id && msg.usage) {
      const u = msg.usage;
      // Anthropic's input_tokens leave out the cache: the token model counts it in
      this.usage.set(
        msg.id,
        normTokens({
          input: u.input_tokens ?? 0,
          output: u.output_tokens ?? 0,
          cached: u.cache_read_input_tokens ?? 0,
          cacheWrite: u.cache_creation_input_tokens ?? 0,
          inputIncludesCache: false,
        }),
      );
    }
    if (!this.last || msg.id === undefined || msg.id !== this.last.id) {
      if ((this.last?.promptTokens ?? 0) > 0) this.metered++;
      this.last = { ...(msg.id !== undefined ? { id: msg.id } : {}), toolCalls: 0 };
    }
    const turn = this.last;
    if (msg.stop_reason) turn.stopReason = msg.stop_reason;
    if (msg.usage) {
      const u = msg.usage;
      turn.promptTokens =
        (u.input_tokens ?? 0) +
        (u.cache_read_input_tokens ?? 0) +
        (u.cache_creation_input_tokens ?? 0);
      turn.outputTokens = u.output_tokens ?? turn.outputTokens;
    }
    const blocks =
      typeof msg.content === "string" ? [{ type: "text", text: msg.content }] : msg.content;
    const first = this.log.length;
    for (const b of blocks) {
      if (b.type === "tool_use") turn.toolCalls++;
      if (b.type === "text" && typeof b.text === "string")
        this.log.text("message", "agent", b.text, ts);
      else if (b.type === "thinking" && typeof b.thinking === "string")
        this.log.text("reasoning", "agent", b.thinking, ts);
      else if (b.type === "tool_use" && typeof b.name === "string")
        this.log.call({
          tool: b.name,
          args: b.input,
          callId: typeof b.id === "string" ? b.id : undefined,
          ts,
        });
    }
    const own = this.log.events.slice(first);
    const said = own.find((e) => e.kind === "message") ?? own.find((e) => e.kind === "reasoning");
    if (said && (said.kind === "message" || turn.eventIndex === undefined))
      turn.eventIndex = said.index;
    if (msg.stop_reason === "end_turn" || msg.stop_reason === "stop_sequence")
      this.pendingStop = { id: msg.id, ts };
  }

  private toolResult(b: Record<string, unknown>, ts?: string): void {
    const output = partsText(b.content) || (typeof b.content === "string" ? b.content : "");
    const callId = typeof b.tool_use_id === "string" ? b.tool_use_id : undefined;
    const isError = b.is_error === true;
    this.log.result({
      output,
      callId,
      ts,
      // The Messages API's is_error defaults to false: Claude Code flags every failed call,
      // so any other result is one that worked (live: PostToolUse, not PostToolUseFailure)
      isError,
      exitCode: exitCodeFromOutput(output),
    });
    const m = isError ? HOOK_ERROR.exec(output.slice(0, 2000)) : null;
    if (m)
      this.log.hook(
        { event: m[1]!, decision: "deny", text: m[3]!.trim() },
        { ts, callId, tool: m[2] },
      );
  }

  private attachment(a: unknown, ts?: string): void {
    const type = a && typeof a === "object" ? (a as { type?: unknown }).type : undefined;
    if (type === "hook_additional_context") {
      this.addedContext(a as Record<string, unknown>, ts);
      return;
    }
    if (type !== "hook_blocking_error") return;
    const p = HookAttachment.safeParse(a);
    if (!p.success) return;
    const be = p.data.blockingError;
    const text = (typeof be === "string" ? be : be?.blockingError) ?? "";
    const last = this.log.events[this.log.length - 1];
    if (last?.kind === "hook" && last.hook?.text === text) return; // the meta feedback row already said it
    this.log.hook(
      { event: p.data.hookEvent ?? p.data.hookName ?? "Stop", decision: "block", text },
      { ts },
    );
  }

  /** Context a hook added (UserPromptSubmit / PreToolUse instruct). */
  private addedContext(a: Record<string, unknown>, ts?: string): void {
    const text = partsText(a.content) || (typeof a.content === "string" ? a.content : "");
    if (!text) return;
    const event =
      typeof a.hookEvent === "string"
        ? a.hookEvent
        : typeof a.hookName === "string"
          ? a.hookName
          : "UserPromptSubmit";
    this.log.hook({ event, decision: "instruct", text }, { ts });
  }

  finish(): void {
    this.flushStop();
  }

  /** The final assistant message: stop reason, usage, tool calls (the importer adds the file). */
  finalTurn(): Omit<NonNullable<AttemptInput["agentEnd"]>, "exitCode" | "exitFile"> | undefined {
    const t = this.last;
    return t ? agentEndOf(t, this.metered) : undefined;
  }

  tokens(): AttemptInput["tokens"] {
    return addTokens([...this.usage.values()]);
  }
}
