import type { Attempt } from "../../model/attempt.js";
import { isTimeout, stepLimitReached } from "../detectors/paths.js";
import { excerpt, type Fault } from "./types.js";

/*
 * Runs that ended on a model response that arrived corrupted. (A time limit that ran out on the
 * model is read in model-wait.ts; a response cut off or empty, and a failed last request, in
 * harness.ts with the other final-turn faults.)
 */

/** A NUL character: no model writes one; a response that carries them arrived corrupted. */
const NUL = "\u0000";

/**
 * The agent's texts (messages, reasoning) after its last tool call or result: the model's
 * final response as the trace keeps it, with the event each came from.
 */
function finalTurnTexts(a: Attempt): { index: number; text: string; kind: string }[] {
  const out: { index: number; text: string; kind: string }[] = [];
  for (let i = a.events.length - 1; i >= 0; i--) {
    const e = a.events[i];
    if (!e) continue;
    if (e.kind === "stop" || e.kind === "hook") continue;
    if ((e.kind === "message" || e.kind === "reasoning") && e.role === "agent") {
      out.push({ index: e.index, text: e.input ?? "", kind: e.kind });
      continue;
    }
    break;
  }
  return out.reverse();
}

/**
 * The final model response arrived corrupted: its text carries NUL characters, which no
 * model writes (a broken decoder or transport on the provider's side), and the run ended on
 * it — the harness took the garbled text for the end of the turn. Evidence: the event.
 */
export function corruptedFinalResponse(a: Attempt): Fault | undefined {
  if (a.outcome === "pass") return undefined;
  const hit = finalTurnTexts(a).find((t) => t.text.includes(NUL));
  if (!hit) return emptyAfterCorruption(a);
  const count = hit.text.split(NUL).length - 1;
  const readable = hit.text.replaceAll(NUL, "").trim();
  return {
    reason: "provider_fault",
    code: "corrupted-model-response",
    detail: `the final model response arrived corrupted (${count} NUL character(s) in its text) and the run ended on it`,
    evidence: [
      {
        ...(a.agentEnd?.file ? { file: a.agentEnd.file } : {}),
        eventIndex: hit.index,
        excerpt: excerpt(
          `final turn: ${count} NUL character(s)${readable ? `; readable text: "${readable.slice(0, 100)}"` : ""}`,
        ),
      },
    ],
  };
}

/**
 * JSON's escape of a NUL (`\u0000` after an even run of backslashes: an odd run would be a
 * backslash the model wrote, then the text `u0000`). Linear: it starts only after a non-backslash.
 */
const ESCAPED_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;

/** A NUL in a model's text, or in its tool call's arguments as stored (JSON's escape of it). */
const carriesNul = (e: Attempt["events"][number]): boolean => {
  const text = e.input ?? "";
  return text.includes(NUL) || (e.kind === "tool_call" && ESCAPED_NUL.test(text));
};

/** Output tokens a blank response cannot have cost: the provider billed text it never sent. */
const BILLED_BLANK = 100;

/**
 * The run ended on a response that delivered nothing (its messages blank, no tool call) yet was
 * billed at least a hundred output tokens beyond what its reasoning text shows, from a model
 * whose output in this run had already arrived corrupted (a NUL in a text of its own or in a tool call's arguments): the provider's
 * broken output, not a choice to stop. A blank end alone is not read (a model may stop with
 * nothing to say), nor one whose cost is unknown. Evidence: the corrupted event and the final
 * turn.
 */
function emptyAfterCorruption(a: Attempt): Fault | undefined {
  const turn = finalTurnTexts(a);
  const messages = turn.filter((t) => t.kind === "message");
  if (messages.length === 0 || messages.some((t) => t.text.trim() !== "")) return undefined;
  if (a.agentEnd?.toolCalls !== undefined && a.agentEnd.toolCalls > 0) return undefined;
  const billed = a.agentEnd?.outputTokens;
  // what the final turn's reasoning cost (its text, about four characters a token) is no loss
  const reasoned = turn
    .filter((t) => t.kind === "reasoning")
    .reduce((n, t) => n + Math.ceil(t.text.length / 4), 0);
  if (billed === undefined || billed - reasoned < BILLED_BLANK) return undefined;
  const bad = a.events.find((e) => (e.role === "agent" || e.kind === "tool_call") && carriesNul(e));
  const end = messages.at(-1);
  if (!bad || !end) return undefined;
  return {
    reason: "provider_fault",
    code: "corrupted-model-response",
    detail: `the run ended on a blank response billed ${billed} output tokens from a model whose output had arrived corrupted (a NUL character in its ${bad.kind === "tool_call" ? `${bad.tool ?? "tool"} call's arguments` : bad.kind})`,
    evidence: [
      {
        ...(a.agentEnd?.file ? { file: a.agentEnd.file } : {}),
        eventIndex: bad.index,
        excerpt: excerpt(`${bad.kind}${bad.tool ? ` ${bad.tool}` : ""} with a NUL character`),
      },
      {
        ...(a.agentEnd?.file ? { file: a.agentEnd.file } : {}),
        eventIndex: end.index,
        excerpt: excerpt(`final turn: blank text, no tool call, ${billed} output tokens`),
      },
    ],
  };
}

