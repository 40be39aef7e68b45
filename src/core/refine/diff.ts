/**
 * A line diff of two candidate texts (a few hundred lines at most): the longest common
 * subsequence, shown as `-` / `+` lines with `context` unchanged lines around each change.
 */
export function lineDiff(before: string, after: string, context = 2): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: common lines of a[i..] and b[j..]
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: { op: " " | "-" | "+"; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: " ", line: a[i]! });
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      ops.push({ op: "+", line: b[j]! });
      j++;
    } else {
      ops.push({ op: "-", line: a[i]! });
      i++;
    }
  }
  const keep = new Set<number>();
  ops.forEach((o, k) => {
    if (o.op === " ") return;
    for (let d = -context; d <= context; d++) keep.add(k + d);
  });
  const out: string[] = [];
  let last = -1;
  ops.forEach((o, k) => {
    if (!keep.has(k)) return;
    if (last >= 0 && k > last + 1) out.push("…");
    out.push(`${o.op} ${o.line}`);
    last = k;
  });
  return out;
}
