/**
 * THE command-line options of fire's hooks, defined once: the hook parses them with these
 * (runtime/main.ts, runtime/payload-hook.ts), fire writes command lines with hookArgWords
 * (deploy/settings.ts, screen runs and payloads), and recognises and reads installed ones
 * with readHookArgs (deploy/settings.ts, deploy/doctor.ts).
 */

/** A hook's options: single strings and flags only. */
export type HookOptionsConfig = Record<
  string,
  { type: "string"; default?: string } | { type: "boolean"; default?: boolean }
>;

/**
 * `fire hook [--portfolio FILE|DIR] [--state-dir DIR] [--log FILE] [--fail-closed] [--observe]
 * [--workspace DIR]` (`--observe`: every policy evaluated and logged, nothing answered).
 */
export const HOOK_OPTIONS = {
  portfolio: { type: "string" },
  "state-dir": { type: "string" },
  log: { type: "string" },
  workspace: { type: "string" },
  "fail-closed": { type: "boolean", default: false },
  observe: { type: "boolean", default: false },
} as const satisfies HookOptionsConfig;

/** `node fire-hook.mjs [--payload DIR] --sha256 HEX [--log FILE] [--state-dir DIR] [--fail-closed]`. */
export const PAYLOAD_HOOK_OPTIONS = {
  payload: { type: "string" },
  sha256: { type: "string" },
  "state-dir": { type: "string" },
  log: { type: "string" },
  "fail-closed": { type: "boolean", default: false },
  observe: { type: "boolean", default: false },
} as const satisfies HookOptionsConfig;

/** Values for a command line of `options`: a string option's value, or a flag set. */
export type HookArgValues<O extends HookOptionsConfig> = {
  [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : string;
};

/**
 * The words of those options, in the order given (a flag only when true, an undefined value
 * left out): the inverse of parsing them with the same options.
 */
export function hookArgWords<O extends HookOptionsConfig>(
  options: O,
  values: HookArgValues<O>,
): string[] {
  const words: string[] = [];
  for (const [name, v] of Object.entries(values)) {
    const spec = options[name];
    if (!spec) throw new Error(`not a hook option: --${name}`);
    if (spec.type === "boolean") {
      if (v === true) words.push(`--${name}`);
    } else if (typeof v === "string") words.push(`--${name}`, v);
  }
  return words;
}

/**
 * Reads hook option words: `ok` when they are exactly options of `options` (no other word);
 * the values that could be read either way.
 */
export function readHookArgs(
  words: readonly string[],
  options: HookOptionsConfig,
): { ok: boolean; values: Record<string, string | boolean | undefined> } {
  const r = parseHookWords(words, options);
  return { ok: r.error === undefined, values: r.values };
}

/**
 * Parses hook option words as node:util `parseArgs` does with `strict` for these options
 * (`--name value`, `--name=value`, flags, defaults; no positionals, no short options), without
 * loading it: the hook runs this on every event. `error` names the first word that is not
 * one of `options` used right; `values` holds what could be read anyway.
 */
export function parseHookWords(
  words: readonly string[],
  options: HookOptionsConfig,
): { values: Record<string, string | boolean | undefined>; error?: string } {
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, spec] of Object.entries(options))
    if (spec.default !== undefined) values[name] = spec.default;
  let error: string | undefined;
  const fail = (why: string) => {
    error ??= why;
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (w === "--") {
      if (i + 1 < words.length) fail(`Unexpected argument '${words[i + 1]}'`);
      break;
    }
    if (!w.startsWith("--")) {
      fail(w.startsWith("-") && w !== "-" ? `Unknown option '${w}'` : `Unexpected argument '${w}'`);
      continue;
    }
    const eq = w.indexOf("=");
    const name = eq < 0 ? w.slice(2) : w.slice(2, eq);
    const spec = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!spec) {
      fail(`Unknown option '--${name}'`);
      continue;
    }
    if (spec.type === "boolean") {
      if (eq >= 0) fail(`Option '--${name}' does not take an argument`);
      else values[name] = true;
      continue;
    }
    if (eq >= 0) {
      values[name] = w.slice(eq + 1);
      continue;
    }
    const next = words[i + 1];
    if (next === undefined) {
      fail(`Option '--${name} <value>' argument missing`);
      continue;
    }
    if (next.startsWith("-")) fail(`Option '--${name} <value>' argument is ambiguous`);
    values[name] = next;
    i++;
  }
  return error === undefined ? { values } : { values, error };
}
