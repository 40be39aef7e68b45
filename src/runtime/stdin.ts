import { isUtf8 } from "node:buffer";
import { read } from "node:fs";
import { BoundedJson, BoundedJsonError, HOOK_JSON_BOUNDS, MAX_DEPTH } from "./bounded-json.js";

/** Largest stdin the hook parses; a larger event is a fault (denied under --fail-closed). */
export const STDIN_CAP = 4 * 1024 * 1024;
/** How much of an oversized stdin is kept to learn its event name and tool. */
export const STDIN_HEAD = 64 * 1024;
/**
 * Stdin must hold a whole JSON event, or be closed, within this long; a dripping writer is
 * given up on.
 */
export const STDIN_DEADLINE_MS = 10_000;
/** An oversized stdin is drained (so the writer is not left blocked) up to this much. */
const DRAIN_CAP = 512 * 1024 * 1024;

/**
 * Stdin as read: its text (and its JSON value when it was parsed already), or why it could
 * not be used (`invalidUtf8`: the text was decoded with replacement characters). `head` is the start of an oversized or unfinished stdin; `abandoned`: a read is
 * still pending (the caller must exit explicitly). `bounded`: the event as the bounded reader
 * (bounded-json.ts) saw it — whole (`complete`, long strings kept as head and tail, `cut` of
 * them) or, when reading stopped, the top-level object as far as it got.
 */
export type StdinRead =
  | {
      text: string;
      value?: unknown;
      /** The bytes were not valid UTF-8: `text` holds U+FFFD where they were (see runHook). */
      invalidUtf8?: true;
    }
  | {
      error: string;
      head?: string;
      abandoned?: boolean;
      bounded?: { value: unknown; complete: boolean; cut: number; bytes: number };
    };

/**
 * Reads fd 0 to its end with ASYNC reads raced against a deadline: a writer that drips or
 * stalls without closing cannot hold the hook past STDIN_DEADLINE_MS (a blocking readSync
 * could wait forever). Past `cap` bytes only the head is kept and the rest is drained. A
 * stdin that already holds one whole JSON object is taken without waiting for the writer to
 * close it (a busy harness may close its end late).
 */
export async function readStdin(
  cap = STDIN_CAP,
  deadlineMs = Number(process.env.FIRE_HOOK_STDIN_MS) || STDIN_DEADLINE_MS,
  source: StdinSource = {},
): Promise<StdinRead> {
  const input = reader(source);
  const chunks: Buffer[] = [];
  let total = 0;
  let head: Buffer | undefined;
  const buf = Buffer.allocUnsafe(64 * 1024);
  const end = source.deadlineAt ?? Date.now() + deadlineMs;
  // Every byte also goes through the bounded reader: it knows when one whole value has
  // arrived (no re-parsing of a growing text), refuses over-deep nesting before anything
  // recurses on it, and reads an oversized event with its long strings cut.
  // (The usual event, one read holding one whole object, is parsed natively and its depth
  // checked on the value: the byte-wise reader starts only for events past the first read.)
  let json: BoundedJson | undefined;
  let jsonError: BoundedJsonError | undefined;
  const bounded = () => ({
    value: json?.value,
    complete: json?.done === true && jsonError === undefined,
    cut: json?.cut ?? 0,
    bytes: total,
  });
  const headText = () => (head ?? Buffer.concat(chunks)).subarray(0, STDIN_HEAD).toString("utf8");
  for (;;) {
    let n: number;
    try {
      const left = end - Date.now();
      // bytes already read (a handed prefix) are taken whatever the deadline
      const got =
        left > 0 || input.buffered()
          ? await withTimeout(input.read(buf), Math.max(left, 1))
          : undefined;
      if (got === undefined)
        return {
          error: `stdin was not closed within ${deadlineMs} ms`,
          abandoned: true,
          // what arrived so far: its event name decides --fail-closed
          head: headText(),
          bounded: bounded(),
        };
      n = got;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        await new Promise((r) => setTimeout(r, 2)); // non-blocking stdin without data yet
        continue;
      }
      if (code === "EOF") break;
      return { error: `cannot read stdin: ${(err as Error).message}` };
    }
    if (n === 0) break;
    total += n;
    if (json === undefined && total === n && n < cap && endsObject(buf, n)) {
      const text = buf.toString("utf8", 0, n);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined; // not whole yet: read on (bounded)
      }
      if (value !== undefined) {
        if (depthOf(value, MAX_DEPTH) > MAX_DEPTH)
          return {
            error: `bad hook event: JSON nested deeper than ${MAX_DEPTH} levels`,
            head: text.slice(0, STDIN_HEAD),
          };
        return isUtf8(buf.subarray(0, n)) ? { text, value } : { text, value, invalidUtf8: true };
      }
    }
    json ??= new BoundedJson(HOOK_JSON_BOUNDS); // at the first read: it sees every byte
    if (jsonError === undefined) {
      try {
        json.push(buf, 0, n);
      } catch (err) {
        if (!(err instanceof BoundedJsonError)) throw err;
        jsonError = err;
        if (err.limit)
          return { error: `bad hook event: ${err.message}`, head: headText(), bounded: bounded() };
      }
    }
    if (head === undefined) {
      chunks.push(Buffer.from(buf.subarray(0, n)));
      if (total > cap) {
        head = Buffer.concat(chunks).subarray(0, STDIN_HEAD);
        chunks.length = 0;
      }
    } else if (total > DRAIN_CAP) break;
    // one whole value: taken without waiting for the writer to close stdin
    if (json.done && jsonError === undefined) break;
  }
  if (head !== undefined)
    return {
      error: `stdin exceeds ${cap} bytes (${total} read)`,
      head: head.toString("utf8"),
      bounded: bounded(),
    };
  const bytes = Buffer.concat(chunks, total);
  const text = bytes.toString("utf8");
  const utf8 = isUtf8(bytes) ? {} : { invalidUtf8: true as const };
  if (json?.done && jsonError === undefined) {
    try {
      return { text, value: JSON.parse(text), ...utf8 }; // the exact value (depth is bounded by now)
    } catch {
      // the bounded reader is more lenient (raw control characters): JSON.parse decides
    }
  }
  return { text, ...utf8 };
}

