/**
 * A log of OpenAI Responses API exchanges, one JSON line per model request, as a harness of its
 * own keeps it (e.g. `agent/<name>-events.jsonl`): each line holds the API's response object
 * (`{"object":"response","output":[…]}`, at the top of the line or under one of its keys) and
 * usually the request it answered (`{"model":…,"input":…}`). Detection is by that shape, never by
 * the harness's name. The response's `output` items are the agent's turn: `function_call` and
 * `custom_tool_call` are its calls, `message` its text. The results come back in a later
 * request's `input` as `function_call_output` / `custom_tool_call_output` items. A request sent
 * with `previous_response_id` holds only the new items; one sent without repeats the history, so
 * an item already read (the same call id, the same message) is not read again. A response whose
 * `status` is `failed` or `incomplete` (or that carries an `error`) ends the turn with the reason
 * as the agent's error message, as the other printed logs record a turn the agent could not
 * complete.
 */
import type { PrintedItem } from "./agent-printed.js";
import { structuredResult } from "./json-result.js";
import { toolArguments } from "./shell.js";
import { partsText } from "./text.js";

type P = Record<string, unknown>;

const obj = (v: unknown): P | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as P) : undefined;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** A line that may hold a Responses API response object (cheap test before JSON.parse). */
const MAY_HOLD = /"object"\s*:\s*"response"/;

/** The response object of a line (the line itself, or one of its values) and the request. */
function exchange(row: P): { response?: P; request?: P } {
  const isResponse = (o: P | undefined): boolean =>
    o !== undefined && o.object === "response" && Array.isArray(o.output);
  if (isResponse(row)) return { response: row };
  let response: P | undefined;
  let request: P | undefined;
  for (const v of Object.values(row)) {
    const o = obj(v);
    if (!o) continue;
    if (isResponse(o)) response ??= o;
    else if ("input" in o && typeof o.model === "string") request ??= o;
  }
  return { response, request };
}

function parsedObject(line: string): P | undefined {
  try {
    return obj(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/**
 * Whether `text` is a Responses API exchange log: one of its first lines holds a response. A
 * file's head may end inside a long line: that last line, when it names a response object, is
 * taken as one (the reader parses every whole line again).
 */
export function isResponsesLog(text: string): boolean {
  const lines = text.split("\n", 200);
  let seen = 0;
  for (const [i, line] of lines.entries()) {
    const l = line.trim();
    if (!l) continue;
    if (++seen > 20) return false;
    if (!l.startsWith("{") || !MAY_HOLD.test(l)) continue;
    const row = parsedObject(l);
    if (row ? exchange(row).response : i === lines.length - 1) return true;
  }
  return false;
}

/**
 * A function output's text and exit status: plain text, or a JSON object a shell tool wrote
 * (`{"output"|"content":…,"metadata":{"exit_code":…}}`, `{stdout, stderr, exit_code}`).
 */
function outputOf(raw: unknown): { output: string; exitCode?: number } {
  const s = typeof raw === "string" ? raw : partsText(raw) || JSON.stringify(raw ?? "");
  const structured = structuredResult(s);
  if (structured?.exitCode !== undefined) return structured;
  if (s.startsWith("{")) {
    const o = parsedObject(s);
    const meta = obj(o?.metadata);
    const code = meta?.exit_code ?? meta?.exitCode ?? o?.exit_code ?? o?.exitCode;
    const text = str(o?.output) ?? str(o?.content);
    if (o && text !== undefined)
      return {
        output: text,
        ...(typeof code === "number" && Number.isInteger(code) ? { exitCode: code } : {}),
      };
  }
  return structured ?? { output: s };
}

/** Why a response ended its turn unfinished, or undefined when it completed. */
function failure(response: P): string | undefined {
  const error = obj(response.error);
  const message = str(error?.message) ?? str(error?.code);
  if (message?.trim()) return message.trim();
  const status = str(response.status);
  if (status !== "failed" && status !== "incomplete") return undefined;
  const reason = str(obj(response.incomplete_details)?.reason);
  return `response ${status}${reason ? `: ${reason}` : ""}`;
}

/** Calls, results and the agent's messages of a Responses API exchange log; [] when it is not one. */
export function responsesLogItems(text: string): PrintedItem[] {
  if (!isResponsesLog(text)) return [];
  const out: PrintedItem[] = [];
  const calls = new Set<string>();
  const results = new Set<string>();
  const said = new Set<string>();
  const toolOf = new Map<string, string>();
  for (const line of text.split("\n")) {
    const l = line.trim();
    if (!l.startsWith("{")) continue;
    const row = parsedObject(l);
    if (!row) continue;
    const { response, request } = exchange(row);
    const input = request?.input;
    if (Array.isArray(input))
      for (const raw of input) {
        const it = obj(raw);
        const type = str(it?.type);
        const callId = str(it?.call_id);
        if (
          !it ||
          !callId ||
          (type !== "function_call_output" && type !== "custom_tool_call_output")
        )
          continue;
        if (results.has(callId)) continue;
        results.add(callId);
        const tool = toolOf.get(callId);
        out.push({ type: "result", ...outputOf(it.output), callId, ...(tool ? { tool } : {}) });
      }
    if (!response) continue;
    for (const raw of response.output as unknown[]) {
      const it = obj(raw);
      const type = str(it?.type);
      if (!it) continue;
      if (type === "message" && it.role !== "user") {
        const t = partsText(it.content);
        const key = str(it.id) ?? t;
        if (t.trim() && !said.has(key)) {
          said.add(key);
          out.push({ type: "message", text: t });
        }
        continue;
      }
      if (type !== "function_call" && type !== "custom_tool_call") continue;
      const tool = str(it.name);
      const callId = str(it.call_id) ?? str(it.id);
      if (!tool || (callId && calls.has(callId))) continue;
      if (callId) {
        calls.add(callId);
        toolOf.set(callId, tool);
      }
      const args = type === "function_call" ? toolArguments(it.arguments) : it.input;
      out.push({ type: "call", tool, args: args ?? {}, ...(callId ? { callId } : {}) });
    }
    const why = failure(response);
    if (why) out.push({ type: "message", text: `Error: ${why}` });
  }
  return out;
}
