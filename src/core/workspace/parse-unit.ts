import { describeZodIssues, InputError } from "../errors.js";
import type { SourceUnit } from "../ingest/discover.js";
import { readUnit } from "../ingest/registry.js";
import type { IngestOptions } from "../ingest/types.js";
import { Attempt } from "../model/attempt.js";
import { redactInPlace } from "../redact.js";
import type { UnitResult } from "./parse-cache.js";

/**
 * Reads one unit through its importer; invalid attempts become errors naming the field.
 * Every string of an attempt is redacted (core/redact.ts) here, the one place every parsed
 * unit passes, so the parse cache and every store built from attempts keep no raw secret.
 */
export async function parseUnit(unit: SourceUnit, options: IngestOptions): Promise<UnitResult> {
  const attempts: Attempt[] = [];
  const errors: InputError[] = [];
  try {
    for await (const item of readUnit(unit, options)) {
      if (item.type === "error") {
        errors.push(item.error);
        continue;
      }
      // an attempt the importer validated with the Attempt schema is that schema's output
      // (a fresh object this loader owns): parsing it again gives an equal copy
      if (item.validated) {
        attempts.push(redactInPlace(item.attempt as Attempt));
        continue;
      }
      const r = Attempt.safeParse(item.attempt);
      // secrets in a trace never reach the parse cache (or anything derived from an attempt)
      if (r.success) attempts.push(redactInPlace(r.data));
      else {
        const where = item.attempt.source?.path ?? unit.path;
        errors.push(
          new InputError(where, undefined, `invalid attempt: ${describeZodIssues(r.error.issues)}`),
        );
      }
    }
  } catch (err) {
    if (options.signal?.aborted) throw err;
    const message = err instanceof Error ? err.message : String(err);
    errors.push(new InputError(unit.path, undefined, `cannot read: ${message}`));
  }
  return { attempts, errors };
}

/**
 * Whether a freshly parsed unit goes into the parse cache. A unit that gave nothing
 * but errors may be a transient failure (permissions): it is read again next time.
 */
export function isCacheable(result: UnitResult): boolean {
  return result.attempts.length > 0 || result.errors.length === 0;
}
