import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { HookLogEntry } from "../core/hook-log.js";
import { redact, redactDeep } from "../core/redact.js";

/** Commands in the log are capped at this many characters (see HookLogEntry.command). */
export const COMMAND_CAP = 500;

/** O_APPEND, created if missing, and never through a symlink planted at the log's name. */
const APPEND =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/**
 * The log opened for one append (created, with its folder, if missing; O_APPEND: concurrent
 * hooks never interleave lines; a symlink at its path is refused, ELOOP, never followed):
 * what can refuse a log line refuses it here, before the line exists.
 */
export function openHookLog(file: string): number {
  try {
    return openSync(file, APPEND, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dirname(file), { recursive: true });
    return openSync(file, APPEND, 0o644);
  }
}

/** Writes one entry to a log `openHookLog` opened, and closes it. */
export function writeHookLog(fd: number, entry: HookLogEntry): void {
  // every string field (command, reason, message, tool input) is redacted, not only the command
  const line = Buffer.from(`${JSON.stringify(redactDeep(entry))}\n`);
  try {
    writeSync(fd, line); // one write: O_APPEND makes it atomic for a line this size
  } finally {
    closeSync(fd);
  }
}

/** The command as the log may keep it: secrets redacted, capped. */
export function logCommand(command: string | undefined): string | undefined {
  if (command === undefined) return undefined;
  const safe = redact(command);
  return safe.length > COMMAND_CAP ? `${safe.slice(0, COMMAND_CAP)}…` : safe;
}
