import { BadRequestError, UnprocessableEntityError } from "openai";
import type { z } from "zod";
import { redact } from "../core/redact.js";
import { cacheKey, promptHash } from "./cache.js";
import type { ChatMessage } from "./prompt.js";
import { backoffDelay, classifyError, describeError, isRetryable, waitFor } from "./retry.js";
import { openAiJsonSchema, parseAnswer } from "./schema.js";
import type { LlmSession } from "./session.js";
import { estimateTokens } from "./tokens.js";

/** What a structured call asks for: a zod schema, its name and version (part of the cache key). */
export interface StructuredSpec<T> {
  schema: z.ZodType<T>;
  name: string;
  version: string;
  /** Extra checks (e.g. event indices exist); returns problems, empty when fine. */
  validate?: (value: T) => string[];
}

export type StructuredResult<T> =
  | { ok: true; value: T; cached: boolean }
  | { ok: false; reason: string; stopped: boolean };

export interface CallOptions {
  /** Id used in retry events and failure lists (e.g. the attempt id). */
  id: string;
}

export interface PreparedCall {
  messages: ChatMessage[];
  key: string;
  promptHash: string;
  estimatedTokens: number;
}

/** Redact every message and compute the cache key; nothing unredacted goes further. */
export function prepareCall(
  session: LlmSession,
  spec: StructuredSpec<unknown>,
  messages: ChatMessage[],
): PreparedCall {
  const clean = messages.map((m) => ({ role: m.role, content: redact(m.content) }));
  const hash = promptHash([...clean, { role: "system", content: `schema:${spec.name}` }]);
  return {
    messages: clean,
    key: cacheKey(session.config.model, hash, `${spec.name}@${spec.version}`),
    promptHash: hash,
    estimatedTokens: clean.reduce((s, m) => s + estimateTokens(m.content), 0),
  };
}

export function checkAnswer<T>(
  spec: StructuredSpec<T>,
  text: string,
): { ok: true; value: T } | { ok: false; errors: string[] } {
  const parsed = parseAnswer(spec.schema, text);
  if (!parsed.ok) return parsed;
  const problems = spec.validate?.(parsed.value) ?? [];
  return problems.length ? { ok: false, errors: problems } : parsed;
}

export async function fromCache<T>(
  session: LlmSession,
  spec: StructuredSpec<T>,
  call: PreparedCall,
): Promise<T | undefined> {
  const entry = await session.cache.get(call.key);
  if (!entry) return undefined;
  const checked = checkAnswer(spec, JSON.stringify(entry.answer));
  return checked.ok ? checked.value : undefined;
}

export async function storeAnswer(
  session: LlmSession,
  spec: StructuredSpec<unknown>,
  call: PreparedCall,
  answer: unknown,
  usage: { promptTokens: number; completionTokens: number },
): Promise<void> {
  await session.cache.put({
    key: call.key,
    model: session.config.model,
    schemaVersion: `${spec.name}@${spec.version}`,
    promptHash: call.promptHash,
    createdAt: new Date().toISOString(),
    usage,
    answer,
  });
}

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

type Usage = { promptTokens: number; completionTokens: number };
type Sent =
  | { ok: true; text: string; usage: Usage }
  | { ok: false; reason: string; stopped: boolean };

/** One chat completion with budget, retries/backoff, and the json_schema → json_object fallback. */
async function send(
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
      const rejectedSchema =
        mode === "json_schema" &&
        (err instanceof BadRequestError || err instanceof UnprocessableEntityError);
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
        return { ok: false, reason: redact(describeError(err)), stopped: false };
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

/**
 * Ask for one answer of `spec`'s shape: redact, look up the cache, send (under the
 * session's concurrency limit), validate, and on a bad answer send ONE repair request.
 * Valid answers are cached; failures come back as `{ok: false, reason}`, never thrown.
 */
export async function structuredCall<T>(
  spec: StructuredSpec<T>,
  messages: ChatMessage[],
  opts: CallOptions & { session: LlmSession },
): Promise<StructuredResult<T>> {
  const { session } = opts;
  const call = prepareCall(session, spec as StructuredSpec<unknown>, messages);
  const hit = await fromCache(session, spec, call);
  if (hit !== undefined) {
    session.report.cacheHits += 1;
    return { ok: true, value: hit, cached: true };
  }
  return session.limit(() => liveCall(session, spec, call, opts.id));
}

/** Send a prepared call (cache already missed), with one repair round. */
export async function liveCall<T>(
  session: LlmSession,
  spec: StructuredSpec<T>,
  call: PreparedCall,
  id: string,
  firstAnswer?: string,
): Promise<StructuredResult<T>> {
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  const add = (u: Usage): void => {
    usage.promptTokens += u.promptTokens;
    usage.completionTokens += u.completionTokens;
  };
  let text = firstAnswer;
  if (text === undefined) {
    const first = await send(session, spec as StructuredSpec<unknown>, call.messages, id);
    if (!first.ok) return first;
    add(first.usage);
    text = first.text;
  }
  let checked = checkAnswer(spec, text);
  if (!checked.ok) {
    session.report.repairs += 1;
    const repair: ChatMessage[] = [
      ...call.messages,
      { role: "assistant", content: redact(text.slice(0, 4000)) },
      {
        role: "user",
        content: `That answer was rejected: ${checked.errors.join("; ")}. Reply again with one corrected JSON object only.`,
      },
    ];
    const second = await send(session, spec as StructuredSpec<unknown>, repair, id);
    if (!second.ok) return second;
    add(second.usage);
    const firstErrors = checked.errors;
    checked = checkAnswer(spec, second.text);
    if (!checked.ok)
      return {
        ok: false,
        reason:
          `invalid answer after repair: ${checked.errors.join("; ")} (first: ${firstErrors.join("; ")})`.slice(
            0,
            600,
          ),
        stopped: false,
      };
  }
  await storeAnswer(session, spec as StructuredSpec<unknown>, call, checked.value, usage);
  return { ok: true, value: checked.value, cached: false };
}
