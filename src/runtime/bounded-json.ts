/**
 * A streaming JSON reader with bounded depth and bounded memory, for hook input that may be
 * hostile: stdin of any size, a transcript line of any length.
 *
 * - Nesting deeper than `maxDepth` is an error at once (no recursion anywhere: a 1M-level
 *   `[[[…` costs no stack).
 * - A string longer than `keep` bytes is kept as its first `keep / 2` and last `keep / 2`
 *   bytes joined by a newline (as `capText` cuts text for patterns); `cut` counts them.
 * - At most `maxValues` values are built and at most `maxKept` string bytes kept in all.
 *
 * Chunks are pushed as they arrive; `done` turns true when the top-level value is complete.
 * Escapes are decoded as JSON.parse decodes them (a lone surrogate escape becomes U+FFFD).
 */

/** Not JSON, or (`limit`) JSON past one of the bounds. */
export class BoundedJsonError extends Error {
  constructor(
    message: string,
    readonly limit = false,
  ) {
    super(message);
  }
}

export interface JsonBounds {
  maxDepth: number;
  /** Strings longer than this many bytes keep their first and last half of it. */
  keep: number;
  maxValues: number;
  maxKept: number;
}

/** Deepest nesting a hook event may have (real events nest a handful of levels). */
export const MAX_DEPTH = 256;
export const HOOK_JSON_BOUNDS: JsonBounds = {
  maxDepth: MAX_DEPTH,
  keep: 128 * 1024,
  maxValues: 1_000_000,
  maxKept: 64 * 1024 * 1024,
};

type Frame = { obj: Record<string, unknown>; key: string | undefined } | { arr: unknown[] };

/** What the reader expects next. */
const Mode = {
  Value: 0, // a value
  After: 1, // `,` or a closing bracket
  Key: 2, // a key (or `}` right after `{`)
  Colon: 3,
  Str: 4,
  Lit: 5,
  End: 6, // the top-level value is complete: only whitespace may follow
} as const;
type Mode = (typeof Mode)[keyof typeof Mode];

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;

export class BoundedJson {
  done = false;
  /** Strings kept as head and tail only. */
  cut = 0;
  private mode: Mode = Mode.Value;
  private stack: Frame[] = [];
  private root: unknown;
  private values = 0;
  private kept = 0;
  private strIsKey = false;
  private afterValueOk = false; // `[` or `{` just opened: a close is fine, a comma is not
  // the string being read
  private head: Buffer;
  private headLen = 0;
  private tail: Buffer;
  private tailLen = 0;
  private strBytes = 0;
  private esc = 0; // 0 none, 1 after `\`, 2..5 reading \u hex digits
  private hex = 0;
  private highSurrogate = -1;
  private lit = "";
  private readonly half: number;

  constructor(private readonly bounds: JsonBounds = HOOK_JSON_BOUNDS) {
    this.half = Math.max(1, Math.floor(bounds.keep / 2));
    this.head = Buffer.allocUnsafe(bounds.keep);
    this.tail = Buffer.allocUnsafe(this.half * 2);
  }

  /** The value read so far: complete once `done`; before that the top-level object in progress. */
  get value(): unknown {
    return this.root;
  }

  push(buf: Buffer, start = 0, end = buf.length): void {
    let i = start;
    while (i < end) {
      const c = buf[i] as number;
      switch (this.mode) {
        case Mode.Str: {
          if (this.esc === 0) {
            // a run of plain bytes up to the next quote or backslash, copied at once
            let j = i;
            while (j < end) {
              const b = buf[j];
              if (b === 0x22 || b === 0x5c) break;
              j++;
            }
            if (j > i) this.bytes(buf, i, j);
            i = j;
            if (i >= end) return;
            if (buf[i] === 0x22) {
              i++;
              this.endString();
            } else {
              this.esc = 1;
              i++;
            }
            continue;
          }
          this.escape(c);
          i++;
          continue;
        }
        case Mode.Lit: {
          if (isLitChar(c)) {
            if (this.lit.length > 64) throw new BoundedJsonError("a number or literal is too long");
            this.lit += String.fromCharCode(c);
            i++;
            continue;
          }
          this.endLiteral();
          continue; // the byte is read again in the next mode
        }
        default:
          break;
      }
      i++;
      if (WS[c]) continue;
      this.structural(c);
    }
  }

  /** Completes the read: the value, or an error when the text is not one whole JSON value. */
  end(): unknown {
    if (this.mode === Mode.Lit && this.stack.length === 0) this.endLiteral();
    if (!this.done) throw new BoundedJsonError("unexpected end of JSON input");
    return this.root;
  }

