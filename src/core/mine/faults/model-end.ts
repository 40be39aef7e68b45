import type { Attempt } from "../../model/attempt.js";
import { isTimeout } from "../detectors/paths.js";
import { excerpt, type Fault, resultFile } from "./types.js";

/*
 * Runs that ended on the model itself: a final response that arrived corrupted, and a time
 * limit that ran out while the agent waited on a model starved all along. (A response cut off
 * or empty, and a failed last request, are read in harness.ts with the other final-turn faults.)
 */

/** A NUL character: no model writes one; a response that carries them arrived corrupted. */
const NUL = "\u0000";

/**
 * The agent's texts (messages, reasoning) after its last tool call or result: the model's
 * final response as the trace keeps it, with the event each came from.
 */
function finalTurnTexts(a: Attempt): { index: number; text: string }[] {
  const out: { index: number; text: string }[] = [];
  for (let i = a.events.length - 1; i >= 0; i--) {
    const e = a.events[i];
    if (!e) continue;
    if (e.kind === "stop" || e.kind === "hook") continue;
    if ((e.kind === "message" || e.kind === "reasoning") && e.role === "agent") {
      out.push({ index: e.index, text: e.input ?? "" });
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
  if (!hit) return undefined;
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

/** An ISO 8601 time's offset (`Z`, `+02:00`, `-0500`) at its end. */
const OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Milliseconds since the epoch of an ISO 8601 time (a space between date and time read as
 * `T`), and whether it carries its offset. One without is read as UTC here, so the reading
 * does not depend on the machine's time zone; a caller compares it only with another without.
 */
function isoTime(s: string | undefined): { ms: number; zoned: boolean } | undefined {
  if (!s) return undefined;
  const t = s.trim().replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, "$1T");
  const zoned = OFFSET.test(t);
  const ms = Date.parse(zoned || !/T\d/.test(t) ? t : `${t}Z`);
  return Number.isNaN(ms) ? undefined : { ms, zoned };
}

/** The model's pace below which the provider, not the agent, held the run: output tokens a second. */
const STARVED_RATE = 1;

/**
 * The time limit ran out while the agent waited on a model that was starved all along: the
 * trace's last event is a finished tool result or the model's own reasoning (no call left
 * waiting for its result), the silence from it to the end of the agent's time is longer than
 * all of the agent's time before it, and before that silence the model had produced under one
 * output token a second (a healthy model writes tens). The pace is measured on the time the
 * trace covers, not the whole run: a model that wrote at a healthy pace may be writing a long
 * last turn through the silence, and a format that records a call only when it finished (an
 * event stamped with its step's start) cannot show a command still running at the end. So a
 * model that stalled after a fast start is not read here: the trace alone cannot tell that
 * stall from a long turn of its own. The agent's time is its start and its duration (a Harbor
 * trial's agent execution); both times must carry an offset, or neither. Evidence: the run and
 * the last event.
 */
export function waitedOnTheModel(a: Attempt): Fault | undefined {
  if (a.outcome === "pass" || !isTimeout(a)) return undefined;
  const last = a.events.at(-1);
  if (!last || (last.kind !== "tool_result" && last.kind !== "reasoning")) return undefined;
  const output = a.tokens?.output;
  if (output === undefined || a.durationS === undefined || a.durationS <= 0) return undefined;
  const start = isoTime(a.startedAt);
  const at = isoTime(last.ts);
  if (!start || !at || start.zoned !== at.zoned) return undefined;
  const end = start.ms + a.durationS * 1000;
  const silence = (end - at.ms) / 1000;
  const before = (at.ms - start.ms) / 1000;
  if (before <= 0 || silence <= before) return undefined;
  // the pace while the trace shows the agent at work (completed turns only count)
  const rate = output / before;
  if (rate >= STARVED_RATE) return undefined;
  return {
    reason: "provider_fault",
    code: "model-never-answered",
    detail: `the time limit ran out while the agent waited on a starved model: ${output} output tokens in the ${Math.round(before)} s before its last event (${rate.toFixed(2)} a second), then nothing for the last ${Math.round(silence)} s of ${Math.round(a.durationS)} s`,
    evidence: [
      {
        file: resultFile(a),
        excerpt: excerpt(
          `the agent's ${Math.round(a.durationS)} s ran out ${Math.round(silence)} s after its last recorded event${a.exception ? ` (${a.exception.type})` : ""}; ${output} output tokens`,
        ),
      },
      {
        ...(a.agentEnd?.file ? { file: a.agentEnd.file } : {}),
        eventIndex: last.index,
        excerpt: excerpt(
          `last event: ${last.kind}${last.tool ? ` ${last.tool}` : ""} at ${last.ts}`,
        ),
      },
    ],
  };
}
