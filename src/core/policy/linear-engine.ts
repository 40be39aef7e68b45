import type * as V8 from "node:v8";

/**
 * V8's linear-time regex engine for candidate patterns (see regex.ts for the whole design):
 * `--enable-experimental-regexp-engine-on-excessive-backtracks` makes a match that backtracks
 * past BACKTRACK_LIMIT steps finish on the automaton; `--enable-experimental-regexp-engine`
 * adds the `l` flag, with which admission asks V8 whether a pattern can run there at all.
 * Kept apart from the admission code so the hook's hot path loads only this.
 */

/** Backtracks before V8 hands one match over to its linear engine. */
export const BACKTRACK_LIMIT = 10_000;

/** The flag that asks for V8's linear engine (only with --enable-experimental-regexp-engine). */
export const LINEAR_FLAG = "l";

/**
 * The V8 flags the hook sets. The hook script's header names them too (src/build/bundle.ts),
 * so the bin sets them before compiling it: V8 rejects a code cache made under other flags.
 */
export const ENGINE_FLAGS: readonly string[] = [
  "--enable-experimental-regexp-engine",
  "--enable-experimental-regexp-engine-on-excessive-backtracks",
  `--regexp-backtracks-before-fallback=${BACKTRACK_LIMIT}`,
];

let available: boolean | undefined;

/**
 * Turns the linear engine on for this process (idempotent; before any candidate pattern is
 * compiled). False when this Node's V8 lacks it: admission then checks syntax only, and
 * `fire hook doctor` says so.
 */
export function enableLinearEngine(): boolean {
  if (available !== undefined) return available;
  try {
    const v8 = v8Flags();
    if (v8) {
      for (const flag of ENGINE_FLAGS) v8.setFlagsFromString(flag);
    }
    // a literal /a/l would be a syntax error in every process without the flag
    new RegExp("a", LINEAR_FLAG);
    available = true;
  } catch {
    available = false;
  }
  return available;
}

/**
 * A pattern already admitted and stored in its linear form (no `i`: see regex.ts), as the
 * hook's cache, a frozen portfolio's hook form and a screen payload hold them: compiled
 * without parsing it again. Whatever its origin (a forged portfolio can carry recomputed
 * hashes), V8 is still asked whether its linear engine can run it — one extra construction,
 * no parse — so a backreference or lookaround never reaches the backtracking engine unbounded.
 */
export function admittedRegExp(source: string, flags: string): RegExp {
  if (enableLinearEngine()) {
    try {
      new RegExp(source, `${flags}${LINEAR_FLAG}`);
    } catch {
      throw new Error(
        `pattern /${source}/${flags} cannot run in linear time (refused when loaded: lookaround, a backreference, case-insensitive or an over-long repeat)`,
      );
    }
  }
  return new RegExp(source, flags);
}

type FlagSetter = Pick<typeof V8, "setFlagsFromString">;

/**
 * Where to set V8 flags from. `node:v8` costs a fresh process ~15 ms to load (it pulls in the
 * streams and net stacks), a third of a hook call; the internal binding behind it costs
 * 0.5 ms. It is reached through the deprecated `process.binding` with its deprecation notice
 * silenced for that one call; where it is gone, `node:v8` is used.
 */
function v8Flags(): FlagSetter | null {
  const proc = process as unknown as { binding?: (name: string) => unknown };
  const quiet = process.noDeprecation;
  try {
    process.noDeprecation = true;
    const b = proc.binding?.("v8") as Partial<FlagSetter> | undefined;
    if (typeof b?.setFlagsFromString === "function") return b as FlagSetter;
  } catch {
    // no such binding here
  } finally {
    process.noDeprecation = quiet;
  }
  return typeof process.getBuiltinModule === "function"
    ? (process.getBuiltinModule("node:v8") as typeof V8)
    : null;
}
