import { Box } from "ink";
import { type ReactNode, useMemo, useState } from "react";
import { type AlignedRow, alignAttempts, type Step } from "../../core/app/attempt.js";
import { type SiblingComparison, siblingComparison } from "../../core/app/sibling.js";
import type { Attempt } from "../../core/model/attempt.js";
import { useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { eventLine } from "../data/markers.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { COMPARE_KEYS } from "../keys/tables.js";
import { fitCell, wrapLine } from "../text/wrap.js";
import { outcomeToken } from "../theme.js";
import { Text } from "./Text.js";
import { VirtualList } from "./VirtualList.js";

export interface CompareViewProps {
  left: Attempt;
  right: Attempt;
  width: number;
  height: number;
  onClose: () => void;
}

/** One side of a row: step number, command, and its result's exit status. */
function side(s: Step | undefined, w: number): string {
  if (!s) return " ".repeat(w);
  const code = s.result?.exitCode;
  const tail = code !== undefined && code !== 0 ? ` ✗${code}` : s.result?.isError ? " ✗" : "";
  return fitCell(`${String(s.eventIndex).padStart(3)} ${eventLine(s.call)}${tail}`, w);
}

/** One row of the differences block above the side-by-side. */
interface DiffRow {
  text: string;
  tone: "head" | "decisive" | "other";
}

/**
 * The evidence from the passing sibling as rows: a head line, then each difference (best
 * first) wrapped to at most three rows for the first and two for the others, all within `max` rows.
 */
function differenceRows(c: SiblingComparison, width: number, max: number): DiffRow[] {
  const rows: DiffRow[] = [];
  const head = c.decisive
    ? `decisive difference from passing sibling ${c.siblingId}${c.mechanismId ? ` → ${c.mechanismId}` : ""}:`
    : c.differences.length > 0
      ? `no decisive difference from passing sibling ${c.siblingId} (needs review):`
      : `no decisive difference from passing sibling ${c.siblingId}: ${c.summary}`;
  rows.push({ text: head, tone: "head" });
  c.differences.forEach((d, i) => {
    const mark = d.decisive ? "✱" : "·";
    const tag = d.mechanismId && d.decisive ? ` [${d.mechanismId}]` : "";
    const lines = wrapLine(`${d.sentence}${tag}`, Math.max(8, width - 4), i === 0 ? 3 : 2);
    for (const [j, l] of lines.entries())
      rows.push({
        text: `${j === 0 ? `${i + 1} ${mark} ` : "    "}${l}`,
        tone: d.decisive ? "decisive" : "other",
      });
  });
  return rows.slice(0, Math.max(1, max));
}

/**
 * Two attempts side by side, aligned by step (same commands on one row); rows that only one
 * side ran are marked ≠ and the first divergence is flagged ▶ (`d` jumps to it).
 */
export function CompareView({ left, right, width, height, onClose }: CompareViewProps): ReactNode {
  const theme = useTheme();
  const [swapped, setSwapped] = useState(false);
  const [a, b] = swapped ? [right, left] : [left, right];
  const align = useMemo(() => alignAttempts(a, b), [a, b]);
  const { data } = useAppState();
  // the decisive differences, when one side passed and the other did not (core/app)
  const comparison = useMemo(
    () => (data ? siblingComparison(data, left.id, right.id) : undefined),
    [data, left.id, right.id],
  );
  const diffRows = comparison
    ? differenceRows(comparison, width, Math.max(1, Math.floor((height - 6) / 2)))
    : [];
  const listHeight = Math.max(3, height - 3 - diffRows.length);
  const cursor = useListCursor(align.rows.length, listHeight);
  useKeyTable(COMPARE_KEYS, {
    move: cursor.handle,
    divergence: () => {
      if (align.firstDivergence >= 0) cursor.setIndex(align.firstDivergence);
    },
    swap: () => setSwapped((s) => !s),
    close: onClose,
  });
  const colW = Math.max(8, Math.floor((width - 5) / 2));
  const head = (x: Attempt) => fitCell(`${x.id} · ${x.outcome}`, colW);
  const same = align.rows.filter((r) => r.same).length;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        {"  "}
        <Text color={outcomeToken(theme, a.outcome)}>{head(a)}</Text>
        {" │ "}
        <Text color={outcomeToken(theme, b.outcome)}>{head(b)}</Text>
      </Text>
      {diffRows.map((r, i) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
          key={i}
          wrap="truncate-end"
          bold={r.tone === "head"}
          color={r.tone === "decisive" ? theme.bad : r.tone === "other" ? theme.muted : undefined}
        >
          {r.text}
        </Text>
      ))}
      <Text color={theme.muted} wrap="truncate-end">
        {`${same} shared steps · ${align.rows.length - same} on one side · `}
        {align.firstDivergence >= 0
          ? `first divergence at row ${align.firstDivergence + 1} (▶)`
          : "identical commands"}
      </Text>
      <VirtualList
        items={align.rows}
        selected={cursor.index}
        height={listHeight}
        keyOf={(_r, i) => String(i)}
        empty="neither attempt ran a tool"
        renderRow={(r: AlignedRow, i) => (
          <Text wrap="truncate-end" color={r.same ? undefined : theme.warn}>
            {side(r.left, colW)}
            <Text color={i === align.firstDivergence ? theme.bad : theme.muted}>
              {i === align.firstDivergence ? "▶" : r.same ? "│" : "≠"}
            </Text>
            {side(r.right, colW)}
          </Text>
        )}
      />
    </Box>
  );
}
