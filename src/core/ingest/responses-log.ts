/**
 * A log of OpenAI Responses API exchanges, one JSON line per model request, as a harness of its
 * own keeps it (e.g. `agent/<name>-events.jsonl`): each line holds the API's response object
 * (`{"object":"response","output":[…]}`, at the top of the line or under one of its keys) and
 * usually the request it answered (`{"model":…,"input":…}`, beside it or on a line of its own).
 * Detection is by that shape, never by the harness's name. A response's `output` items are the
 * agent's turn (calls, the API's own tools included, and messages); the results come back in a
 * later request's `input` as `*_call_output` items. A request chained to the previous response
 * holds only new items; one that repeats the history repeats its results in order, and those are
 * read once. A last response that failed or came back incomplete (or a last request refused
 * with no response) ends the record with the reason as the agent's error message, as the other
 * printed logs record a turn the agent could not complete.
 */
import type { PrintedItem } from "./agent-printed.js";
import { metadataResult, structuredResult } from "./json-result.js";
import { joinArgv, toolArguments } from "./shell.js";
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
  // the request logged on a line of its own, else beside its response under some key
  let request: P | undefined = "input" in row && typeof row.model === "string" ? row : undefined;
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
    if (++seen > 50) return false;
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
  return metadataResult(s) ?? structured ?? { output: s };
}

/** An API error's words: `code: message`, or the text it is. */
function errorOf(e: unknown): string | undefined {
  if (typeof e === "string") return e.trim() || undefined;
  const o = obj(e);
  const said = [str(o?.code)?.trim(), str(o?.message)?.trim()].filter((x) => x).join(": ");
  return said || undefined;
}

/** Why a response ended its turn unfinished, or undefined when it completed. */
function failure(response: P): string | undefined {
  const error = errorOf(response.error);
  if (error) return error;
  const status = str(response.status);
  if (status !== "failed" && status !== "incomplete") return undefined;
  const reason = str(obj(response.incomplete_details)?.reason);
  return `response ${status}${reason ? `: ${reason}` : ""}`;
}

/** A message item's text: its `output_text` parts, and a refusal's words. */
function messageText(content: unknown): string {
  const text = partsText(content);
  if (!Array.isArray(content)) return text;
  const refusals = content
    .map((p) => str(obj(p)?.refusal))
    .filter((r): r is string => r !== undefined && r.trim() !== "");
  return [text, ...refusals].filter((x) => x.trim()).join("\n");
}

/**
 * A call item of a response: a function or custom tool the harness defined, or one of the API's
 * own tools (`local_shell_call` / `shell_call` with the commands in `action`, `apply_patch_call`
 * with the file in `operation`, any other `*_call` with its arguments as given).
 */
function callOf(it: P, type: string): PrintedItem | undefined {
  const callId = str(it.call_id) ?? str(it.id);
  const id = callId ? { callId } : {};
  if (type === "function_call" || type === "custom_tool_call") {
    const tool = str(it.name);
    if (!tool) return undefined;
    const args = type === "function_call" ? toolArguments(it.arguments) : it.input;
    return { type: "call", tool, args: args ?? {}, ...id };
  }
  if (!type.endsWith("_call")) return undefined;
  // a hosted tool's own name (`mcp_call`'s `name`), else the item's type
  const tool = str(it.name) ?? type.slice(0, -"_call".length);
  const action = obj(it.action);
  const argv = action?.command;
  const commands = action?.commands;
  const command = Array.isArray(argv)
    ? joinArgv(argv.filter((w): w is string => typeof w === "string"))
    : Array.isArray(commands)
      ? commands.filter((c): c is string => typeof c === "string").join("\n")
      : undefined;
  const path = str(obj(it.operation)?.path);
  return {
    type: "call",
    tool,
    args: it.action ?? it.operation ?? it.input ?? toolArguments(it.arguments) ?? it.code ?? {},
    ...(command ? { command } : {}),
    ...(path ? { writes: [path] } : {}),
    ...id,
  };
}

