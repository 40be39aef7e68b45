import { existsSync, mkdirSync, rmdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** A lock older (or further in the future) than this was left by a dead fire: taken over. */
const STALE_MS = 10_000;
/** The longest an install waits for another one editing the same files. */
const WAIT_MS = 30_000;

/**
 * Runs `fn` holding `<file>.fire-lock` (a directory: mkdir is atomic), so two `fire hook
 * install|uninstall` at once do not lose each other's edit: both read-modify-write the same
 * settings and, for Codex, the user's one config.toml, whose trust must match the hooks.json
 * written with it. Synchronous, as the edits are. Nothing to lock when `file`'s folder does
 * not exist and `create` is false (an uninstall with nothing installed).
 */
export function withEditLock<T>(file: string, fn: () => T, create = true): T {
  const dir = dirname(file);
  if (!existsSync(dir)) {
    if (!create) return fn();
    mkdirSync(dir, { recursive: true });
  }
  const lock = `${file}.fire-lock`;
  const start = Date.now();
  let delay = 5;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let age: number | undefined;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    if (Math.abs(age) > STALE_MS) {
      try {
        rmdirSync(lock);
      } catch {
        // another waiter took it over first
      }
      continue;
    }
    if (Date.now() - start > WAIT_MS)
      throw new Error(`${file} is being edited by another fire (${lock}); try again`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay);
    delay = Math.min(delay * 1.5, 100);
  }
  try {
    return fn();
  } finally {
    try {
      rmdirSync(lock);
    } catch {
      // taken over as stale meanwhile: nothing of ours left
    }
  }
}
