import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { compileHookForm, HOOK_FORM, type HookForm, hookForm } from "../core/policy/hook-form.js";
import type { CompiledPolicy } from "../core/policy/types.js";
import { readRegularFile } from "../core/regular-file.js";
import { fnv1a } from "./fnv.js";
import { type FrozenIdentity, sameIdentity, verifiedFrozenPortfolio } from "./frozen.js";
import { ensureDir, writeFileAtomicSync } from "./state-store.js";

/** A portfolio that cannot be used: the hook reports a fault and answers nothing. */
export class PortfolioError extends Error {}

/** The cache: a hook form under the key of the sources it was made from. */
interface CacheFile extends HookForm {
  key: string;
  /** Files of the folder that were skipped, each with why (reported on every event). */
  skipped?: string[];
}

/**
 * Loads the portfolio for the hook.
 *
 * A FROZEN portfolio (a folder with manifest.json) is verified on EVERY event: the manifest
 * hash, every policy file's SHA-256 and that of its hook form (`hook.json`, written when it
 * was frozen), and what is evaluated is compiled from exactly those bytes: the hook form, or
 * for a portfolio frozen before hook forms the policy files, admitted here (frozen.ts). No
 * cache decides its rules: with `hook install --project` the state folder lies in the agent's
 * own project, so a cache there could be edited. Hashing is skipped only for files that keep
 * the identity they had when they verified, as recorded in `recordDir`, the user's state
 * folder outside any project (verified-record.ts).
 *
 * A folder or file of candidates is validated with the policy loader on first use (zod, yaml,
 * regex-safety: ~200 ms) and the validated candidates are cached under
 * `<stateDir>/portfolio-cache/`, keyed by every source file's path, size, mtime and ctime;
 * later calls only recompile the cached candidates' patterns (no zod, no yaml). Such sources
 * are as writable as the cache, so the cache adds no trust they lack.
 *
 * A process that answers many events (the resident evaluator, resident.cts) keeps what it
 * compiled from a frozen portfolio that verified by its record, with the files' identities:
 * a later event whose files all still have them (stat only) reuses it, the same shortcut to
 * the same verdict as the record, held in the process's memory instead of the record folder.
 */
export async function loadPortfolio(
  path: string,
  stateDir: string,
  recordDir?: string,
  skipped: (why: string) => void = () => {},
  nowMs = Date.now(),
): Promise<CompiledPolicy[]> {
  const abs = resolve(path);
  if (existsSync(join(abs, "manifest.json"))) {
    const kept = recordDir === undefined ? undefined : verifiedHere.get(abs);
    if (kept && kept.recordDir === recordDir && sameIdentity(abs, kept.identity, nowMs))
      return kept.policies;
    // Hashed now: every pattern is admitted now (eager compile) before the files are
    // recorded. Recorded (unchanged since they were hashed AND admitted): each condition is
    // compiled when an event first needs it, so an event pays only for what it evaluates.
    let admitted: CompiledPolicy[] | undefined;
    const fast = verifiedFrozenPortfolio(abs, recordDir, nowMs, (form) => {
      admitted = compileHookForm(form, undefined, false);
    });
    try {
      // frozen by this fire: the verified hook form compiles as is; older: admitted here
      if (fast?.form) {
        const policies =
          admitted ?? compileHookForm(fast.form, undefined, fast.checked === "record");
        if (recordDir !== undefined && fast.identity) keep(abs, recordDir, fast.identity, policies);
        return policies;
      }
      if (fast) return compileHookForm(hookForm(fast.policies));
    } catch {
      // verified bytes that do not compile: the full check below explains
    }
    // Not verifiable on the fast path: the full verifier names the file and what is wrong.
    const { loadFrozenPortfolio } = await import("../core/freeze/verify.js");
    try {
      return loadFrozenPortfolio(abs).policies;
    } catch (err) {
      throw new PortfolioError(`frozen portfolio rejected: ${(err as Error).message}`);
    }
  }
  // the cache holds patterns in their linear form (CACHE_FORMAT): an older cache is a miss
  const key = `${CACHE_FORMAT}\n${sourceKey(abs)}`;
  const cacheDir = join(stateDir, "portfolio-cache");
  const cacheFile = join(cacheDir, `${fnv1a(key)}.json`);
  const cached = readCache(cacheFile, key);
  if (cached) {
    try {
      // eager: the cache lies in the state folder, so a refused pattern must show here
      const policies = compileHookForm(cached, undefined, false);
      for (const why of cached.skipped ?? []) skipped(why);
      return policies;
    } catch {
      // a cache whose patterns are refused (edited in the state folder): the sources decide
    }
  }
  const { loadPolicies } = await import("../core/policy/load.js");
  const { policies, errors } = loadPolicies([abs]);
  // One bad file (an alias bomb, a FIFO, a typo) costs only itself: the good candidates
  // beside it still hold, and every event reports the skip. A frozen portfolio (above) is
  // all or nothing.
  if (errors.length > 0 && policies.length === 0) {
    const why = errors[0]?.format() ?? "";
    throw new PortfolioError(`invalid portfolio (${errors.length} error(s)): ${why}`);
  }
  if (policies.length === 0) throw new PortfolioError(`no candidate policies in ${abs}`);
  const skips = skippedFiles(errors);
  for (const why of skips) skipped(why);
  writeCache(cacheDir, cacheFile, {
    key,
    ...hookForm(policies),
    ...(skips.length > 0 ? { skipped: skips } : {}),
  });
  return policies;
}

