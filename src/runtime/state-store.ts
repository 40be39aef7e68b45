import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  statfsSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { detachState } from "../core/policy/evaluator.js";
import { capText } from "../core/policy/patterns.js";
import type { SessionState } from "../core/policy/types.js";
import { redact } from "../core/redact.js";
import { NotRegularFileError, readRegularFile } from "../core/regular-file.js";

/** A state file that is not a session state: the hook reports a fault and starts over. */
export class CorruptStateError extends Error {}

/** Most events one session may have seen; a state claiming more is corrupt. */
export const MAX_STEP = 1_000_000_000;
const CLEAN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,79}$/;

/**
 * `<stateDir>/<name>.json`, one file per session id and never shared by two ids: an id made
 * of `[A-Za-z0-9._-]` (≤ 80 characters, not starting with `.`) is the name itself; any other
 * id is a readable prefix, `~` (which clean names never contain) and a 64-bit hash of the
 * WHOLE id — so ids differing only in `/ _ : space`, or sharing a long prefix, stay apart.
 * An id holding a secret (a token pasted as the id) is named by its hash alone.
 */
export function sessionFile(stateDir: string, session: string): string {
  // an id that holds a secret never becomes a file name, not even in part
  if (redact(session) !== session) return join(stateDir, `redacted~${hash64(session)}.json`);
  if (CLEAN_ID.test(session)) return join(stateDir, `${session}.json`);
  const safe = session
    .slice(0, 48)
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_");
  return join(stateDir, `${safe}~${hash64(session)}.json`);
}

/** Two independent 32-bit FNV-1a hashes of the text, as 16 hex digits. */
export function hash64(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  const hex = (x: number) => (x >>> 0).toString(16).padStart(8, "0");
  return hex(a) + hex(b);
}

/**
 * Reads a session's state; undefined when it does not exist yet. A file that is not a
 * state (bad JSON, wrong inner types, not a regular file) is moved aside (`.corrupt`) so the
 * next event starts clean, then reported.
 */