  private structural(c: number): void {
    switch (this.mode) {
      case Mode.Value:
        if (c === 0x7b || c === 0x5b) {
          this.open(c === 0x7b);
          return;
        }
        if (c === 0x22) {
          this.startString(false);
          return;
        }
        if (c === 0x5d && this.afterValueOk) {
          this.close();
          return;
        } // `[]`
        if (isLitChar(c)) {
          this.mode = Mode.Lit;
          this.lit = String.fromCharCode(c);
          return;
        }
        break;
      case Mode.Key:
        if (c === 0x22) {
          this.startString(true);
          return;
        }
        if (c === 0x7d && this.afterValueOk) {
          this.close();
          return;
        } // `{}`
        break;
      case Mode.Colon:
        if (c === 0x3a) {
          this.mode = Mode.Value;
          this.afterValueOk = false;
          return;
        }
        break;
      case Mode.After: {
        const top = this.stack[this.stack.length - 1];
        if (top && c === 0x2c) {
          this.mode = "obj" in top ? Mode.Key : Mode.Value;
          this.afterValueOk = false;
          return;
        }
        if (top && c === 0x7d && "obj" in top) {
          this.close();
          return;
        }
        if (top && c === 0x5d && "arr" in top) {
          this.close();
          return;
        }
        break;
      }
      default:
        break;
    }
    throw new BoundedJsonError(
      this.mode === Mode.End
        ? "unexpected text after the JSON value"
        : `unexpected character ${JSON.stringify(String.fromCharCode(c))}`,
    );
  }

  private count(): void {
    if (++this.values > this.bounds.maxValues)
      throw new BoundedJsonError(`more than ${this.bounds.maxValues} JSON values`, true);
  }

  private open(isObj: boolean): void {
    if (this.stack.length >= this.bounds.maxDepth)
      throw new BoundedJsonError(`JSON nested deeper than ${this.bounds.maxDepth} levels`, true);
    this.count();
    const v: Record<string, unknown> | unknown[] = isObj ? {} : [];
    this.place(v);
    this.stack.push(
      isObj ? { obj: v as Record<string, unknown>, key: undefined } : { arr: v as unknown[] },
    );
    this.mode = isObj ? Mode.Key : Mode.Value;
    this.afterValueOk = true;
  }

  private close(): void {
    this.stack.pop();
    this.settle();
  }

  /** A value was completed: what may follow it. */
  private settle(): void {
    this.afterValueOk = false;
    if (this.stack.length === 0) {
      this.mode = Mode.End;
      this.done = true;
    } else this.mode = Mode.After;
  }