/** Frozen portfolios verified by their record in this process (see loadPortfolio). */
const verifiedHere = new Map<
  string,
  { recordDir: string; identity: FrozenIdentity; policies: CompiledPolicy[] }
>();
/** How many frozen portfolios a process keeps (the first kept goes first). */
const KEPT_MAX = 16;

function keep(
  dir: string,
  recordDir: string,
  identity: FrozenIdentity,
  policies: CompiledPolicy[],
): void {
  verifiedHere.delete(dir);
  if (verifiedHere.size >= KEPT_MAX)
    verifiedHere.delete(verifiedHere.keys().next().value as string);
  verifiedHere.set(dir, { recordDir, identity, policies });
}

/** One line per file with errors: the file skipped and its first error. */
function skippedFiles(errors: readonly { file: string; format(): string }[]): string[] {
  const first = new Map<string, string>();
  for (const e of errors) if (!first.has(e.file)) first.set(e.file, e.format());
  return [...first.values()].map((why) => `candidate file skipped: ${why}`);
}

/** Bumped when what the cache stores changes meaning. */
const CACHE_FORMAT = `fire-hook-cache/4 ${HOOK_FORM}`;

/** Identity of the portfolio sources: each file's path, size, mtime and ctime, sorted. */
export function sourceKey(abs: string): string {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(abs);
  } catch {
    throw new PortfolioError(`portfolio not found: ${abs}`);
  }
  // ctime too: a rewrite that restores size and mtime (touch -r) still changes it.
  if (!st.isDirectory()) return `${abs}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  const lines: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const e of entries) {
      const f = join(dir, e.name);
      if (e.isDirectory()) walk(f);
      else if (/\.(json|ya?ml)$/i.test(e.name)) {
        const s = statSync(f);
        lines.push(`${f}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`);
      }
    }
  };
  walk(abs);
  return lines.join("\n");
}

function readCache(file: string, key: string): CacheFile | undefined {
  try {
    const c = JSON.parse(readRegularFile(file, "utf8")) as CacheFile;
    return c && c.key === key && c.format === HOOK_FORM && Array.isArray(c.policies)
      ? c
      : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, file: string, content: CacheFile): void {
  try {
    ensureDir(dir);
    writeFileAtomicSync(file, JSON.stringify(content));
  } catch {
    // a cache that cannot be written only costs speed
  }
}
