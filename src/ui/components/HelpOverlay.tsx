import { Box } from "ink";
import { type ReactNode, useMemo } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { KeyLayer, useActiveTables } from "../hooks/useKeypress.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { helpLines, type KeyTable } from "../keys/table.js";
import { HELP_KEYS } from "../keys/tables.js";
import { wrapLine } from "../text/wrap.js";
import { Text } from "./Text.js";

export interface HelpOverlayProps {
  width: number;
  height: number;
  onClose: () => void;
}

interface Row {
  keys: string;
  text: string;
  scope: boolean;
}

/** Help rows for the tables at `width`: key column, then the text wrapped beside it. */
export function helpRows(tables: readonly KeyTable[], width: number): Row[] {
  const lines = helpLines(tables);
  const keyW = Math.min(
    Math.max(...lines.map((l) => l.keys.length), 4) + 1,
    Math.max(6, Math.min(12, Math.floor(width / 4))),
  );
  const textW = Math.max(8, width - keyW);
  const rows: Row[] = [];
  for (const l of lines) {
    if (l.kind === "scope") {
      rows.push({ keys: "", text: l.text, scope: true });
      continue;
    }
    // A key list longer than its column gets a row of its own.
    const keysFit = l.keys.length < keyW;
    if (!keysFit)
      for (const k of wrapLine(l.keys, width)) rows.push({ keys: k, text: "", scope: false });
    const pad = " ".repeat(keyW);
    wrapLine(l.text, textW).forEach((t, i) => {
      rows.push({ keys: i === 0 && keysFit ? l.keys.padEnd(keyW) : pad, text: t, scope: false });
    });
  }
  return rows;
}

/**
 * `?`: every key of the screen you are on (the live key tables, most specific first), then
 * the global keys. Derived from the same tables the keys are handled by; wraps to the width
 * and scrolls.
 */
export function HelpOverlay({ width, height, onClose }: HelpOverlayProps): ReactNode {
  const theme = useTheme();
  const live = useActiveTables();
  const tables = useMemo(
    () => live.filter((t) => t.layer < KeyLayer.Overlay).map((t) => t.table),
    [live],
  );
  const inner = Math.max(10, width - 4);
  const rows = useMemo(() => helpRows(tables, inner), [tables, inner]);
  const visible = Math.max(1, height - 4);
  const cursor = useListCursor(Math.max(1, rows.length - visible + 1), visible, "help");
  useKeyTable(
    HELP_KEYS,
    {
      move: (input, key) => cursor.handle(input, key),
      close: () => onClose(),
    },
    { layer: KeyLayer.Overlay, fallback: () => true },
  );
  const top = cursor.index;
  return (
    <Box flexDirection="column" borderStyle="round" width={width} paddingX={1}>
      <Text bold color={theme.accent} wrap="truncate-end">
        Keys
        {rows.length > visible
          ? ` ${top + 1}–${Math.min(rows.length, top + visible)} of ${rows.length} · j/k scroll`
          : ""}{" "}
        · Esc closes
      </Text>
      {rows.slice(top, top + visible).map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows of a fixed text
        <Text key={top + i} wrap="truncate-end">
          {r.scope ? (
            <Text bold>{r.text}</Text>
          ) : (
            <>
              <Text color={theme.accent}>{r.keys}</Text>
              {r.text}
            </>
          )}
        </Text>
      ))}
    </Box>
  );
}