  /** Puts a value where it belongs: the root, the array, or the object under its key. */
  private place(v: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.root = v;
      return;
    }
    if ("arr" in top) {
      top.arr.push(v);
      return;
    }
    const key = top.key as string;
    if (key === "__proto__")
      Object.defineProperty(top.obj, key, {
        value: v,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    else top.obj[key] = v;
  }

  private startString(isKey: boolean): void {
    if (!isKey) this.count();
    this.mode = Mode.Str;
    this.strIsKey = isKey;
    this.headLen = 0;
    this.tailLen = 0;
    this.strBytes = 0;
    this.esc = 0;
    this.highSurrogate = -1;
  }

  private bytes(buf: Buffer, from: number, to: number): void {
    this.flushSurrogate();
    const n = to - from;
    this.strBytes += n;
    const room = this.head.length - this.headLen;
    if (room > 0) {
      const take = Math.min(room, n);
      buf.copy(this.head, this.headLen, from, from + take);
      this.headLen += take;
    }
    // the tail: the last `half` bytes seen (kept in a buffer of twice that, shifted when full)
    const cap = this.tail.length;
    if (n >= this.half) {
      buf.copy(this.tail, 0, to - this.half, to);
      this.tailLen = this.half;
      return;
    }
    if (this.tailLen + n > cap) {
      this.tail.copyWithin(0, this.tailLen - this.half, this.tailLen);
      this.tailLen = this.half;
    }
    buf.copy(this.tail, this.tailLen, from, to);
    this.tailLen += n;
  }

  private one(byte: number): void {
    SCRATCH[0] = byte;
    this.bytes(SCRATCH, 0, 1);
  }

  private escape(c: number): void {
    if (this.esc === 1) {
      if (c === 0x75) {
        this.esc = 2;
        this.hex = 0;
        return;
      }
      const b = SIMPLE_ESCAPES[c];
      if (b === undefined) throw new BoundedJsonError("bad escape in a JSON string");
      this.esc = 0;
      this.one(b);
      return;
    }
    const d = hexValue(c);
    if (d < 0) throw new BoundedJsonError("bad \\u escape in a JSON string");
    this.hex = this.hex * 16 + d;
    if (this.esc < 5) {
      this.esc++;
      return;
    }
    this.esc = 0;
    this.codeUnit(this.hex);
  }

  private codeUnit(u: number): void {
    if (u >= 0xd800 && u <= 0xdbff) {
      this.flushSurrogate();
      this.highSurrogate = u;
      return;
    }
    let cp = u;
    if (u >= 0xdc00 && u <= 0xdfff) {
      if (this.highSurrogate < 0) cp = 0xfffd;
      else cp = 0x10000 + ((this.highSurrogate - 0xd800) << 10) + (u - 0xdc00);
      this.highSurrogate = -1;
    } else this.flushSurrogate();
    const enc = Buffer.from(String.fromCodePoint(cp), "utf8");
    this.bytes(enc, 0, enc.length);
  }

  private flushSurrogate(): void {
    if (this.highSurrogate < 0) return;
    this.highSurrogate = -1;
    const enc = Buffer.from("\ufffd", "utf8");
    this.strBytes += enc.length;
    // a lone high surrogate: U+FFFD (bytes() would recurse into here, so copy by hand)
    for (const b of enc) {
      if (this.headLen < this.head.length) this.head[this.headLen++] = b;
      if (this.tailLen >= this.tail.length) {
        this.tail.copyWithin(0, this.tailLen - this.half, this.tailLen);
        this.tailLen = this.half;
      }
      this.tail[this.tailLen++] = b;
    }
  }

  private endString(): void {
    this.flushSurrogate();
    let s: string;
    if (this.strBytes <= this.head.length) {
      s = this.head.toString("utf8", 0, this.headLen);
    } else {
      this.cut++;
      const h = this.half;
      s = `${this.head.toString("utf8", 0, wholeUtf8(this.head, h))}\n${this.tail.toString(
        "utf8",
        startUtf8(this.tail, this.tailLen - this.half, this.tailLen),
        this.tailLen,
      )}`;
    }
    this.kept += Math.min(this.strBytes, this.head.length + 1);
    if (this.kept > this.bounds.maxKept)
      throw new BoundedJsonError(`more than ${this.bounds.maxKept} bytes of JSON strings`, true);
    if (this.strIsKey) {
      const top = this.stack[this.stack.length - 1];
      if (top && "obj" in top) top.key = s;
      this.mode = Mode.Colon;
      return;
    }
    this.place(s);
    this.settle();
  }

  private endLiteral(): void {
    let v: unknown;
    try {
      v = JSON.parse(this.lit);
    } catch {
      throw new BoundedJsonError(`bad JSON literal ${JSON.stringify(this.lit.slice(0, 20))}`);
    }
    if (typeof v === "object" && v !== null) throw new BoundedJsonError("bad JSON literal");
    this.count();
    this.place(v);
    this.settle();
  }
}

const SCRATCH = Buffer.alloc(1);

const SIMPLE_ESCAPES: Record<number, number> = {
  34: 0x22,
  92: 0x5c,
  47: 0x2f,
  98: 0x08,
  102: 0x0c,
  110: 0x0a,
  114: 0x0d,
  116: 0x09,
};

function isLitChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x2b ||
    c === 0x2e ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x45
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** Length of the first `n` bytes without a UTF-8 sequence cut at the end. */
function wholeUtf8(buf: Buffer, n: number): number {
  let i = n;
  let back = 0;
  while (i > 0 && back < 4 && ((buf[i - 1] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return n;
  const lead = buf[i - 1] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? i - 1 : n;
}

/** First index at or after `from` that does not continue a UTF-8 sequence. */
function startUtf8(buf: Buffer, from: number, to: number): number {
  let i = from;
  while (i < to && i < from + 3 && ((buf[i] as number) & 0xc0) === 0x80) i++;
  return i;
}

/** Parses a whole text (or buffer) with bounds: the value and how many strings were cut. */
export function parseBounded(
  text: string | Buffer,
  bounds: JsonBounds = HOOK_JSON_BOUNDS,
): { value: unknown; cut: number } {
  const p = new BoundedJson(bounds);
  const buf = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  p.push(buf);
  return { value: p.end(), cut: p.cut };
}
