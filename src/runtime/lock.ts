import {
  mkdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import type * as Os from "node:os";
import { join } from "node:path";
import { builtin } from "../core/builtin.js";

/**
 * How long a hook waits on ONE holder whose life it cannot check (another host) before giving
 * up (a fault). A live holder on this host is waited for until LOCK_MAX_HOLD_MS: on a loaded
 * machine hundreds of starting hooks can starve it for tens of seconds, and giving up then
 * would lose the event.
 */
export const LOCK_WAIT_MS = 50_000;
/** The longest a hook waits for the lock in all (the harness's own hook timeout is shorter). */
export const LOCK_WAIT_TOTAL_MS = 600_000;
/**
 * A lock whose holder cannot be checked for life (another host, or no owner record yet) is
 * stale once its mtime, refreshed by the holder, is this old.
 */
export const LOCK_STALE_MS = 5_000;
/** No event holds a lock this long (the hook's budget is far less): stale whoever holds it. */
export const LOCK_MAX_HOLD_MS = 120_000;
const REFRESH_MS = 1_000;
const CLAIM_STALE_MS = 2_000;

/** The lock was not free by the caller's deadline: the event answers without its update. */
export class LockTimeoutError extends Error {}
/** The lock is held by a live holder and the caller asked not to wait (`wait: false`). */
export class LockBusyError extends Error {}

/** The lock was taken over while held: the holder must not write (its update is dropped, logged). */
export class LockCompromisedError extends Error {}

/** Handed to the locked function: `confirm()` throws LockCompromisedError unless the lock is still ours. */
export interface LockGuard {
  confirm(): void;
}

/**
 * This host's name for owner records, read lazily: the kernel's file where there is one
 * (loading node:os costs more than the whole uncontended lock), else os.hostname().
 */
let host: string | undefined;
async function hostName(): Promise<string> {
  if (host !== undefined) return host;
  try {
    host = readFileSync("/proc/sys/kernel/hostname", "utf8").trim();
  } catch {
    host = "";
  }
  if (!host) host = builtin<typeof Os>("node:os").hostname();
  return host;
}

/**
 * Runs `fn` holding `<file>.lock`: ONE lock discipline for every session state.
 *
 * - Acquire: `mkdir <file>.lock` (atomic), then an `owner` record `pid host token` inside.
 * - Hold: the directory's mtime is refreshed every second while an async `fn` is pending.
 * - Wait: a held lock is waited on (async sleeps: signals such as SIGTERM end the process
 *   normally): a live holder on this host until LOCK_MAX_HOLD_MS, one that cannot be checked
 *   for up to LOCK_WAIT_MS, then the event is a logged fault; and never past the caller's
 *   `deadline` (the hook's: well within the timeout the client gives it), LockTimeoutError.
 * - Take over only a DEAD holder: same host and its pid no longer exists; or, when life
 *   cannot be checked (other host, no owner record), an mtime older than LOCK_STALE_MS; or a
 *   hold longer than LOCK_MAX_HOLD_MS. An mtime in the future (clock skew) counts as old as
 *   it has stayed unchanged while this hook waited (AgeWatch). A live holder slower than the stale time keeps its
 *   lock. Take-over is serialized by a `<file>.lock.claim` directory and re-checks the owner.
 * - Compromise: `guard.confirm()` (called just before the state is written) and release check
 *   that the owner record is still ours; if not, nothing is written or removed.
 */
export async function withFileLock<T>(
  file: string,
  fn: (guard: LockGuard) => T | Promise<T>,
  opts: { deadline?: number; wait?: boolean } = {},
): Promise<T> {
  const lockDir = `${file}.lock`;
  const token = `${process.pid} ${await hostName()} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  await acquire(lockDir, token, opts.deadline, opts.wait ?? true);
  let timer: NodeJS.Timeout | undefined;
  const guard: LockGuard = {
    confirm() {
      if (ownerOf(lockDir) !== token)
        throw new LockCompromisedError(
          `the session lock ${lockDir} was taken over while held; this event's update was not applied`,
        );
    },
  };
  try {
    const out = fn(guard);
    if (!(out instanceof Promise)) return out; // a synchronous holder: no timer could run
    timer = setInterval(() => refresh(lockDir), REFRESH_MS);
    timer.unref();
    return await out;
  } finally {
    if (timer) clearInterval(timer);
    release(lockDir, token);
  }
}

