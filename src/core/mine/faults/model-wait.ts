import type { Attempt } from "../../model/attempt.js";
import { isTimeout } from "../detectors/paths.js";
import { exceptionFile, excerpt, type Fault, resultFile } from "./types.js";

/*
 * Runs whose time limit ran out on the model: a model starved all along (its pace, its first
 * answer), and a model call the provider never answered (the harness's traceback says where the
 * run waited).
 */

/** A time as milliseconds since the epoch, and whether it was written with its offset. */
type Instant = { ms: number; zoned: boolean };

/** An ISO 8601 time's offset (`Z`, `+02:00`, `-0500`) at its end. */
const OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Milliseconds since the epoch of an ISO 8601 time (a space between date and time read as
 * `T`), and whether it carries its offset. One without is read as UTC here, so the reading
 * does not depend on the machine's time zone; a caller compares it only with another without.
 */
function isoTime(s: string | undefined): Instant | undefined {
  if (!s) return undefined;
  const t = s.trim().replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, "$1T");
  const zoned = OFFSET.test(t);
  const ms = Date.parse(zoned || !/T\d/.test(t) ? t : `${t}Z`);
  return Number.isNaN(ms) ? undefined : { ms, zoned };
}

/** The model's pace below which the provider, not the agent, held the run: output tokens a second. */
const STARVED_RATE = 1;
/**
 * A first answer slower than this (seconds) was held by the provider: nothing runs before a
 * model's first answer, and a healthy one starts within seconds.
 */
const SLOW_FIRST_ANSWER_S = 60;

/**
 * How long the model took for its first answer: from the task's prompt (its own time, else the
 * agent's start) to the first agent event. None when the trace cannot say: a time missing or in
 * another zone, a first answer at or after the last event (a trace stamped with one time), or a
 * wait longer than the whole run before the last event.
 */
function firstAnswer(
  a: Attempt,
  start: Instant,
  last: Instant,
): { event: Attempt["events"][number]; wait: number } | undefined {
  const event = a.events.find((e) => e.role === "agent" || e.kind === "tool_call");
  const at = isoTime(event?.ts);
  if (!event || !at || at.zoned !== start.zoned || at.ms >= last.ms) return undefined;
  const prompt = a.events.find((e) => e.kind === "prompt" && e.index < event.index);
  const given = isoTime(prompt?.ts);
  const from = given && given.zoned === start.zoned && given.ms >= start.ms ? given.ms : start.ms;
  const wait = (at.ms - from) / 1000;
  return wait > 0 && wait < (last.ms - start.ms) / 1000 ? { event, wait } : undefined;
}

/**
 * Seconds the trace shows tool calls running between the agent's start and `until`: each call's
 * time to its result (its result by call id, else the result right after it), overlapping calls
 * counted once. That time was the agent's own commands, not a wait on the model. A call or
 * result without a time, or in another zone, adds nothing (a format that stamps a call with its
 * step's start shows none).
 */
function toolTime(a: Attempt, start: Instant, until: Instant): number {
  const spans: [number, number][] = [];
  const results = new Map<string, Attempt["events"][number]>();
  for (const e of a.events) if (e.kind === "tool_result" && e.callId) results.set(e.callId, e);
  a.events.forEach((e, i) => {
    if (e.kind !== "tool_call") return;
    const next = a.events[i + 1];
    const result =
      (e.callId ? results.get(e.callId) : undefined) ??
      (next?.kind === "tool_result" && !next.callId ? next : undefined);
    const from = isoTime(e.ts);
    const to = isoTime(result?.ts);
    if (!from || !to || from.zoned !== start.zoned || to.zoned !== start.zoned) return;
    const lo = Math.max(from.ms, start.ms);
    const hi = Math.min(to.ms, until.ms);
    if (hi > lo) spans.push([lo, hi]);
  });
  spans.sort((x, y) => x[0] - y[0]);
  let total = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const [lo, hi] of spans) {
    const from = Math.max(lo, reach);
    if (hi > from) total += hi - from;
    reach = Math.max(reach, hi);
  }
  return total / 1000;
}

/**
 * The agent's time around the trace's last event: its start, the event's time, the seconds
 * before it and the silence after it to the end of `time`. None when either time is missing,
 * the two disagree on carrying an offset, or the event is not after the start.
 */
function aroundLastEvent(
  a: Attempt,
  last: Attempt["events"][number],
  time: number,
): { start: Instant; at: Instant; before: number; silence: number } | undefined {
  const start = isoTime(a.startedAt);
  const at = isoTime(last.ts);
  if (!start || !at || start.zoned !== at.zoned) return undefined;
  const before = (at.ms - start.ms) / 1000;
  if (before <= 0) return undefined;
  return { start, at, before, silence: (start.ms + time * 1000 - at.ms) / 1000 };
}

