import type { Contrast } from "../stats/contrast.js";
import { fmtCi, fmtDelta, fmtP, isNum } from "./format.js";

/** Shared scale of a forest plot: symmetric around 0, covering every interval. */
export function forestRange(contrasts: readonly Contrast[]): number {
  let m = 0.25;
  for (const c of contrasts)
    for (const x of [c.delta, ...c.ci]) if (isNum(x)) m = Math.max(m, Math.abs(x));
  return Math.min(1, Math.ceil(m * 4) / 4);
}

export const contrastLabel = (c: Contrast): string => `${c.arm} − ${c.comparator} (${c.cohort})`;

/**
 * A Unicode forest plot: one line per contrast, the 95% interval as ─, the estimate as
 * ●, zero as │; the numbers (Δ, CI, p, tasks) beside every line — never a bare p.
 */
export function renderForestText(contrasts: readonly Contrast[], width = 41): string[] {
  if (contrasts.length === 0) return ["(no contrasts)"];
  const range = forestRange(contrasts);
  const col = (x: number): number =>
    Math.max(0, Math.min(width - 1, Math.round(((x + range) / (2 * range)) * (width - 1))));
  const zero = col(0);
  const labels = contrasts.map(contrastLabel);
  const lw = Math.max(...labels.map((l) => l.length));
  const lines = contrasts.map((c, i) => {
    const cells = new Array<string>(width).fill(" ");
    cells[zero] = "│";
    if (isNum(c.ci[0]) && isNum(c.ci[1])) {
      for (let x = col(c.ci[0]); x <= col(c.ci[1]); x++) cells[x] = x === zero ? "┼" : "─";
    }
    if (isNum(c.delta)) cells[col(c.delta)] = "●";
    const stats = `Δ ${fmtDelta(c.delta)} ${fmtCi(c.ci)} p=${fmtP(c.p)} n=${c.nTasks}`;
    return `${(labels[i] as string).padEnd(lw)}  ${cells.join("")}  ${stats}`;
  });
  const axis = new Array<string>(width).fill(" ");
  const put = (x: number, t: string): void => {
    const start = Math.max(0, Math.min(width - t.length, x - Math.floor(t.length / 2)));
    for (let k = 0; k < t.length; k++) axis[start + k] = t[k] as string;
  };
  put(0, `-${range}`);
  put(zero, "0");
  put(width - 1, `+${range}`);
  return [...lines, `${" ".repeat(lw)}  ${axis.join("")}`];
}
