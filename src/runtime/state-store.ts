import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionState } from "../core/policy/types.js";

/** A state file that is not a session state: the hook reports a fault and starts over. */
export class CorruptStateError extends Error {}

/** `<stateDir>/<session>.json`; the id is reduced to a safe file name. */
export function sessionFile(stateDir: string, session: string): string {
  const safe = session
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 160);
  return join(stateDir, `${safe || "_"}.json`);
}

/**
 * Reads a session's state; undefined when it does not exist yet. A file that is not a
 * state is moved aside (`.corrupt`) so the next event starts clean, then reported.
 */
export function readState(file: string): SessionState | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!isSessionState(value)) {
    try {
      renameSync(file, `${file}.corrupt`);
    } catch {
      // leave it: the next event reports it again
    }
    throw new CorruptStateError(`corrupted state file ${file} (moved to .corrupt)`);
  }
  return value;
}

/** Writes a session's state atomically (temp file + rename; the caller holds the lock). */
export function writeState(file: string, state: SessionState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
}

export function ensureDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
}

function isSessionState(v: unknown): v is SessionState {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const s = v as Record<string, unknown>;
  if (typeof s.step !== "number" || !Number.isInteger(s.step) || s.step < 0) return false;
  if (s.taskText !== undefined && typeof s.taskText !== "string") return false;
  const p = s.policies;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return false;
  return Object.values(p).every(
    (x) =>
      typeof x === "object" &&
      x !== null &&
      ["flags", "steps", "counters", "nudges"].every(
        (k) => typeof (x as Record<string, unknown>)[k] === "object",
      ),
  );
}
