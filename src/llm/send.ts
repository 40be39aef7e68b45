import { BadRequestError, UnprocessableEntityError } from "openai";
import type { ChatMessage } from "./prompt.js";
import { backoffDelay, classifyError, describeError, isRetryable, waitFor } from "./retry.js";
import { openAiJsonSchema } from "./schema.js";
import type { LlmSession } from "./session.js";
import type { StructuredSpec } from "./spec.js";
import { estimateTokens } from "./tokens.js";

/** The request body for one chat completion in the session's current output mode. */
export function completionBody(
  session: LlmSession,
  spec: StructuredSpec<unknown>,
  messages: ChatMessage[],
) {
  const jsonSchema = openAiJsonSchema(spec.schema);
  if (session.outputMode === "json_schema") {
    return {
      model: session.config.model,
      messages,
      max_completion_tokens: session.config.maxOutputTokens,
      response_format: {
        type: "json_schema" as const,
        json_schema: { name: spec.name, schema: jsonSchema, strict: true },
      },
    };
  }
  const hint: ChatMessage = {
    role: "system",
    content: `Reply with a single JSON object valid against this JSON Schema:\n${JSON.stringify(jsonSchema)}`,
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

/** One chat completion with budget, retries/backoff, and the json_schema → json_object fallback. */
export async function send(
  session: LlmSession,
  spec: StructuredSpec<unknown>,
  messages: ChatMessage[],
  id: string,
): Promise<Sent> {
  const { config, report, budget } = session;
  const estimate = messages.reduce((s, m) => s + estimateTokens(m.content), 0);
  let retry = 0;
  for (;;) {
    if (session.signal?.aborted) {
      report.stoppedBy ??= "aborted";
      return { ok: false, reason: "aborted", stopped: true };
    }
    const reservation = budget.reserve(estimate, config.maxOutputTokens);
    if (!reservation.ok) {
      report.stoppedBy ??= reservation.limit;
      return { ok: false, reason: `budget exhausted (${reservation.limit})`, stopped: true };
    }
    report.requests += 1;
    const mode = session.outputMode;
    try {
      const res = await session.openai.chat.completions.create(
        completionBody(session, spec, messages),
        {
          signal: session.signal,
        },
      );
      const usage = {
        promptTokens: res.usage?.prompt_tokens ?? estimate,
        completionTokens: res.usage?.completion_tokens ?? 0,
      };
      report.promptTokens += usage.promptTokens;
      report.completionTokens += usage.completionTokens;
      report.costUsd += budget.settle(reservation, usage);
      const choice = res.choices[0];
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
      const kind = classifyError(err);
      if (kind === "aborted") {
        report.stoppedBy ??= "aborted";
        return { ok: false, reason: "aborted", stopped: true };
      }
      if (!isRetryable(kind) || retry >= config.maxRetries)
        return { ok: false, reason: session.scrub(describeError(err)), stopped: false };
      const delayMs = backoffDelay(retry, err, config);
      retry += 1;
      report.retries += 1;
      session.onRetry?.({ id, retry, delayMs, reason: kind });
      try {
        await waitFor(delayMs, session.signal);
      } catch {
        report.stoppedBy ??= "aborted";
        return { ok: false, reason: "aborted", stopped: true };
      }
    }
  }
}
