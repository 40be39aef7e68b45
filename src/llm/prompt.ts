import { FAMILIES } from "../core/families.js";
import type { DetectorHit } from "../core/mine/detectors/types.js";
import type { Attempt, Event } from "../core/model/attempt.js";
import { redact } from "../core/redact.js";
import { charsForTokens, estimateTokens } from "./tokens.js";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface PromptLimits {
  maxPromptTokens: number;
  promptShare: number;
  minPromptTokens: number;
}

export interface BuiltPrompt {
  messages: ChatMessage[];
  /** Estimated tokens of all messages (see tokens.ts). */
  promptTokens: number;
  /** Estimated tokens of the full trace text (task, verifier output, every event). */
  fullTokens: number;
  budgetTokens: number;
  /** Event indices shown to the model, ascending. */
  shownEvents: number[];
}

export const LABEL_SYSTEM_PROMPT = [
  "You label one FAILED coding-agent attempt for FIRE (failure-informed runtime engineering).",
  "Decide whether it is a procedural loss: the agent showed it could solve the task (capability",
  "evidence) but lost the result through procedure (e.g. stopped without checking, destroyed a",
  "working deployment, mutated evidence, let a service die with the session).",
  "Cite events only by the [index] shown. Fields: isProceduralLoss; capabilityEvidence",
  "[{eventIndex, why}]; preFailureState {eventIndex, description} (last good state) or null;",
  "mechanism (short noun phrase); interventionPoint prompt|tool|stop|none (where a runtime rule",
  "could have acted); exclusion none|provider_fault|verifier_fault|capability_gap|",
  "no_intervention_point; confidence 0..1; rationale (2-4 sentences).",
  `Known mechanism families: ${FAMILIES.join(", ")}.`,
  "Answer with one JSON object only.",
].join("\n");

/** Text kept from a long string: head and tail around a cut marker. */
export function headTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars < 40) return `${text.slice(0, Math.max(0, maxChars - 1))}…`;
  const head = Math.floor(maxChars * 0.4);
  const tail = maxChars - head - 24;
  return `${text.slice(0, head)}…[${text.length - head - tail} chars cut]…${text.slice(-tail)}`;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ⏎ ");
}

/** One event as a prompt line; `cap` bounds each free-text part (Infinity = full). */
export function renderEvent(ev: Event, cap: number): string {
  const parts: string[] = [`[${ev.index}] ${ev.kind}`];
  if (ev.role && ev.kind !== "tool_call" && ev.kind !== "tool_result") parts.push(ev.role);
  if (ev.tool) parts.push(ev.tool);
  if (ev.hook) parts.push(`hook ${ev.hook.event}${ev.hook.decision ? `=${ev.hook.decision}` : ""}`);
  let line = parts.join(" ");
  const body = ev.command ? `$ ${ev.command}` : (ev.input ?? ev.hook?.text);
  if (body) line += `: ${oneLine(headTail(redact(body), cap))}`;
  if (ev.writes?.length) line += ` writes=${ev.writes.join(",")}`;
  if (ev.exitCode !== undefined) line += ` exit=${ev.exitCode}`;
  if (ev.isError) line += " error";
  if (ev.output) line += ` → ${oneLine(headTail(redact(ev.output), cap))}`;
  return line;
}

/** The whole attempt as text: the denominator of the prompt-compression ratio. */
export function fullTraceText(attempt: Attempt): string {
  return [
    attempt.taskText,
    attempt.verifierOutput ?? "",
    ...attempt.events.map((ev) => renderEvent(ev, Number.POSITIVE_INFINITY)),
  ].join("\n");
}

export function promptBudget(fullTokens: number, limits: PromptLimits): number {
  const share = Math.floor(fullTokens * limits.promptShare);
  return Math.min(limits.maxPromptTokens, Math.max(limits.minPromptTokens, share));
}

