/**
 * OpenCode's `opencode run --format json` output, as Harbor's `opencode` agent keeps it
 * (`agent/opencode.txt`, stdout and stderr teed): one JSON event per line, each with `type`,
 * `timestamp` (milliseconds since the epoch), `sessionID` and a `part` — `step_start`,
 * `text` (`part.text`), `reasoning` (the model's reasoning, `part.text`, where the model
 * gives one), `tool_use` (a finished call: `part.tool`, `part.callID`, `part.state` with
 * `status` `completed` or `error`, `input`, `output` or `error`, and `metadata.exit` for a
 * shell call, `metadata.files[].filePath` for a patch or an edit), `step_finish`
 * (`part.reason`, `part.tokens`) — and `error` (`error.name`, `error.data.message`) when a
 * model request failed. Checked against OpenCode 1.18.33 run on a scripted model
 * (test/fixtures/harbor-opencode) and OpenCode 1.18.3 runs of real models under Harbor.
 * Lines of any other shape (a stderr line, an event type this reader does not know) are
 * skipped.
 */
import { z } from "zod";
import type { PrintedItem } from "./agent-printed.js";

const ToolUse = z.object({
  type: z.literal("tool_use"),
  part: z.object({
    tool: z.string().min(1),
    callID: z.string().optional(),
    state: z.object({
      status: z.string(),
      input: z.unknown().optional(),
      output: z.string().optional(),
      error: z.string().optional(),
      metadata: z
        .object({
          exit: z.number().int().nullish(),
          files: z.array(z.object({ filePath: z.string().min(1) })).optional(),
        })
        .optional(),
    }),
  }),
});

const Text = z.object({
  type: z.enum(["text", "reasoning"]),
  part: z.object({ text: z.string() }),
});

/** The event's time: OpenCode stamps each line with milliseconds since the epoch. */
const Stamp = z.object({ timestamp: z.number().int().nonnegative() });

function stampOf(row: unknown): string | undefined {
  const s = Stamp.safeParse(row);
  if (!s.success) return undefined;
  const d = new Date(s.data.timestamp);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

const Failure = z.object({
  type: z.literal("error"),
  error: z.object({
    name: z.string().optional(),
    message: z.string().optional(),
    data: z.object({ message: z.string().optional() }).optional(),
  }),
});

/** A line that is an OpenCode event (every event carries the session's `ses_` id). */
const EVENT = /^\{"type":"[a-z_]+","timestamp":\d+,"sessionID":"ses_/;

/** Whether `text` is OpenCode's JSON event stream (some line is one of its events). */
export function isOpencodeLog(text: string): boolean {
  return text.split("\n", 200).some((l) => EVENT.test(l.trim()));
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * Calls, results and the agent's text of an OpenCode event stream. A tool the model named
 * that OpenCode does not offer comes back as OpenCode's `invalid` tool (`input.tool`, the
 * name tried): read as a failed call of that name. [] when no line is a call or a text.
 */
export function opencodeItems(text: string): PrintedItem[] {
  if (!text.includes('"sessionID":"ses_')) return [];
  const out: PrintedItem[] = [];
  for (const line of text.split("\n")) {
    const l = line.trim();
    if (!EVENT.test(l)) continue;
    const row = parsed(l);
    const ts = stampOf(row);
    const at = ts ? { ts } : {};
    const said = Text.safeParse(row);
    if (said.success) {
      const { text } = said.data.part;
      if (text.trim())
        out.push({ type: said.data.type === "reasoning" ? "reasoning" : "message", text, ...at });
      continue;
    }
    const used = ToolUse.safeParse(row);
    if (!used.success) continue;
    const { tool, callID, state } = used.data.part;
    const input = state.input;
    const tried =
      tool === "invalid" && input && typeof input === "object" && "tool" in input
        ? String((input as { tool: unknown }).tool)
        : undefined;
    const files = state.metadata?.files?.map((f) => f.filePath);
    out.push({
      type: "call",
      tool: tried ?? tool,
      args: input ?? {},
      ...(callID ? { callId: callID } : {}),
      ...(files?.length ? { writes: files } : {}),
      ...at,
    });
    if (state.status !== "completed" && state.status !== "error") continue; // cut off mid-call
    const exit = state.metadata?.exit ?? undefined;
    out.push({
      type: "result",
      tool: tried ?? tool,
      output: (state.status === "error" ? state.error : state.output) ?? "",
      ...(callID ? { callId: callID } : {}),
      ...(exit !== undefined ? { exitCode: exit } : {}),
      ...(state.status === "error" || tried || (exit !== undefined && exit !== 0)
        ? { isError: true }
        : {}),
      ...at,
    });
  }
  return out;
}

/**
 * What an OpenCode event line says of the run's end, for `lastLoggedFailure`: a failed model
 * request (`error`: its name and message), a later step or call (`null`: the run went on
 * after any earlier failure), or nothing.
 */
export function opencodeFailure(line: string): string | null | undefined {
  if (!EVENT.test(line)) return undefined;
  const row = parsed(line);
  const failed = Failure.safeParse(row);
  if (failed.success) {
    const e = failed.data.error;
    const message = e.data?.message ?? e.message ?? "request failed";
    return (e.name ? `${e.name}: ${message}` : message).slice(0, 500);
  }
  return line.startsWith('{"type":"step_start"') || line.startsWith('{"type":"tool_use"')
    ? null
    : undefined;
}

const StepFinish = z.object({
  type: z.literal("step_finish"),
  part: z.object({
    reason: z.string().min(1),
    tokens: z.object({ output: z.number().int().nonnegative() }).partial().optional(),
  }),
});

/**
 * Why OpenCode's last model step ended (`step_finish`: `part.reason`, e.g. `stop`,
 * `tool-calls`, `length`) and the output tokens it billed, from the lines given (the log's
 * tail); undefined when none of them is a step's end or the last one gives no reason.
 */
export function opencodeLastStop(
  lines: readonly string[],
): { reason: string; output?: number } | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = (lines[i] ?? "").trim();
    if (!l.startsWith('{"type":"step_finish"') || !EVENT.test(l)) continue;
    // the last step's end decides: one without a reason says nothing of the final turn, and
    // an earlier step's reason is not the final turn's
    const f = StepFinish.safeParse(parsed(l));
    if (!f.success) return undefined;
    const output = f.data.part.tokens?.output;
    return { reason: f.data.part.reason, ...(output !== undefined ? { output } : {}) };
  }
  return undefined;
}
