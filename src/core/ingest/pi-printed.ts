/**
 * The pi coding agent's `--mode json` output, as a Harbor agent keeps it (`agent/pi.txt`, or a
 * harness's own `agent/<name>-events.jsonl`): one JSON event per line, opening with
 * `{"type":"session","version":N,…}` (older pi: `{"type":"agent_start"}`), stderr lines
 * possibly among them. The events this reader takes:
 * - `message_end` of an `assistant` message: its `content` parts — `text` (the agent's message),
 *   `toolCall` (`id`, `name`, `arguments`: a call) — and, when its `stopReason` is `error` or
 *   `aborted`, its `errorMessage` (the turn the agent could not complete);
 * - `message_end` of a `toolResult` message: the result of the call it names (`toolCallId`,
 *   `content` text parts, `isError`).
 * The same messages are repeated by `turn_end` and `agent_end`, and streamed by `message_update`
 * and `tool_execution_*` events; those are not read again. Lines of any other shape (a stderr
 * line, an event this reader does not know) are skipped.
 */
import { z } from "zod";
import type { PrintedItem } from "./agent-printed.js";

const Part = z.looseObject({ type: z.string() });

const Assistant = z.object({
  type: z.literal("message_end"),
  message: z.looseObject({
    role: z.literal("assistant"),
    content: z.array(Part),
    stopReason: z.string().optional(),
    errorMessage: z.string().optional(),
  }),
});

const ToolResult = z.object({
  type: z.literal("message_end"),
  message: z.looseObject({
    role: z.literal("toolResult"),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    content: z.array(Part),
    isError: z.boolean().optional(),
  }),
});

const ToolCallPart = z.looseObject({
  type: z.literal("toolCall"),
  id: z.string().optional(),
  name: z.string().min(1),
  arguments: z.unknown().optional(),
});

/**
 * Events only pi's stream has, at its start: the session header (newer pi), the agent's and the
 * first turn's start. (A model API's own stream has `message_start` too, never these.)
 */
const OPENING = /^\{"type":"(?:session","version":\d+,|agent_start"|turn_start")/;
/** A line that may be one of the events read (cheap test before JSON.parse). */
const READ_EVENT = /^\{"type":"message_end",/;

/**
 * Whether `text` is pi's JSON event stream: one of its first non-empty lines opens it (lines
 * before it may be the process's stderr, which Harbor's pi agent tees into the same file).
 */
export function isPiEventLog(text: string): boolean {
  let seen = 0;
  for (const line of text.split("\n", 400)) {
    const l = line.trim();
    if (!l) continue;
    if (OPENING.test(l)) return true;
    if (++seen >= 50) return false;
  }
  return false;
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The text parts of a message's content, joined (images and other parts left out). */
function textOf(parts: readonly { type: string }[]): string {
  const texts: string[] = [];
  for (const p of parts) {
    const t = (p as { text?: unknown }).text;
    if (p.type === "text" && typeof t === "string" && t !== "") texts.push(t);
  }
  return texts.join("\n");
}

/** A shell result's exit status where pi's bash tool printed it. */
const EXITED = /(?:^|\n)Command exited with code (-?\d+)\s*$/;

/** Calls, results and the agent's messages of a pi event stream; [] when it is not one. */
export function piEventItems(text: string): PrintedItem[] {
  if (!isPiEventLog(text)) return [];
  const out: PrintedItem[] = [];
  const toolOf = new Map<string, string>();
  for (const line of text.split("\n")) {
    const l = line.trim();
    if (!READ_EVENT.test(l)) continue;
    const row = parsed(l);
    const said = Assistant.safeParse(row);
    if (said.success) {
      const m = said.data.message;
      for (const part of m.content) {
        if (part.type === "text") {
          const t = textOf([part]);
          if (t.trim()) out.push({ type: "message", text: t });
          continue;
        }
        const call = ToolCallPart.safeParse(part);
        if (!call.success) continue;
        const { id, name } = call.data;
        if (id) toolOf.set(id, name);
        out.push({
          type: "call",
          tool: name,
          args: call.data.arguments ?? {},
          ...(id ? { callId: id } : {}),
        });
      }
      if ((m.stopReason === "error" || m.stopReason === "aborted") && m.errorMessage?.trim())
        out.push({ type: "message", text: `Error: ${m.errorMessage.trim()}` });
      continue;
    }
    const result = ToolResult.safeParse(row);
    if (!result.success) continue;
    const r = result.data.message;
    const output = textOf(r.content);
    const exit = EXITED.exec(output)?.[1];
    const tool = r.toolName ?? (r.toolCallId ? toolOf.get(r.toolCallId) : undefined);
    out.push({
      type: "result",
      output,
      ...(r.toolCallId ? { callId: r.toolCallId } : {}),
      ...(tool ? { tool } : {}),
      ...(exit !== undefined ? { exitCode: Number(exit) } : {}),
      ...(r.isError ? { isError: true } : {}),
    });
  }
  return out;
}