export function readState(file: string): SessionState | undefined {
  let text: string | undefined;
  try {
    text = readRegularFile(file, "utf8", { noFollow: true }); // a symlinked state is refused
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    // a symlink (ELOOP) or a FIFO / device: not a state, moved aside below
    if (code !== "ELOOP" && !(err instanceof NotRegularFileError)) throw err;
  }
  let value: unknown;
  try {
    value = text === undefined ? undefined : JSON.parse(text);
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
  const state = detachState(value);
  storedTaskText = state.taskText;
  return state;
}

/**
 * The task text as the last state read holds it: already capped and redacted when it was
 * written, so writing it back unchanged skips both (the secret rules cost more than the rest
 * of an event's state handling when a task text holds one of their keywords).
 */
let storedTaskText: string | undefined;

/**
 * Writes a session's state atomically (the caller holds the lock). The task text is kept as
 * patterns see it (capText: head and tail) with its secrets redacted: the state folder is
 * plain files, and the first prompt may carry keys. The event that first saw the task was
 * judged on the raw text; a policy that first meets this session later judges the redacted.
 */
export function writeState(file: string, state: SessionState): void {
  prepareState(file, state).commit();
}

/**
 * The state written to its temp file now, put in place by the function returned (a rename):
 * the resident evaluator answers between the two (the rename is most of a state write's
 * time on ext4, which flushes a file renamed over another). Whatever can fail for want of
 * room or rights fails here, before the answer.
 */
export function prepareState(file: string, state: SessionState): PreparedWrite {
  const stored =
    state.taskText === undefined || state.taskText === storedTaskText
      ? state
      : { ...state, taskText: redact(capText(state.taskText)) };
  return prepareAtomicWrite(file, JSON.stringify(stored));
}

/** Flags that create a new file and never follow a symlink planted at its name. */
const CREATE_NEW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Temp file + rename; the temp file is created new (O_EXCL | O_NOFOLLOW: a symlink planted
 * at its name is never written through; rename replaces a symlinked target, never follows
 * it) and removed when writing fails (a full disk leaves no `*.tmp` behind).
 */
export function writeFileAtomicSync(file: string, text: string): void {
  prepareAtomicWrite(file, text).commit();
}

/** A temp file written beside its target: `commit` renames it into place, `discard` drops it. */
export interface PreparedWrite {
  commit(): void;
  discard(): void;
}

/** `writeFileAtomicSync` in two steps: the temp file now, the rename when the result is called. */
function prepareAtomicWrite(file: string, text: string): PreparedWrite {
  const tmp = `${file}.${process.pid}.tmp`;
  const dropTmp = (): void => {
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
  };
  try {
    let fd: number;
    try {
      fd = openSync(tmp, CREATE_NEW, 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      unlinkSync(tmp); // left by a dead process with our pid (or planted): made anew
      fd = openSync(tmp, CREATE_NEW, 0o644);
    }
    try {
      const buf = Buffer.from(text);
      let done = 0;
      while (done < buf.length) done += writeSync(fd, buf, done);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    dropTmp();
    throw err;
  }
  return {
    commit() {
      try {
        renameSync(tmp, file);
      } catch (err) {
        dropTmp();
        throw err;
      }
    },
    discard: dropTmp,
  };
}

/**
 * Kernel file systems where no state may live (statfs magic numbers): procfs, sysfs, devpts,
 * debugfs, tracefs, securityfs, cgroup v1/v2, bpf. Creating folders there can fail forever
 * (`HOME=/proc` once made a recursive mkdir spin).
 */
const SPECIAL_FS = new Map<number, string>([
  [0x9fa0, "procfs"],
  [0x62656572, "sysfs"],
  [0x1cd1, "devpts"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0xcafe4a11, "bpf"],
]);

/** Most folder levels ensureDir creates (a bound on its work whatever the file system says). */
const MAX_NEW_LEVELS = 32;

/**
 * Makes a folder and its missing parents, one mkdir per missing level (bounded), and refuses
 * (code ESPECIALFS) one whose nearest existing parent is on a kernel file system.
 */
export function ensureDir(dir: string): void {
  if (existsSync(dir)) return;
  const missing: string[] = [];
  let d = resolve(dir);
  while (!existsSync(d)) {
    if (missing.length >= MAX_NEW_LEVELS)
      throw Object.assign(new Error(`${dir}: more than ${MAX_NEW_LEVELS} missing folders`), {
        code: "ENAMETOOLONG",
      });
    missing.push(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  let fsType: number | undefined;
  try {
    fsType = statfsSync(d).type;
  } catch {
    fsType = undefined; // not a folder (ENOTDIR follows from mkdir) or no statfs
  }
  const special = fsType === undefined ? undefined : SPECIAL_FS.get(fsType);
  if (special)
    throw Object.assign(new Error(`${d} is on ${special}: no state is kept there`), {
      code: "ESPECIALFS",
    });
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

const isObj = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
const isCount = (x: unknown) =>
  typeof x === "number" && Number.isSafeInteger(x) && x >= 0 && x <= MAX_STEP;
const isStrings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === "string");
const every = (o: unknown, test: (x: unknown) => boolean) =>
  isObj(o) && Object.values(o).every(test);

/** A session state with every inner value of its type (counts are bounded integers). */
function isSessionState(v: unknown): v is SessionState {
  if (!isObj(v)) return false;
  if (!isCount(v.step)) return false;
  if (v.taskText !== undefined && typeof v.taskText !== "string") return false;
  if (
    v.startedAt !== undefined &&
    !(typeof v.startedAt === "number" && Number.isFinite(v.startedAt))
  )
    return false;
  return every(v.policies, (x) => {
    if (!isObj(x)) return false;
    if (x.eligible !== undefined && typeof x.eligible !== "boolean") return false;
    if (x.matched !== undefined && typeof x.matched !== "string") return false;
    return (
      every(x.flags, (f) => typeof f === "boolean") &&
      every(x.steps, isCount) &&
      every(x.counters, isCount) &&
      every(x.nudges, isCount) &&
      (x.values === undefined || every(x.values, isStrings)) &&
      (x.marks === undefined || every(x.marks, isStrings)) &&
      (x.keys === undefined || every(x.keys, (k) => typeof k === "string")) &&
      (x.pending === undefined || every(x.pending, isCount)) &&
      (x.ignored === undefined || every(x.ignored, isCount)) &&
      (x.escalated === undefined || every(x.escalated, isCount))
    );
  });
}