/**
 * The time limit ran out while the agent waited on a model that was starved all along: the
 * trace's last event is a finished tool result or the model's own reasoning (no call left
 * waiting for its result), the silence from it to the end of the agent's time is longer than
 * all of the agent's time before it, and before that silence the model had produced under one
 * output token a second (a healthy model writes tens). The pace is measured on the time the
 * trace covers less the time its tool calls ran (`toolTime`: a long build of the agent's own
 * is no wait on the model), not the whole run: a model that wrote at a healthy pace may be writing a long
 * last turn through the silence, and a format that records a call only when it finished (an
 * event stamped with its step's start) cannot show a command still running at the end. So a
 * model that stalled after a fast start is not read here: the trace alone cannot tell that
 * stall from a long turn of its own (`modelStoppedAnswering` reads it from the harness's
 * traceback). The agent's time is its start and its duration (a Harbor trial's agent execution,
 * no longer than the limit its exception states); both times must carry an offset, or neither.
 * Evidence: the run and the last event.
 */
export function waitedOnTheModel(a: Attempt): Fault | undefined {
  if (a.outcome === "pass" || !isTimeout(a)) return undefined;
  const last = a.events.at(-1);
  if (!last || (last.kind !== "tool_result" && last.kind !== "reasoning")) return undefined;
  const output = a.tokens?.output;
  const time = agentTime(a);
  if (output === undefined || time === undefined) return undefined;
  const around = aroundLastEvent(a, last, time);
  if (!around) return undefined;
  const { start, at, before, silence } = around;
  // the pace while the trace shows the agent waiting on the model (completed turns only
  // count): its time before the last event less the time its tool calls ran
  const ran = toolTime(a, start, at);
  const waited = before - ran;
  if (waited <= 0) return undefined;
  const rate = output / waited;
  if (rate >= STARVED_RATE) return undefined;
  // the model's first answer: nothing ran before it, so all of its wait was the model's
  const answer = firstAnswer(a, start, at);
  const first = answer && silence >= 0 && answer.wait > SLOW_FIRST_ANSWER_S ? answer : undefined;
  const silent = silence > before;
  if (!silent && !first) return undefined;
  // the silence says it when it can; a slow first answer only when it is all there is
  const slow = silent ? undefined : first;
  const pace = `${output} output tokens in the ${Math.round(before)} s before its last event${ran >= 1 ? `, ${Math.round(waited)} s of it outside its tool calls` : ""} (${rate.toFixed(2)} a second)`;
  const how = slow
    ? `its first answer took ${Math.round(slow.wait)} s, and it wrote ${pace}; the last ${Math.round(silence)} s of ${Math.round(time)} s passed without another`
    : `${pace}, then nothing for the last ${Math.round(silence)} s of ${Math.round(time)} s`;
  return {
    reason: "provider_fault",
    code: "model-never-answered",
    detail: `the time limit ran out while the agent waited on a starved model: ${how}`,
    evidence: [
      {
        file: resultFile(a),
        excerpt: excerpt(
          `the agent's ${Math.round(time)} s ran out ${Math.round(silence)} s after its last recorded event${a.exception ? ` (${a.exception.type})` : ""}; ${output} output tokens`,
        ),
      },
      ...(slow
        ? [
            {
              ...(a.agentEnd?.file ? { file: a.agentEnd.file } : {}),
              eventIndex: slow.event.index,
              excerpt: excerpt(
                `first answer: ${slow.event.kind} at ${slow.event.ts}, ${Math.round(slow.wait)} s in`,
              ),
            },
          ]
        : []),
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

/**
 * Packages that only carry a call (event loops, HTTP clients, retries, thread pools, the standard
 * library's plumbing): a frame in one says nothing about what the run waited on. The frame
 * inside them that called them does.
 */
const CARRIER =
  /^(?:asyncio|aiohttp|httpx|httpcore|anyio|trio|tenacity|backoff|concurrent|urllib3|requests|h11|h2|multidict|yarl|pydantic|pydantic_core|selectors\.py|socket\.py|ssl\.py|threading\.py|contextlib\.py|functools\.py|subprocess\.py)(?:[/:]|$)/;

/**
 * A module of a model call: an LLM client package (`litellm/…`, `openai/…`, `anthropic/…`).
 * Judged on the module's path, never on function names (an agent's `_handle_llm_interaction`
 * also runs its commands), nor on a harness's own folders (a folder named `llm` may hold a
 * sandbox's code).
 */
const MODEL_MODULE =
  /^(?:litellm|openai|anthropic|vertexai|mistralai|cohere|groq)\/|^google\/genai\//;

/**
 * The innermost frame reads a response off the wire (a stream's or socket's read, a response's
 * status line): the request had gone out and its answer had not come. Not a name lookup, a
 * connection being opened or a back-off sleep between retries.
 */
const READING_RESPONSE =
  /:(?:read\w*|recv\w*|_?receive\w*|_wait_for_data|_read_status|begin|start|readinto|readline)$/;

/**
 * The module the run waited in when it was stopped: the innermost frame of the cancellation
 * that is no carrier.
 */
function waitedIn(frames: readonly string[]): string | undefined {
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i];
    if (f && !CARRIER.test(f)) return f;
  }
  return undefined;
}

/** A time limit a harness's exception states ("timed out after 600.0 seconds"), in seconds. */
function statedLimit(a: Attempt): number | undefined {
  const m = /\btimed out after (\d{1,7}(?:\.\d{1,3})?) ?s(?:ec(?:ond)?s?)?\b/i.exec(
    a.exception?.message ?? "",
  );
  const s = m?.[1] ? Number(m[1]) : undefined;
  return s !== undefined && s > 0 ? s : undefined;
}

/**
 * The agent's own time: its recorded duration, but no more than the limit its harness's
 * exception states (a run recorded as longer than its limit also counted time the harness did
 * not: a host asleep, a slow cancellation).
 */
function agentTime(a: Attempt): number | undefined {
  if (a.durationS === undefined || a.durationS <= 0) return undefined;
  const limit = statedLimit(a);
  return limit !== undefined ? Math.min(a.durationS, limit) : a.durationS;
}

/** How many times its slowest recorded turn the model must have been silent for a stall. */
const STALL_FACTOR = 10;

/**
 * The longest the trace shows the agent waiting for a turn: the largest gap between the
 * times of consecutive agent turns (its start first). A gap holds the model's answer and the
 * commands of the turn before, so this bounds the model's slowest answer from above.
 */
function slowestTurn(a: Attempt, start: Instant): number | undefined {
  let prev = start.ms;
  let most = 0;
  for (const e of a.events) {
    if (e.role !== "agent" || e.kind === "tool_result") continue;
    const t = isoTime(e.ts);
    if (!t || t.zoned !== start.zoned) return undefined;
    if (t.ms > prev) {
      most = Math.max(most, (t.ms - prev) / 1000);
      prev = t.ms;
    }
  }
  return most > 0 ? most : undefined;
}

/**
 * The time limit ran out on a model call the provider never answered, after a model that had
 * answered at its own pace before: the harness's traceback says the run was cancelled waiting
 * for a model's response (the innermost module that is no carrier is an LLM client's, and the
 * innermost frame reads a response: the request had gone out), and the silence from the trace's
 * last event to the end of the agent's time is longer than all of the agent's time before it
 * and than ten times the slowest turn the trace records. A model writing a long last turn at its
 * own pace would have answered well within that; a slow model (one turn of minutes) is not read
 * here. A trial whose clock ran well past its stated limit says so in the detail: the host may
 * have dropped the call as well. Evidence: the traceback's frames and the last event.
 */
export function modelStoppedAnswering(a: Attempt): Fault | undefined {
  if (a.outcome === "pass" || !isTimeout(a)) return undefined;
  const frames = a.exception?.stoppedIn;
  const call = frames ? waitedIn(frames) : undefined;
  const time = agentTime(a);
  if (!frames || !call || !MODEL_MODULE.test(call) || time === undefined) return undefined;
  if (!READING_RESPONSE.test(frames.at(-1) ?? "")) return undefined;
  const last = a.events.at(-1);
  const around = last ? aroundLastEvent(a, last, time) : undefined;
  if (!last || !around) return undefined;
  const { before, silence } = around;
  const slowest = slowestTurn(a, around.start);
  if (slowest === undefined) return undefined;
  if (silence <= before || silence <= STALL_FACTOR * slowest) return undefined;
  const limit = statedLimit(a);
  const overran =
    limit !== undefined && a.durationS !== undefined && a.durationS > limit * 1.1
      ? ` (the trial's clock ran ${Math.round(a.durationS - limit)} s past its ${Math.round(limit)} s limit: the host may have held the call too)`
      : "";
  return {
    reason: "provider_fault",
    code: "model-never-answered",
    detail: `the time limit ran out inside a model call that had not answered for ${Math.round(silence)} s of the agent's ${Math.round(time)} s, after ${Math.round(before)} s in which no turn took over ${Math.round(slowest)} s${overran}`,
    evidence: [
      {
        file: exceptionFile(a),
        excerpt: excerpt(
          `${a.exception?.type ?? "stopped"}; cancelled waiting in ${call} (innermost: ${frames.at(-1)})`,
        ),
      },
      {
        ...(a.agentEnd?.file ? { file: a.agentEnd.file } : {}),
        eventIndex: last.index,
        excerpt: excerpt(
          `last event: ${last.kind}${last.tool ? ` ${last.tool}` : ""} at ${last.ts}; the agent's ${Math.round(time)} s ran out ${Math.round(silence)} s later`,
        ),
      },
    ],
  };
}