/** Whether the bytes read end with `}` (then trailing whitespace): maybe a whole object. */
function endsObject(buf: Buffer, n: number): boolean {
  for (let i = n - 1; i >= 0; i--) {
    const c = buf[i];
    if (c === 0x7d) return true;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return false;
}

/** The nesting depth of a parsed value, counted iteratively and only up to `limit + 1`. */
export function depthOf(value: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== "object" || v === null) continue;
    if (d + 1 > max) max = d + 1;
    if (max > limit) return max;
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push([x, d + 1]);
  }
  return max;
}

/**
 * Where the event's bytes come from: `prefix` first (bytes a caller already read from fd 0,
 * or the whole event when `fd` is false), then fd 0 unless `fd` is false.
 */
export interface StdinSource {
  prefix?: Buffer;
  fd?: boolean;
  /**
   * When the deadline falls (ms since the epoch), if a caller already spent part of it
   * reading the prefix: stdin is never waited on past STDIN_DEADLINE_MS in all.
   */
  deadlineAt?: number;
}

function reader(source: StdinSource): {
  read(buf: Buffer): Promise<number>;
  buffered(): boolean;
} {
  let left = source.prefix;
  const buffered = (): boolean => left !== undefined && left.length > 0;
  const next = (buf: Buffer): Promise<number> => {
    if (left && buffered()) {
      const n = left.copy(buf, 0, 0, Math.min(buf.length, left.length));
      left = left.subarray(n);
      return Promise.resolve(n);
    }
    if (source.fd === false) return Promise.resolve(0);
    return new Promise((resolve, reject) => {
      read(0, buf, 0, buf.length, null, (err, n) => (err ? reject(err) : resolve(n)));
    });
  };
  return { read: next, buffered };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/**
 * Event names and tool names written in a (possibly truncated) stdin text: every
 * `"hook_event_name": "…"` occurrence, so a nested copy cannot hide the real one.
 */
export function namesInHead(head: string): { events: string[]; tools: string[] } {
  const events = [...head.matchAll(/"hook_event_name"\s*:\s*"([A-Za-z]{1,40})"/g)].map(
    (m) => m[1] as string,
  );
  const tools = [...head.matchAll(/"tool_name"\s*:\s*"([^"\\]{1,200})"/g)].map(
    (m) => m[1] as string,
  );
  return { events, tools };
}
