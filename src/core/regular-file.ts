import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  type Stats,
} from "node:fs";

/**
 * Opening files that an agent, a trace or a hostile workspace may have replaced: a FIFO,
 * socket or device in place of a transcript, candidate, manifest or state file must never
 * block or be read. The file is opened NON-BLOCKING (opening a FIFO then returns at once
 * instead of waiting for a writer) and checked with fstat on the opened descriptor (no
 * stat-then-open race); anything but a regular file is refused with its kind.
 */

/** A path that is not a regular file; `code` mimics a system error for callers that switch on it. */
export class NotRegularFileError extends Error {
  readonly code = "ENOTREG";
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path}: ${kind}, not a regular file`);
  }
}

const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What a non-regular file is, for messages. */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isDirectory()) return "a directory";
  return "not a regular file";
}

/** How to open: `noFollow` refuses a symlink at the path itself (ELOOP). */
export interface OpenOptions {
  noFollow?: boolean;
}

/** Opens a regular file for reading without blocking; the caller closes the descriptor. */
export function openRegular(
  path: string,
  opts: OpenOptions = {},
): { fd: number; size: number; stats: Stats } {
  const noFollow = opts.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0;
  const fd = openSync(path, constants.O_RDONLY | NONBLOCK | noFollow);
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw new NotRegularFileError(path, fileKind(st));
  }
  return { fd, size: st.size, stats: st };
}

/** The whole content of a regular file (see openRegular); throws like readFileSync otherwise. */
export function readRegularFile(path: string): Buffer;
export function readRegularFile(path: string, encoding: "utf8", opts?: OpenOptions): string;
export function readRegularFile(
  path: string,
  encoding?: "utf8",
  opts: OpenOptions = {},
): Buffer | string {
  const { fd, size } = openRegular(path, opts);
  try {
    const all = readAll(fd, size);
    return encoding ? all.toString(encoding) : all;
  } finally {
    closeSync(fd);
  }
}

/**
 * A regular file's content and the (nanosecond) stat of the descriptor it was read from,
 * taken after the read: a change during the read shows in that stat's ctime.
 */
export function readRegularFileStat(path: string): { bytes: Buffer; st: BigIntStats } {
  const { fd, size } = openRegular(path);
  try {
    const bytes = readAll(fd, size);
    return { bytes, st: fstatSync(fd, { bigint: true }) };
  } finally {
    closeSync(fd);
  }
}

/** Reads to the end (the size is a hint: a file may grow while it is read). */
function readAll(fd: number, size: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let buf = Buffer.allocUnsafe(Math.max(size, 1) + 1);
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    buf = Buffer.allocUnsafe(64 * 1024);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}
