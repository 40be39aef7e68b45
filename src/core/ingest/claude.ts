import { basename } from "node:path";
import { z } from "zod";
import type { AttemptInput } from "../model/attempt.js";
import { EventLog, exitCodeFromOutput } from "./events.js";
import { type JsonlRow, streamRows } from "./jsonl.js";
import { attemptId, partsText, taskIdFromText } from "./text.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

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
    })
    .nullish(),
});
const ConversationRow = z.object({
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

/** Content detection: Claude Code rows carry `"type":"user|assistant|…"` and a `sessionId`. */
const CLAUDE_HEAD =
  /"type":"(?:user|assistant|queue-operation|summary|file-history-snapshot|attachment|last-prompt)"/;

const HOOK_ERROR = /^(?:Error: )?(\w+):(\S+) hook (?:error|blocking error)[^:]*: ([\s\S]*)$/;
const STOP_FEEDBACK = /^(\w+) hook feedback:\n?/;

/** Mutable state of one transcript while it streams. */
class ClaudeSession {
  readonly log: EventLog;
  taskText = "";
  sessionId?: string;
  model?: string;
  startedAt?: string;
  costUsd?: number;
  /** Whether this file is a sub-agent (sidechain) transcript, fixed by its first conversation row. */
  sidechain?: boolean;
  private pendingStop?: { id?: string; ts?: string };
  private readonly usage = new Map<string, { i: number; o: number; c: number }>();

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
    if (!this.taskText) this.taskText = text.trim();
    this.log.text("prompt", "user", text, ts);
  }

  row(r: Record<string, unknown>, parsed: z.infer<typeof ConversationRow> | undefined): void {
    const ts = typeof r.timestamp === "string" ? r.timestamp : undefined;
    if (typeof r.sessionId === "string") this.sessionId ??= r.sessionId;
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
      this.usage.set(msg.id, {
        i: u.input_tokens ?? 0,
        o: u.output_tokens ?? 0,
        c: u.cache_read_input_tokens ?? 0,
      });
    }
    const blocks =
      typeof msg.content === "string" ? [{ type: "text", text: msg.content }] : msg.content;
    for (const b of blocks) {
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
      isError: isError || undefined,
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
    if (!a || typeof a !== "object" || (a as { type?: unknown }).type !== "hook_blocking_error")
      return;
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

  finish(): void {
    this.flushStop();
  }

  tokens(): AttemptInput["tokens"] {
    if (!this.usage.size) return undefined;
    const t = { input: 0, output: 0, cached: 0 };
    for (const u of this.usage.values()) {
      t.input += u.i;
      t.output += u.o;
      t.cached += u.c;
    }
    return t;
  }
}

/** Stream a Claude Code transcript into a session; bad lines come back as error items. */
export async function* readClaudeSession(
  path: string,
  options: IngestOptions,
  out: { session?: ClaudeSession },
): AsyncGenerator<IngestItem> {
  const s = new ClaudeSession(options.outputCap);
  out.session = s;
  let good = 0;
  for await (const item of streamRows(path, options.signal)) {
    if (item.type === "error") {
      yield item;
      continue;
    }
    const r = item.row as JsonlRow;
    let parsed: z.infer<typeof ConversationRow> | undefined;
    if (r.type === "user" || r.type === "assistant") {
      const v = ConversationRow.safeParse(r);
      if (!v.success) {
        yield item.invalid("a Claude Code user/assistant row", v.error.issues);
        continue;
      }
      parsed = v.data;
    }
    good++;
    s.row(r, parsed);
  }
  s.finish();
  if (!good) out.session = undefined;
}

export type { ClaudeSession };

/** Claude Code transcript JSONL (`~/.claude/projects/<slug>/<session>.jsonl`). */
export const claudeImporter: Importer = {
  format: "claude-transcript",
  detect: (_p, head, isDirectory) =>
    !isDirectory &&
    head.trimStart().startsWith("{") &&
    /"sessionId":"/.test(head) &&
    CLAUDE_HEAD.test(head),
  async *read(path: string, options: IngestOptions): AsyncIterable<IngestItem> {
    const out: { session?: ClaudeSession } = {};
    yield* readClaudeSession(path, options, out);
    const s = out.session;
    if (!s) return;
    // sub-agent transcripts share the parent's sessionId: tell them apart by file name
    const identity = s.sidechain
      ? `${s.sessionId ?? ""}/${basename(path)}`
      : (s.sessionId ?? basename(path));
    yield {
      type: "attempt",
      attempt: {
        id: attemptId("claude", identity),
        source: { format: "claude-transcript", path },
        taskId: taskIdFromText(s.taskText),
        taskText: s.taskText,
        agent: "claude-code",
        model: s.model,
        outcome: "unknown",
        costUsd: s.costUsd,
        tokens: s.tokens(),
        startedAt: s.startedAt,
        links: s.sidechain && s.sessionId ? [{ kind: "parent", ref: s.sessionId }] : undefined,
        events: s.log.events,
      },
    };
  },
};
