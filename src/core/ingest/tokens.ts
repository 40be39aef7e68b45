import type { Tokens } from "../model/attempt.js";

/** Token counts as a format reports them, before they are put into fire's one token model. */
export interface RawTokens {
  input?: number | null;
  output?: number | null;
  cached?: number | null;
  cacheWrite?: number | null;
  reasoning?: number | null;
  /**
   * Whether the format's `input` already counts cache reads and writes (OpenAI, Codex,
   * Harbor, ATIF) or not (Anthropic usage). `undefined` means "as the spec says, but
   * check": a cache count above the input proves the writer left the cache out.
   */
  inputIncludesCache?: boolean;
  /** A writer's own total (prompt + completion), used to tell whether its input counted cache. */
  total?: number | null;
}

const n = (v: number | null | undefined): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;

/**
 * Put one format's counts into the token model (docs/formats.md "Token model"): `input`
 * includes cache reads and writes, `output` includes reasoning.
 */
export function normTokens(raw: RawTokens): Tokens | undefined {
  const input = n(raw.input);
  const output = n(raw.output);
  const cached = n(raw.cached);
  const cacheWrite = n(raw.cacheWrite);
  const reasoning = n(raw.reasoning);
  if ([input, output, cached, cacheWrite, reasoning].every((v) => v === undefined))
    return undefined;
  const cache = (cached ?? 0) + (cacheWrite ?? 0);
  let includes = raw.inputIncludesCache;
  if (includes === undefined) {
    const total = n(raw.total);
    const sum = (input ?? 0) + (output ?? 0);
    // a writer's own total that also counts the cache shows its input did not
    if (total !== undefined && cache > 0 && total === sum + cache && total !== sum)
      includes = false;
    else includes = !(cache > (input ?? 0));
  }
  const t: Tokens = {};
  if (input !== undefined || cache > 0) t.input = (input ?? 0) + (includes ? 0 : cache);
  if (output !== undefined) t.output = output;
  if (cached !== undefined) t.cached = cached;
  if (cacheWrite !== undefined) t.cacheWrite = cacheWrite;
  if (reasoning !== undefined) t.reasoning = reasoning;
  return t;
}

/** Field-wise sum of token records (a field stays absent when no record has it). */
export function addTokens(parts: readonly (Tokens | undefined)[]): Tokens | undefined {
  const out: Tokens = {};
  let any = false;
  for (const p of parts) {
    if (!p) continue;
    for (const k of Object.keys(p) as (keyof Tokens)[]) {
      const v = p[k];
      if (v === undefined) continue;
      out[k] = (out[k] ?? 0) + v;
      any = true;
    }
  }
  return any ? out : undefined;
}
