import { mkdirSync, rmdirSync } from "node:fs";

/** How long a hook waits for another hook of the same session before giving up (a fault). */
export const LOCK_WAIT_MS = 10_000;
/** A lock older than this is stale (its holder died): proper-lockfile takes it over. */
export const LOCK_STALE_MS = 5_000;

/**
 * Runs `fn` holding `<file>.lock`, the directory lock of proper-lockfile. The uncontended
 * case is one mkdir (loading proper-lockfile costs ~13 ms, more than the hook's budget);
 * only when the lock is taken is proper-lockfile loaded to wait for it with retries and
 * stale-lock takeover. Both paths use the same on-disk protocol (mkdir of `<file>.lock`,
 * staleness by its mtime), so they exclude each other.
 */
export async function withFileLock<T>(file: string, fn: () => T): Promise<T> {
  const lockPath = `${file}.lock`;
  let release: () => Promise<void> | void;
  try {
    mkdirSync(lockPath);
    release = () => rmdirSync(lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const lockfile = (await import("proper-lockfile")).default;
    release = await lockfile.lock(file, {
      lockfilePath: lockPath,
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: {
        retries: 1000,
        minTimeout: 2,
        maxTimeout: 25,
        factor: 1.2,
        randomize: true,
        maxRetryTime: LOCK_WAIT_MS,
      },
      onCompromised: () => {},
    });
  }
  try {
    return fn();
  } finally {
    await release();
  }
}