/** Event positions (into attempt.events) in the order they deserve space. */
function priorityOrder(attempt: Attempt, hits: DetectorHit[]): number[] {
  const pos = new Map(attempt.events.map((ev, i) => [ev.index, i]));
  const n = attempt.events.length;
  const order: number[] = [];
  const seen = new Set<number>();
  const push = (p: number | undefined): void => {
    if (p === undefined || p < 0 || p >= n || seen.has(p)) return;
    seen.add(p);
    order.push(p);
  };
  const evidence = hits.flatMap((h) => h.eventIndices.map((i) => pos.get(i)));
  for (const p of evidence) push(p);
  for (let k = 1; k <= 6; k++) push(n - k);
  for (const p of evidence) if (p !== undefined) for (const d of [-1, 1, -2, 2]) push(p + d);
  for (let p = n - 7; p >= 0; p--) push(p);
  return order;
}

function section(title: string, body: string): string {
  return `## ${title}\n${body}\n`;
}

/**
 * The compact labelling prompt for one failed attempt. Never exceeds the budget
 * (by the chars/4 estimate): min(maxPromptTokens, max(minPromptTokens, share × full trace)).
 */
export function buildLabelPrompt(
  attempt: Attempt,
  hits: DetectorHit[],
  limits: PromptLimits,
): BuiltPrompt {
  const fullTokens = estimateTokens(fullTraceText(attempt));
  const budgetTokens = promptBudget(fullTokens, limits);
  const n = attempt.events.length;
  const header = `Attempt ${attempt.id} · task ${attempt.taskId} · outcome ${attempt.outcome}${
    attempt.reward != null ? ` · reward ${attempt.reward}` : ""
  }${attempt.exception ? ` · exception ${attempt.exception.type}` : ""} · ${n} events\n`;
  const fixed = estimateTokens(LABEL_SYSTEM_PROMPT) + estimateTokens(header) + 40;
  let left = Math.max(0, budgetTokens - fixed);

  const take = (text: string, share: number): string => {
    const chars = charsForTokens(Math.floor(left * share));
    const out = headTail(redact(text), chars);
    left -= estimateTokens(out) + 8;
    return out;
  };
  const task = section("Task", take(attempt.taskText, 0.2));
  const verifier = attempt.verifierOutput
    ? section("Verifier output (tail)", take(attempt.verifierOutput.slice(-4000), 0.15))
    : "";
  const hitLines = hits.map(
    (h) =>
      `- ${h.detectorId}${h.family ? ` (${h.family})` : ""}: ${redact(h.reason)} @ events ${h.eventIndices.join(", ")}`,
  );
  const evidence = hits.length ? section("Detector evidence", take(hitLines.join("\n"), 0.15)) : "";

  // Events: add by priority while the budget allows; each gets a per-event text cap.
  const chosen = new Map<number, string>();
  const evidenceSet = new Set(hits.flatMap((h) => h.eventIndices));
  for (const p of priorityOrder(attempt, hits)) {
    const ev = attempt.events[p];
    if (!ev) continue;
    const cap = evidenceSet.has(ev.index) ? 480 : 240;
    let line = renderEvent(ev, cap);
    let cost = estimateTokens(line) + 1;
    if (cost > left && left > 30) {
      line = headTail(line, charsForTokens(left - 2));
      cost = estimateTokens(line) + 1;
    }
    if (cost > left) continue;
    chosen.set(p, line);
    left -= cost + 6; // room for a possible "… k events omitted" gap line
  }
  const gap = (k: number): string => `… ${k} event${k === 1 ? "" : "s"} omitted`;
  const positions = [...chosen.keys()].sort((a, b) => a - b);
  const lines: string[] = [];
  let prev = -1;
  for (const p of positions) {
    if (p > prev + 1) lines.push(gap(p - prev - 1));
    lines.push(chosen.get(p) ?? "");
    prev = p;
  }
  if (prev < n - 1) lines.push(gap(n - 1 - prev));
  const events = section("Events ([index] kind …; … = omitted)", lines.join("\n"));

  const user = header + task + verifier + evidence + events;
  const messages: ChatMessage[] = [
    { role: "system", content: LABEL_SYSTEM_PROMPT },
    { role: "user", content: user },
  ];
  return {
    messages,
    promptTokens: messages.reduce((s, m) => s + estimateTokens(m.content), 0),
    fullTokens,
    budgetTokens,
    shownEvents: positions.map((p) => attempt.events[p]?.index ?? p),
  };
}
