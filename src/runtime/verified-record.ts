import { type BigIntStats, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile, readRegularFileStat } from "../core/regular-file.js";
import { fnv1a } from "./fnv.js";
import { ensureDir, writeFileAtomicSync } from "./state-store.js";

/**
 * The hook's memory that a frozen portfolio's exact files verified, so that an event whose
 * files have not changed since need not hash them again (loading node:crypto alone costs a
 * hook call more than its whole evaluation).
 *
 * What is remembered is each file's IDENTITY: device, inode, size, and mtime and ctime in
 * nanoseconds. On a POSIX filesystem any write, rename-over or `touch -r` changes the ctime,
 * and no unprivileged process can set a ctime, so a file that still has its recorded identity
 * still holds the bytes that were hashed. Limits: filesystems whose "ctime" is not a change
 * time (FAT, exFAT, FUSE mounts that let it be set, SMB) are never recorded (NO_CTIME); and
 * writes through a shared memory mapping kept open across the check may leave the ctime as
 * it was until writeback. Like git's racy-timestamp rule, a file changed less than
 * RACY_NS before the check is never recorded (a later edit in the same timestamp tick could
 * keep its identity).
 *
 * Where: the user's state folder ($XDG_STATE_HOME/fire/verified, else
 * ~/.local/state/fire/verified), outside every project, so an agent sandboxed to its project
 * (Codex workspace-write, Claude Code's sandbox) cannot forge a record even when the portfolio
 * lies in its project (`hook install --project`). FIRE_VERIFIED_DIR names another folder;
 * `off` disables the record (every event hashes). A record is only ever a shortcut to the
 * same verdict: a missing, unreadable or mismatching record means "hash again".
 */
export const RACY_NS = 2_000_000_000n;

/**
 * Linux filesystem types (statfs f_type) whose ctime is not a kernel-kept change time: MSDOS
 * (FAT), exFAT, FUSE, SMB / CIFS. A portfolio on one is hashed on every event.
 */
const NO_CTIME = new Set([0x4d44, 0x2011bab0, 0x65735546, 0x517b, 0xff534d42, 0xfe534d42]);

/** Bumped when what an identity covers changes. */
const RECORD_FORMAT = "fire-verified/1";

/** The folder of verification records for this environment; undefined: none. */
export function verifiedRecordDir(env: NodeJS.ProcessEnv): string | undefined {
  const named = env.FIRE_VERIFIED_DIR;
  if (named === "off") return undefined;
  if (named) return named;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "fire", "verified");
  return env.HOME ? join(env.HOME, ".local", "state", "fire", "verified") : undefined;
}

/** One file's identity line (see above). */
function identityOf(path: string, st: BigIntStats): string {
  return `${path}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** A file's identity from its path (stat follows links, as the read does). */
export function statIdentity(path: string, nowMs: number): { line: string; young: boolean } {
  return described(path, statSync(path, { bigint: true }), nowMs);
}

/**
 * A regular file's bytes and the identity of the descriptor they were read from, taken after
 * the read: a change during the read shows in its ctime.
 */
export function readWithIdentity(
  path: string,
  nowMs: number,
): {
  bytes: Buffer;
  line: string;
  young: boolean;
} {
  const { bytes, st } = readRegularFileStat(path);
  return { bytes, ...described(path, st, nowMs) };
}

function described(path: string, st: BigIntStats, nowMs: number): { line: string; young: boolean } {
  if (!st.isFile()) throw new Error(`${path}: not a regular file`);
  const now = BigInt(Math.floor(nowMs)) * 1_000_000n;
  const young = now - st.ctimeNs < RACY_NS || now - st.mtimeNs < RACY_NS;
  return { line: identityOf(path, st), young };
}

/** The identity of a set of files, as one key. */
export function identityKey(dir: string, lines: string[]): string {
  return [RECORD_FORMAT, dir, ...lines].join("\n");
}

function recordFile(recordDir: string, dir: string): string {
  return join(recordDir, `${fnv1a(dir)}.json`);
}

/** Whether the record for `dir` holds exactly `key`. */
export function hasRecord(recordDir: string | undefined, dir: string, key: string): boolean {
  if (!recordDir) return false;
  try {
    const r = JSON.parse(readRegularFile(recordFile(recordDir, dir), "utf8")) as { key?: unknown };
    return r?.key === key;
  } catch {
    return false;
  }
}

/** Remembers that the files of `key` verified; a record that cannot be written costs speed only. */
export function writeRecord(recordDir: string | undefined, dir: string, key: string): void {
  if (!recordDir) return;
  try {
    if (NO_CTIME.has(statfsSync(dir).type)) return;
    ensureDir(recordDir);
    writeFileAtomicSync(recordFile(recordDir, dir), JSON.stringify({ key }));
  } catch {
    // read-only home, full disk: the next event hashes again
  }
}