/**
 * A tool call written in a model's own markup, as its serving stack should have parsed it into
 * a call: Hermes and Qwen (`<tool_call>`), Gemma (`<|tool_call>`), DeepSeek (`<｜tool▁call…`),
 * Kimi (`<|tool_call_begin|>`), Mistral (`[TOOL_CALLS]`), Qwen3-Coder (`<function=name>`).
 * Each alternative starts with a fixed token: linear.
 */
const NATIVE_CALL =
  /<\|?tool_call(?:s_section_begin|_begin)?\|?>|<｜tool▁calls?▁begin｜>|\[TOOL_CALLS\]|<function=[\w.-]+>/;

/**
 * The tool a call in such markup names, right after its marker: Gemma's `call:NAME{`,
 * Qwen3-Coder's `<function=NAME>`, Hermes' `{"name": "NAME"`, Kimi's
 * `<|tool_call_begin|>functions.NAME:`, DeepSeek's `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`,
 * Mistral's `[TOOL_CALLS]NAME` or `[TOOL_CALLS][{"name": "NAME"`. Anchored; bounded repeats.
 */
const CALLED_NAME =
  /^\s{0,8}(?:<\|tool_call_begin\|>|<｜tool▁call▁begin｜>function)?\s{0,8}(?:call:|<function=|\{\s{0,8}"name"\s{0,8}:\s{0,8}"|functions\.|<｜tool▁sep｜>|\[\s{0,8}\{\s{0,8}"name"\s{0,8}:\s{0,8}")?([A-Za-z_][\w-]{0,63})/;

/** A message's text without the reasoning a model leaked into it (`<think>…</think>`). */
function withoutThinking(text: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const open = text.indexOf("<think>", from);
    if (open === -1) return out + text.slice(from);
    out += text.slice(from, open);
    const close = text.indexOf("</think>", open);
    if (close === -1) return out;
    from = close + "</think>".length;
  }
}

/** The tool a message that is nothing but a call in a model's own markup calls. */
function markupCall(text: string): { name: string; call: string } | undefined {
  const t = withoutThinking(text).trim();
  const m = NATIVE_CALL.exec(t);
  if (m?.index !== 0) return undefined;
  const fn = /^<function=([\w.-]+)>/.exec(m[0]);
  const name = fn?.[1] ?? CALLED_NAME.exec(t.slice(m[0].length, m[0].length + 200))?.[1];
  return name ? { name, call: t } : undefined;
}

/**
 * The run ended on a tool call the model wrote in its own markup that reached the harness as
 * text — its last message is nothing but that call (leaked `<think>` reasoning aside; markup
 * quoted in a summary or a code fence is no call): the serving stack did not parse it into a call, and the harness took the text for the
 * model's final answer (no call follows; the run had made calls before, so tools were offered
 * and parsed until then), to a tool the run had called before. The provider's failure, not the
 * agent's choice to stop; a call to a tool the run never had (an `editor` where the agent has
 * `read`) is the model's own slip, whatever the stack did with it. A harness
 * that reads actions from text (one command block per reply) answers such a reply with a
 * format error and goes on, so a run that ended on it was not read that way; a run a time or
 * step limit ended did not end on the response. Evidence: the final turn's text.
 */
export function unparsedToolCall(a: Attempt): Fault | undefined {
  // a run a limit cut off did not end on the response: the limit ended it
  if (a.outcome === "pass" || isTimeout(a) || stepLimitReached(a)) return undefined;
  if (!a.events.some((e) => e.kind === "tool_call")) return undefined;
  const last = finalTurnTexts(a).findLast((t) => t.kind === "message" && t.text.trim() !== "");
  const found = last ? markupCall(last.text) : undefined;
  if (!last || !found) return undefined;
  // a tool the run had called before: a call to one it never had is the model's own slip
  const called = new Set(
    a.events.filter((e) => e.kind === "tool_call").map((e) => (e.tool ?? "").toLowerCase()),
  );
  if (!called.has(found.name.toLowerCase())) return undefined;
  return {
    reason: "provider_fault",
    code: "unparsed-tool-call",
    detail:
      "the run ended on a tool call the model wrote in its own markup, delivered as text: the serving stack did not parse it, and the harness took it for the final answer",
    evidence: [
      {
        ...(a.agentEnd?.file ? { file: a.agentEnd.file } : {}),
        eventIndex: last.index,
        excerpt: excerpt(`final turn: ${found.call.slice(0, 160)}`),
      },
    ],
  };
}
