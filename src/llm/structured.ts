import { redact, redactDeep } from "../core/redact.js";
import { cacheKey, promptHash } from "./cache.js";
import type { LlmSession } from "./client.js";
import type { ChatMessage } from "./prompt.js";
import { parseAnswer } from "./schema.js";
import { send, type Usage } from "./send.js";
import type { CallOptions, PreparedCall, StructuredResult, StructuredSpec } from "./spec.js";
import { estimateTokens } from "./tokens.js";

export { completionBody } from "./send.js";
export type { CallOptions, PreparedCall, StructuredResult, StructuredSpec } from "./spec.js";

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
  // An answer may echo a secret it was never sent (or one the redactor missed in a trace):
  // what is cached, printed or stored is the redacted answer.
  return problems.length
    ? { ok: false, errors: problems }
    : { ok: true, value: redactDeep(parsed.value) };
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
  const turn = session.turn();
  let hit: T | undefined;
  try {
    hit = await fromCache(session, spec, call);
    await turn.wait;
  } catch (err) {
    turn.done();
    throw err;
  }
  if (hit !== undefined) {
    turn.done();
    session.report.cacheHits += 1;
    return { ok: true, value: hit, cached: true };
  }
  // Enqueued before the next call's turn starts: the queue keeps the order calls were made in.
  const live = session.limit(() => liveCall(session, spec, call, opts.id));
  turn.done();
  return live;
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
