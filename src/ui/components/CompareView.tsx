import { Box, Text } from "ink";
import { type ReactNode, useMemo, useState } from "react";
import { type AlignedRow, alignAttempts, type Step } from "../../core/compare/align.js";
import type { Attempt } from "../../core/model/attempt.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { eventLine } from "../data/markers.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { COMPARE_KEYS } from "../keys/tables.js";
import { fitCell } from "../text/wrap.js";
import { outcomeToken } from "../theme.js";
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

/**
 * Two attempts side by side, aligned by step (same commands on one row); rows that only one
 * side ran are marked ≠ and the first divergence is flagged ▶ (`d` jumps to it).
 */
export function CompareView({ left, right, width, height, onClose }: CompareViewProps): ReactNode {
  const theme = useTheme();
  const [swapped, setSwapped] = useState(false);
  const [a, b] = swapped ? [right, left] : [left, right];
  const align = useMemo(() => alignAttempts(a, b), [a, b]);
  const listHeight = Math.max(3, height - 3);
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