async function acquire(
  lockDir: string,
  token: string,
  deadline = Infinity,
  wait = true,
): Promise<void> {
  // The wait limit counts while ONE holder keeps the lock: a busy lock that keeps changing
  // hands (hundreds of events at once) is progress, not a reason to give up.
  let start = Date.now();
  let holder: string | undefined;
  const began = start;
  let delay = 1;
  const watch = new AgeWatch();
  for (;;) {
    try {
      mkdirSync(lockDir);
      try {
        writeFileSync(join(lockDir, "owner"), token);
      } catch (err) {
        rmdirSync(lockDir);
        throw err;
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const seen = ownerOf(lockDir);
    if (seen !== holder) {
      holder = seen;
      start = Date.now();
    }
    if (isStale(lockDir, seen, watch)) takeOver(lockDir, seen, watch);
    else {
      if (!wait) throw new LockBusyError(`the session lock ${lockDir} is held`);
      const now = Date.now();
      if (now >= deadline)
        throw new LockTimeoutError(
          `could not take the session lock ${lockDir} within ${now - began} ms (its holder is busy)`,
        );
      if (now - began > LOCK_WAIT_TOTAL_MS)
        throw new Error(`session lock ${lockDir} not free within ${LOCK_WAIT_TOTAL_MS} ms`);
      if (now - start > LOCK_WAIT_MS && localPid(seen) === undefined)
        throw new Error(`session lock ${lockDir} held by one holder for over ${LOCK_WAIT_MS} ms`);
      await sleep(Math.max(0, Math.min(delay + Math.random() * delay, deadline - now)));
      delay = Math.min(delay * 1.5, 100);
    }
  }
}

/** The owner record, or undefined (none yet, or the lock is gone). */
function ownerOf(lockDir: string): string | undefined {
  try {
    return readFileSync(join(lockDir, "owner"), "utf8");
  } catch {
    return undefined;
  }
}

/**
 * How old a lock (or claim) is, by its mtime — robust to clock skew: an mtime in the FUTURE
 * (written by a host whose clock is ahead, or before this clock was set back) says nothing
 * about its age, so its age is then how long this waiter has seen that mtime unchanged (a
 * live holder refreshes it every second; a dead one never does). Without this, a lock dated
 * a year ahead whose holder cannot be checked for life would never be stale.
 */
class AgeWatch {
  private seen = new Map<string, { mtime: number; since: number }>();
  ageOf(path: string): number | undefined {
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      this.seen.delete(path);
      return undefined;
    }
    const now = Date.now();
    let w = this.seen.get(path);
    if (w?.mtime !== mtime) {
      w = { mtime, since: now };
      this.seen.set(path, w);
    }
    return mtime > now ? now - w.since : now - mtime;
  }
}

function isStale(lockDir: string, owner: string | undefined, watch: AgeWatch): boolean {
  const age = watch.ageOf(lockDir);
  if (age === undefined) return false; // released meanwhile: just retry
  if (age > LOCK_MAX_HOLD_MS) return true;
  const pid = localPid(owner);
  return pid !== undefined ? !isAlive(pid) : age > LOCK_STALE_MS;
}

/** The holder's pid when its owner record names this host, else undefined. */
function localPid(owner: string | undefined): number | undefined {
  const [pid, theirs] = (owner ?? "").split(" ");
  return theirs === host && pid !== undefined && /^\d+$/.test(pid) ? Number(pid) : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes a stale lock, once, under the claim; the owner must still be the one judged dead. */
function takeOver(lockDir: string, judged: string | undefined, watch: AgeWatch): void {
  const claim = `${lockDir}.claim`;
  try {
    mkdirSync(claim);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    // A claimant that died mid take-over leaves its claim: old claims are cleared.
    if ((watch.ageOf(claim) ?? 0) > CLAIM_STALE_MS) tryRun(() => rmdirSync(claim));
    return;
  }
  try {
    const now = ownerOf(lockDir);
    if (now === judged && isStale(lockDir, now, watch)) {
      tryRun(() => unlinkSync(join(lockDir, "owner")));
      tryRun(() => rmdirSync(lockDir));
    }
  } finally {
    tryRun(() => rmdirSync(claim));
  }
}

function refresh(lockDir: string): void {
  const now = new Date();
  tryRun(() => utimesSync(lockDir, now, now));
}

function release(lockDir: string, token: string): void {
  if (ownerOf(lockDir) !== token) return; // taken over: the lock is someone else's now
  tryRun(() => unlinkSync(join(lockDir, "owner")));
  tryRun(() => rmdirSync(lockDir));
}

function tryRun(f: () => void): void {
  try {
    f();
  } catch {
    // best effort: a concurrent take-over or release got there first
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