/** The result of a call in a later request's input (`*_call_output`), its output read. */
function resultOf(it: P, type: string, tool: string | undefined): PrintedItem | undefined {
  const callId = str(it.call_id);
  if (!callId || !type.endsWith("_call_output")) return undefined;
  // a shell tool's output may be a list of per-command results ({stdout, stderr, outcome})
  const raw = it.output;
  let read = outputOf(raw);
  const parts = Array.isArray(raw) ? raw.map((r) => obj(r) ?? {}) : [];
  if (parts.length > 0 && parts.every((r) => "stdout" in r || "stderr" in r)) {
    const text = parts.flatMap((r) => [str(r.stdout), str(r.stderr)]).filter((x) => x);
    const codes = parts.map((r) => obj(r.outcome)?.exit_code).filter((c) => typeof c === "number");
    read = {
      output: text.join("\n"),
      ...(codes.length ? { exitCode: codes.at(-1) as number } : {}),
    };
  }
  return { type: "result", ...read, callId, ...(tool ? { tool } : {}) };
}

/**
 * Calls, results and the agent's messages of a Responses API exchange log; [] when it is not
 * one. A response's output is new on every line; of a request that repeats the history, the
 * n-th result of a call id is read once. A failed or cut-off response ends the record only
 * when no response came after it.
 */
export function responsesLogItems(text: string): PrintedItem[] {
  if (!isResponsesLog(text)) return [];
  const out: PrintedItem[] = [];
  // results read per call id: a request that repeats the history repeats them first
  const readOf = new Map<string, number>();
  const toolOf = new Map<string, string>();
  let lastFailure: string | undefined;
  for (const line of text.split("\n")) {
    const l = line.trim();
    if (!l.startsWith("{")) continue;
    const row = parsedObject(l);
    if (!row) continue;
    const { response, request } = exchange(row);
    const input = request?.input;
    // a request holds only new items unless it repeats the history: then it carries the
    // earlier calls themselves (the API needs each result's call in the request when no
    // previous response or conversation holds it), and the results it repeats were read in
    // order (the n-th result of a call id again is the same one, even trimmed since)
    const repeats =
      Array.isArray(input) &&
      request?.previous_response_id == null &&
      request?.conversation == null &&
      input.some((x) => {
        const t = str(obj(x)?.type);
        return t === "item_reference" || t?.endsWith("_call") === true;
      });
    const seen = new Map<string, number>();
    if (Array.isArray(input))
      for (const raw of input) {
        const it = obj(raw);
        const type = str(it?.type);
        if (!it || !type) continue;
        const r = resultOf(it, type, toolOf.get(str(it.call_id) ?? ""));
        if (r?.type !== "result" || !r.callId) continue;
        const nth = (seen.get(r.callId) ?? 0) + 1;
        seen.set(r.callId, nth);
        const read = readOf.get(r.callId) ?? 0;
        if (repeats && nth <= read) continue;
        readOf.set(r.callId, read + 1);
        out.push(r);
      }
    if (!response) {
      const why = request ? errorOf(row.error) : undefined;
      if (why) lastFailure = why;
      continue;
    }
    for (const raw of response.output as unknown[]) {
      const it = obj(raw);
      const type = str(it?.type);
      if (!it || !type) continue;
      if (type === "message") {
        if (it.role === "user") continue;
        const t = messageText(it.content);
        if (t.trim()) out.push({ type: "message", text: t });
        continue;
      }
      // a call the model did not finish (its arguments cut off) was never run
      if (it.status === "incomplete") continue;
      const call = callOf(it, type);
      if (call?.type !== "call") continue;
      if (call.callId) toolOf.set(call.callId, call.tool);
      out.push(call);
      // a hosted tool answered in the same item (`mcp_call`'s `output`, an `error`)
      const inline = str(it.output) ?? str(it.error);
      if (inline !== undefined && !type.startsWith("function") && !type.startsWith("custom"))
        out.push({
          type: "result",
          output: inline,
          tool: call.tool,
          ...(call.callId ? { callId: call.callId } : {}),
          ...(str(it.error) !== undefined ? { isError: true } : {}),
        });
    }
    lastFailure = failure(response);
  }
  if (lastFailure) out.push({ type: "message", text: `Error: ${lastFailure}` });
  return out;
}
