import { BadRequestError, UnprocessableEntityError } from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import type { LlmSession } from "./client.js";
import type { ChatMessage } from "./prompt.js";
import { describeError } from "./retry.js";
import { openAiJsonSchema } from "./schema.js";
import type { StructuredSpec } from "./spec.js";
import { estimateTokens } from "./tokens.js";
import { withCall } from "./transport.js";

interface Format {
  json_schema: { name: string; schema: Record<string, unknown>; strict: boolean };
}

/**
 * The response format for a spec: the SDK's own `zodResponseFormat` (zod 4 → strict JSON
 * schema) where strict mode can express the schema; a schema it refuses (optional fields,
 * which strict mode cannot have, e.g. a candidate's `$schema`) is sent non-strict from zod's
 * own JSON Schema, and zod still validates every answer. Memoised per schema.
 */
function responseFormatOf(spec: StructuredSpec<unknown>): Format {
  let format = formats.get(spec.schema);
  if (!format) {
    try {
      const f = zodResponseFormat(spec.schema, spec.name);
      format = {
        json_schema: {
          name: f.json_schema.name,
          schema: f.json_schema.schema ?? {},
          strict: f.json_schema.strict ?? true,
        },
      };
    } catch {
      format = {
        json_schema: { name: spec.name, schema: openAiJsonSchema(spec.schema), strict: false },
      };
    }
    formats.set(spec.schema, format);
  }
  return format;
}
const formats = new WeakMap<object, Format>();

/** The request body for one chat completion in the session's current output mode. */
export function completionBody(
  session: LlmSession,
  spec: StructuredSpec<unknown>,
  messages: ChatMessage[],
) {
  const format = responseFormatOf(spec);
  if (session.outputMode === "json_schema") {
    return {
      model: session.config.model,
      messages,
      max_completion_tokens: session.config.maxOutputTokens,
      response_format: { type: "json_schema" as const, json_schema: format.json_schema },
    };
  }
  // Servers without structured output: JSON mode, the same schema as an instruction.
  const hint: ChatMessage = {
    role: "system",
    content: `Reply with a single JSON object valid against this JSON Schema:\n${JSON.stringify(format.json_schema.schema)}`,
  };
  return {
    model: session.config.model,
    messages: [...messages, hint],
    max_completion_tokens: session.config.maxOutputTokens,
    response_format: { type: "json_object" as const },
  };
}

export type Usage = { promptTokens: number; completionTokens: number };
export type Sent =
  | { ok: true; text: string; usage: Usage }
  | { ok: false; reason: string; stopped: boolean };

/** A 400/422 about response_format: the server lacks JSON-schema output (other 400s are real errors). */
function rejectsStructuredOutput(err: unknown): boolean {
  if (!(err instanceof BadRequestError || err instanceof UnprocessableEntityError)) return false;
  return /response_format|json_schema|schema|structured/i.test(`${err.param ?? ""} ${err.message}`);
}

/** What a chat completion answer must hold before fire reads it (a server may send anything). */
const Completion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
        }),
      }),
    )
    .min(1),
  usage: z
    .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .nullish(),
});

/** Rejects as soon as `signal` aborts, so a wait inside the SDK never outlives an abort. */
function untilAborted(signal: AbortSignal): { promise: Promise<never>; done: () => void } {
  let onAbort: () => void = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason ?? new Error("aborted"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => {});
  return { promise, done: () => signal.removeEventListener("abort", onAbort) };
}

/**
 * One chat completion: budget, the SDK's retries (through fire's bounded transport), a total
 * deadline for the whole request (retries, waits and the body: a server that drips its answer
 * is cut off), the run's wall-clock budget, and the json_schema → json_object fallback.
 */
export async function send(
  session: LlmSession,
  spec: StructuredSpec<unknown>,
  messages: ChatMessage[],
  id: string,
): Promise<Sent> {
  const { config, report, budget } = session;
  const estimate = messages.reduce((s, m) => s + estimateTokens(m.content), 0);
  const deadline = AbortSignal.timeout(config.requestDeadlineMs);
  const signal = AbortSignal.any(
    [session.signal, session.runDeadline, deadline].filter((x): x is AbortSignal => !!x),
  );
  for (;;) {
    const halted = haltedRun(session);
    if (halted) return halted;
    const reservation = budget.reserve(estimate, config.maxOutputTokens);
    if (!reservation.ok) {
      report.stoppedBy ??= reservation.limit;
      return { ok: false, reason: `budget exhausted (${reservation.limit})`, stopped: true };
    }
    const mode = session.outputMode;
    const abort = untilAborted(signal);
    try {
      const raw: unknown = await withCall({ id, attempts: 0 }, () =>
        Promise.race([
          session.openai.chat.completions.create(completionBody(session, spec, messages), {
            signal,
          }),
          abort.promise,
        ]),
      );
      const res = Completion.safeParse(raw);
      if (!res.success) {
        budget.settle(reservation, { promptTokens: 0, completionTokens: 0 });
        return { ok: false, reason: notACompletion(raw, res.error.issues), stopped: false };
      }
      const usage = {
        promptTokens: res.data.usage?.prompt_tokens ?? estimate,
        completionTokens: res.data.usage?.completion_tokens ?? 0,
      };
      report.promptTokens += usage.promptTokens;
      report.completionTokens += usage.completionTokens;
      report.costUsd += budget.settle(reservation, usage);
      const choice = res.data.choices[0];
      const text = choice?.message.refusal
        ? `REFUSAL: ${choice.message.refusal}`
        : (choice?.message.content ?? "");
      return { ok: true, text, usage };
    } catch (err) {
      budget.settle(reservation, { promptTokens: 0, completionTokens: 0 });
      const rejectedSchema = mode === "json_schema" && rejectsStructuredOutput(err);
      if (rejectedSchema) {
        session.outputMode = "json_object";
        report.outputMode = "json_object";
        continue;
      }
      if (mode !== session.outputMode) continue; // another call switched the mode meanwhile
      const stopped = haltedRun(session);
      if (stopped) return stopped;
      if (deadline.aborted)
        return {
          ok: false,
          reason: `no complete answer within requestDeadlineMs (${config.requestDeadlineMs} ms)`,
          stopped: false,
        };
      return { ok: false, reason: session.scrub(describeError(err)), stopped: false };
    } finally {
      abort.done();
    }
  }
}

/** A short reason for an answer that is not a chat completion (never the whole body). */
function notACompletion(raw: unknown, issues: readonly { path: PropertyKey[]; message: string }[]) {
  const size = typeof raw === "string" ? raw.length : JSON.stringify(raw ?? null).length;
  const first = issues[0];
  const where = first ? `${first.path.map(String).join(".") || "(root)"}: ${first.message}` : "";
  const mb = size >= 1_000_000 ? `${(size / 1_000_000).toFixed(1)} MB` : `${size} bytes`;
  return `the server's answer is not a chat completion (${where}; ${mb})`;
}

/** The run is over (aborted, or its wall-clock budget spent): the result that says so. */
function haltedRun(session: LlmSession): Sent | undefined {
  const { report } = session;
  if (session.signal?.aborted) {
    report.stoppedBy ??= "aborted";
    return { ok: false, reason: "aborted", stopped: true };
  }
  if (session.runDeadline.aborted) {
    report.stoppedBy ??= "maxRunMs";
    const reason = `run time budget spent (maxRunMs ${session.config.maxRunMs})`;
    return { ok: false, reason, stopped: true };
  }
  return undefined;
}
