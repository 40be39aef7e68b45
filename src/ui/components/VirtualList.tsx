import { Box } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { Text } from "./Text.js";

export interface VirtualListProps<T> {
  items: readonly T[];
  selected: number;
  /** Rows available; only this many items are rendered. */
  height: number;
  renderRow: (item: T, index: number, selected: boolean) => ReactNode;
  keyOf: (item: T, index: number) => string;
  empty?: string;
}

/** The first visible row so the selection stays in view (selection kept near the middle). */
export function windowStart(count: number, selected: number, height: number): number {
  if (count <= height) return 0;
  const start = selected - Math.floor(height / 2);
  return Math.max(0, Math.min(start, count - height));
}

/** A scrolling list that renders only the visible rows, with a position indicator. */
export function VirtualList<T>({
  items,
  selected,
  height,
  renderRow,
  keyOf,
  empty,
}: VirtualListProps<T>): ReactNode {
  const theme = useTheme();
  if (items.length === 0) return <Text color={theme.muted}>{empty ?? "(nothing here)"}</Text>;
  const rows = Math.max(1, items.length > height ? height - 1 : height);
  const start = windowStart(items.length, selected, rows);
  const visible = items.slice(start, start + rows);
  return (
    <Box flexDirection="column">
      {visible.map((item, i) => (
        <Box key={keyOf(item, start + i)}>
          <Box flexShrink={0} width={2}>
            <Text color={start + i === selected ? theme.accent : undefined}>
              {start + i === selected ? "▸ " : "  "}
            </Text>
          </Box>
          {renderRow(item, start + i, start + i === selected)}
        </Box>
      ))}
      {items.length > rows ? (
        <Text color={theme.muted}>
          {`  ${start + 1}–${start + visible.length} of ${items.length}`}
        </Text>
      ) : null}
    </Box>
  );
}
