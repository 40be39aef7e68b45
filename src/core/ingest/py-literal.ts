/**
 * A reader for Python literals as `repr()` prints them (dicts, lists, tuples, strings,
 * numbers, True / False / None), for logs that print a dict instead of JSON (the
 * OpenHands SWE-bench grader logs its report that way). Evaluates nothing: anything else is
 * an error naming the offset.
 */
export class PyLiteralError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
  "\n": "",
};

/** Parse one literal at the start of `text`; returns it and the offset just after it. */
export function parsePyLiteral(text: string, from = 0): { value: unknown; end: number } {
  let i = from;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
  };
  const fail = (what: string): never => {
    throw new PyLiteralError(`${what} at offset ${i}`, i);
  };
  const str = (): string => {
    const q = text[i];
    i++;
    let out = "";
    while (i < text.length) {
      const c = text[i]!;
      if (c === q) {
        i++;
        return out;
      }
      if (c === "\\") {
        const n = text[i + 1] ?? "";
        if (n === "x" || n === "u" || n === "U") {
          const len = n === "x" ? 2 : n === "u" ? 4 : 8;
          const hex = text.slice(i + 2, i + 2 + len);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) fail("bad escape");
          out += String.fromCodePoint(Number.parseInt(hex, 16));
          i += 2 + len;
          continue;
        }
        const e = ESCAPES[n];
        out += e ?? `\\${n}`;
        i += 2;
        continue;
      }
      out += c;
      i++;
    }
    return fail("unterminated string");
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === "'" || c === '"') return str();
    if (c === "{" || c === "[" || c === "(") {
      const close = c === "{" ? "}" : c === "[" ? "]" : ")";
      i++;
      const list: unknown[] = [];
      const dict: Record<string, unknown> = {};
      for (;;) {
        ws();
        if (text[i] === close) {
          i++;
          return c === "{" ? dict : list;
        }
        const v = value();
        if (c === "{") {
          ws();
          if (text[i] !== ":") fail("expected ':'");
          i++;
          dict[String(v)] = value();
        } else list.push(v);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] !== close) fail(`expected ',' or '${close}'`);
      }
    }
    const word = /^(?:True|False|None|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/.exec(
      text.slice(i, i + 40),
    );
    if (!word) return fail("unexpected character");
    i += word[0].length;
    if (word[0] === "True") return true;
    if (word[0] === "False") return false;
    if (word[0] === "None") return null;
    return Number(word[0]);
  };
  const v = value();
  return { value: v, end: i };
}
