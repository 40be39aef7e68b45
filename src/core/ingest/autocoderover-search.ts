/**
 * The search stage of an AutoCodeRover (v1) trial as events. ACR's model names search API
 * calls in its own words; a proxy model turns them into calls, which ACR dispatches and
 * records in `tool_call_sequence.json` (name, parsed arguments, `call_ok`), one layer per
 * conversation round (`tool_call_layers.json`). The conversation (`conversation_round_<k>.json`,
 * the highest k the whole stage) holds what came back, as user messages:
 * - `Result of <call>:\n<output>\n\n`, once per call of the round, in one message;
 * - `Here are the code in buggy locations:\n` and the output of each location's search
 *   (a location is searched by up to five calls, the first that finds it ends the list);
 * - "The buggy locations is not precise. …" when a location's search found nothing (the
 *   outputs are then not shown);
 * - "The search API calls seem not valid. …" when the proxy made no calls.
 */
import type { AcrConversation, AcrToolCall } from "./autocoderover-schema.js";
import type { EventLog } from "./events.js";
import { partsText } from "./text.js";

const RESULT_HEADER = /(?:^|\n)Result of (\w+)\(/g;
const BUG_LOCATIONS = "Here are the code in buggy locations:";
const IMPRECISE = /^The buggy locations is not precise\b/;
/** Each found search output starts so (`Found 1 methods with name …`). */
const FOUND = /^Found \d+ /gm;

/** A cursor over the recorded calls, with the round (layer) each one belongs to. */
class Calls {
  private at = 0;
  /** Index just past each layer's last call. */
  private readonly ends: number[];

  constructor(
    private readonly calls: readonly AcrToolCall[],
    layers: readonly (readonly AcrToolCall[])[] | undefined,
  ) {
    const ends: number[] = [];
    let n = 0;
    for (const l of layers ?? []) {
      n += l.length;
      ends.push(n);
    }
    // layers that do not add up to the sequence say nothing about it
    this.ends = n === calls.length ? ends : [];
  }

  /** The next call, when it has this name (then it is consumed). */
  take(name: string): AcrToolCall | undefined {
    const c = this.calls[this.at];
    if (c?.func_name !== name) return undefined;
    this.at++;
    return c;
  }

  /** The rest of the current round's calls (without layers: every search call left). */
  restOfRound(): AcrToolCall[] {
    const end =
      this.ends.find((e) => e > this.at) ??
      this.calls.findIndex((c, i) => i >= this.at && c.func_name === "write_patch");
    const stop = end === -1 ? this.calls.length : end;
    const out = this.calls.slice(this.at, stop).filter((c) => c.func_name !== "write_patch");
    this.at += out.length;
    return out;
  }
}

/** The `Result of …` sections of a message: call name, the invocation as printed, output. */
export function resultSections(text: string): { name: string; call: string; output: string }[] {
  const heads = [...text.matchAll(RESULT_HEADER)].map((m) => ({
    name: m[1] ?? "",
    start: (m.index ?? 0) + (m[0].startsWith("\n") ? 1 : 0),
  }));
  return heads.map((h, i) => {
    const end = heads[i + 1]?.start ?? text.length;
    const section = text.slice(h.start, end);
    const close = section.indexOf("):\n");
    const headEnd = close === -1 ? section.indexOf("\n") : close + 2;
    const call = section.slice("Result of ".length, headEnd === -1 ? section.length : headEnd);
    const output = headEnd === -1 ? "" : section.slice(headEnd + 1).replace(/\n+$/, "");
    return { name: h.name, call: call.replace(/:$/, ""), output };
  });
}

/** The outputs of a bug-location message, one per location, when they can be told apart. */
function locationOutputs(body: string, found: number): string[] | undefined {
  const starts = [...body.matchAll(FOUND)].map((m) => m.index ?? 0);
  if (starts.length !== found || found === 0 || starts[0] !== 0) return undefined;
  return starts.map((s, i) => body.slice(s, starts[i + 1] ?? body.length).replace(/\n+$/, ""));
}

export interface SearchStage {
  /** The issue, as the first user message holds it (`<issue>…</issue>`). */
  issue: string;
  /** How many search calls were read. */
  calls: number;
}

/**
 * The search stage's events: the system prompt, the issue as the prompt, the model's
 * messages, each dispatched call with its own name and arguments, and what came back to it.
 */
export function searchEvents(
  conversation: AcrConversation,
  sequence: readonly AcrToolCall[],
  layers: readonly (readonly AcrToolCall[])[] | undefined,
  log: EventLog,
): SearchStage {
  const calls = new Calls(sequence, layers);
  let issue = "";
  let prompted = false;
  let n = 0;
  const call = (name: string, args: unknown): string => {
    const callId = `acr-${n++}`;
    log.call({ tool: name, args, callId });
    return callId;
  };
  for (const m of conversation) {
    const text = partsText(m.content ?? "");
    if (m.role === "system") {
      log.text("message", "system", text);
      continue;
    }
    if (m.role === "assistant") {
      log.text("message", "agent", text.trim());
      continue;
    }
    if (m.role !== "user") {
      log.text("message", "system", text);
      continue;
    }
    if (!prompted) {
      prompted = true;
      issue = /<issue>([\s\S]*?)<\/issue>/.exec(text)?.[1]?.trim() ?? text.trim();
      log.text("prompt", "user", text);
      continue;
    }
    const sections = text.startsWith("Result of ") ? resultSections(text) : [];
    if (sections.length > 0) {
      for (const s of sections) {
        const recorded = calls.take(s.name);
        const id = call(s.name, recorded ? (recorded.arguments ?? {}) : { call: s.call });
        log.result({
          output: s.output,
          callId: id,
          isError: recorded?.call_ok === false ? true : undefined,
        });
      }
      continue;
    }
    if (text.startsWith(BUG_LOCATIONS)) {
      const round = calls.restOfRound();
      const body = text.slice(BUG_LOCATIONS.length).replace(/^\n/, "");
      const found = round.filter((c) => c.call_ok !== false);
      const outputs = locationOutputs(body, found.length);
      let k = 0;
      let last: string | undefined;
      for (const c of round) {
        last = call(c.func_name, c.arguments ?? {});
        // a search that found nothing was followed by the next one for its location: the
        // model never saw its output
        if (outputs && c.call_ok !== false)
          log.result({ output: outputs[k++] ?? "", callId: last });
      }
      if (!outputs) {
        if (last) log.result({ output: body, callId: last });
        else log.text("message", "user", text);
      }
      continue;
    }
    if (IMPRECISE.test(text)) {
      // the locations' searches ran, and the harness answered them all with this
      let last: string | undefined;
      for (const c of calls.restOfRound()) last = call(c.func_name, c.arguments ?? {});
      if (last) log.result({ output: text, callId: last, isError: true });
      else log.text("message", "user", text);
      continue;
    }
    log.text("message", "user", text);
  }
  return { issue, calls: n };
}

/** The prompt message that lists the search APIs, one `name(arguments): …` per line. */
const API_LIST = /\bsearch APIs?\b/i;
const API_LINE = /^\s*([A-Za-z_]\w*)\(/gm;

/**
 * The tools the agent was offered: the search APIs its prompt lists (one per line,
 * `search_class(class_name: str): …`), and `write_patch`, the patch stage every ACR run ends
 * with. Empty when no message lists them (then nothing is known of the offer).
 */
export function offeredTools(conversation: AcrConversation): string[] {
  const names = new Set<string>();
  for (const m of conversation) {
    if (m.role !== "user") continue;
    const text = partsText(m.content ?? "");
    if (!API_LIST.test(text)) continue;
    for (const x of text.matchAll(API_LINE)) if (x[1]) names.add(x[1]);
  }
  return names.size > 0 ? [...names, "write_patch"] : [];
}
