import stringWidth from "string-width";

/** Expands tabs to the next multiple of `tab` columns (a tab's width is 0 to Ink's layout). */
export function expandTabs(line: string, tab = 8): string {
  if (!line.includes("\t")) return line;
  let out = "";
  let col = 0;
  for (const ch of line) {
    if (ch === "\t") {
      const n = tab - (col % tab);
      out += " ".repeat(n);
      col += n;
    } else {
      out += ch;
      col += stringWidth(ch);
    }
  }
  return out;
}

/** Cuts `s` to at most `width` columns (by display width). */
export function cutTo(s: string, width: number): string {
  if (width <= 0) return "";
  if (s.length <= width && stringWidth(s) <= width) return s;
  let out = "";
  let w = 0;
  for (const ch of s) {
    const cw = stringWidth(ch);
    if (w + cw > width) break;
    out += ch;
    w += cw;
  }
  return out;
}

/** Drops the first `cols` columns of `s`. */
export function dropCols(s: string, cols: number): string {
  if (cols <= 0) return s;
  let w = 0;
  let i = 0;
  const chars = [...s];
  while (i < chars.length && w < cols) w += stringWidth(chars[i++]!);
  return chars.slice(i).join("");
}

/**
 * Wraps one line to `width` columns, at spaces when it can, hard otherwise; at most `max`
 * rows (a huge line never wraps past what the screen can show).
 */
export function wrapLine(line: string, width: number, max = Number.POSITIVE_INFINITY): string[] {
  const w = Math.max(1, width);
  const rows: string[] = [];
  let rest = line;
  while (rows.length < max) {
    if (stringWidth(rest) <= w) {
      rows.push(rest);
      break;
    }
    const head = cutTo(rest, w);
    const space = head.lastIndexOf(" ");
    const cut = space > w / 3 ? space + 1 : head.length;
    rows.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut);
  }
  return rows;
}

/**
 * Keeps both ends of an id and drops its middle: `serve-static…0103688c`. Two ids that differ
 * only at the end stay distinguishable, unlike a cut at the end.
 */
export function middleEllipsis(s: string, width: number): string {
  if (stringWidth(s) <= width) return s;
  if (width <= 1) return cutTo(s, width);
  const tail = Math.ceil((width - 1) / 2);
  const head = width - 1 - tail;
  const chars = [...s];
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - tail).join("")}`;
}

/** Pads (or middle-ellipsises) `s` to exactly `width` columns. */
export function fitCell(s: string, width: number, align: "left" | "right" = "left"): string {
  const t = middleEllipsis(s, width);
  const pad = " ".repeat(Math.max(0, width - stringWidth(t)));
  return align === "left" ? t + pad : pad + t;
}
