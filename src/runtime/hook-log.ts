import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { HookLogEntry } from "../core/hooklog.js";
import { redact, redactDeep } from "../core/redact.js";

/** Commands in the log are capped at this many characters (see HookLogEntry.command). */
export const COMMAND_CAP = 500;

/** Appends one entry (one write with O_APPEND: concurrent hooks never interleave lines). */
export function appendHookLog(file: string, entry: HookLogEntry): void {
  // every string field (command, reason, message, tool input) is redacted, not only the command
  const line = `${JSON.stringify(redactDeep(entry))}\n`;
  try {
    appendFileSync(file, line);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, line);
  }
}

/** The command as the log may keep it: secrets redacted, capped. */
export function logCommand(command: string | undefined): string | undefined {
  if (command === undefined) return undefined;
  const safe = redact(command);
  return safe.length > COMMAND_CAP ? `${safe.slice(0, COMMAND_CAP)}…` : safe;
}
