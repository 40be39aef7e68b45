import { readFileSync } from "node:fs";
import { z } from "zod";
import { InputError } from "./errors.js";
import { parseJsonLines } from "./jsonl.js";

/**
 * The hook log: one JSON line per `fire hook` call, appended by the live hook
 * (`<workspace>/.fire/hook-log.jsonl` unless `--log`). Screens and importers read it back
 * with `parseHookLog` to count firings per session. Never holds raw tool input: only the
 * shell command, capped, and never the tool output.
 */

export const HookHarness = z.enum(["claude", "codex", "unknown"]);
export type HookHarness = z.infer<typeof HookHarness>;

export const HookFiring = z.strictObject({
  policyId: z.string(),
  policyVersion: z.number(),
  ruleId: z.string(),
  point: z.enum(["prompt", "tool", "tool_result", "stop"]),
  eventIndex: z.number().int(),
  action: z.enum(["instruct", "deny"]),
  message: z.string(),
  /** The policy is in observe mode: logged, not answered. */
  mode: z.literal("observe").optional(),
  /** A step of the rule's escalation ladder. */
  escalated: z.enum(["deny", "block"]).optional(),
});

export const HookVerdict = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("allow") }),
  z.strictObject({ action: z.literal("instruct"), message: z.string() }),
  z.strictObject({ action: z.literal("deny"), message: z.string() }),
]);

export const HookLogEntry = z.strictObject({
  ts: z.string(),
  /** Harness session id ("" when the event could not be read). */
  session: z.string(),
  harness: HookHarness,
  /** Claude Code sub-agent id: the event belongs to that sub-agent, not the main agent. */
  agent: z.string().optional(),
  /** hook_event_name as the harness sent it ("" when stdin was unreadable). */
  event: z.string(),
  /** Step number of the normalized event in the session (null: no evaluator step ran). */
  eventIndex: z.number().int().nonnegative().nullable(),
  tool: z.string().optional(),
  /** Shell command of a tool call, capped by the writer (`runtime/hook-log-writer.ts` `COMMAND_CAP`). */
  command: z.string().optional(),
  /** A tool result's exit status as the evaluator saw it (core/model/exit-status.ts). */
  status: z.enum(["ok", "failed", "unknown"]).optional(),
  firings: z.array(HookFiring),
  verdict: HookVerdict,
  /** What the harness was told: the exact stdout object, or null for "nothing to say". */
  output: z.record(z.string(), z.unknown()).nullable().optional(),
  tracked: z.array(z.string()),
  /** The portfolio the event was evaluated with: its policies' `id@version`. */
  policies: z.array(z.string()).optional(),
  /** The policies (`id@version`) eligible for this session, as of this event. */
  eligible: z.array(z.string()).optional(),
  /** Rules (`id@version/rule`) whose pending instruction was followed at this event. */
  followed: z.array(z.string()).optional(),
  /** Rules whose condition held again (or the agent stopped) with their instruction pending. */
  ignored: z.array(z.string()).optional(),
  /** Observe mode: what would have been answered had the observed policies been enforced. */
  observed: z
    .strictObject({
      verdict: HookVerdict,
      output: z.record(z.string(), z.unknown()).nullable(),
    })
    .optional(),
  /** Set on faults: the hook answered nothing (or denied under --fail-closed). */
  error: z.string().optional(),
  /** How the event was read when that was not the usual way (e.g. an oversized event read bounded). */
  note: z.string().optional(),
  /** Wall time inside the hook, milliseconds. */
  ms: z.number().nonnegative().optional(),
});
export type HookLogEntry = z.infer<typeof HookLogEntry>;

export interface HookLogRead {
  entries: HookLogEntry[];
  /** The 1-based line of each entry in its file (parallel to `entries`). */
  lines: number[];
  /** Bad lines (file:line: reason); good lines around them still load. */
  errors: InputError[];
}

/** Parses hook-log text; `file` names the source in errors. */
export function parseHookLog(text: string, file: string): HookLogRead {
  const r = parseJsonLines(text, file, HookLogEntry, "bad hook-log entry");
  return {
    entries: r.rows.map((x) => x.value),
    lines: r.rows.map((x) => x.line),
    errors: r.errors,
  };
}

/** Firing counts per session (screens count firings per attempt from these). */
export function firingsBySession(entries: readonly HookLogEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.session, (counts.get(e.session) ?? 0) + e.firings.length);
  return counts;
}

/** Reads a hook-log file (a missing file is an empty log). */
export function readHookLog(file: string): HookLogRead {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      return { entries: [], lines: [], errors: [] };
    return {
      entries: [],
      lines: [],
      errors: [new InputError(file, undefined, `cannot read: ${(err as Error).message}`)],
    };
  }
  return parseHookLog(text, file);
}
