/** Number formats shared by every report renderer. */

export const isNum = (x: number | null | undefined): x is number =>
  typeof x === "number" && Number.isFinite(x);

export function fmtRate(x: number | null | undefined): string {
  return isNum(x) ? x.toFixed(3) : "–";
}

export function fmtDelta(x: number | null | undefined): string {
  if (!isNum(x)) return "–";
  const r = Math.abs(x) < 5e-4 ? 0 : x;
  return `${r >= 0 ? "+" : "−"}${Math.abs(r).toFixed(3)}`;
}

export function fmtCi(ci: readonly [number, number]): string {
  return `[${fmtDelta(ci[0])}, ${fmtDelta(ci[1])}]`;
}

export function fmtP(p: number | null | undefined): string {
  if (!isNum(p)) return "–";
  if (p < 0.0001) return "<0.0001";
  return p >= 0.1 ? p.toFixed(3).replace(/0+$/, "").replace(/\.$/, "") : p.toPrecision(3);
}

/**
 * A reward as people read one: at most three decimals (`0.032`, `0.455`, `1`); a tiny
 * non-zero one in two significant digits (never a `0` that reads as nothing passed), and one
 * just short of 1 as `0.999` (never a `1` that reads as a pass).
 */
export function fmtReward(x: number | null | undefined): string {
  if (!isNum(x)) return "–";
  if (x !== 0 && Math.abs(x) < 0.001) return x.toPrecision(2);
  const r = Number(x.toFixed(3));
  if (r === 1 && x < 1) return "0.999";
  return String(r);
}

export function fmtMoney(x: number | null | undefined): string {
  return isNum(x) ? `$${x.toFixed(2)}` : "–";
}

export function fmtSeconds(x: number | null | undefined): string {
  return isNum(x) ? `${x.toFixed(1)}s` : "–";
}

/** Pads cells into aligned columns (first column left, others right). */
export function alignTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) {
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...c].length);
    });
  }
  return rows.map((r) =>
    r
      .map((c, i) => {
        const pad = " ".repeat((widths[i] ?? 0) - [...c].length);
        return i === 0 ? c + pad : pad + c;
      })
      .join("  ")
      .trimEnd(),
  );
}
