import { parseArgs } from "node:util";

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
  try {
    return { ok: true, values: parseArgs({ args: [...words], options, strict: true }).values };
  } catch {
    return { ok: false, values: parseArgs({ args: [...words], options, strict: false }).values };
  }
}
