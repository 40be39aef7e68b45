import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { printable } from "../../core/printable.js";
import { useTheme } from "../contexts/ThemeContext.js";

export interface TextViewProps {
  lines: readonly string[];
  /** First visible line. */
  top: number;
  height: number;
}

/** A scrolled window over long text (reports): only the visible lines render. */
export function TextView({ lines, top, height }: TextViewProps): ReactNode {
  const theme = useTheme();
  const rows = Math.max(1, height - 1);
  const start = Math.max(0, Math.min(top, Math.max(0, lines.length - rows)));
  return (
    <Box flexDirection="column">
      {lines.slice(start, start + rows).map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
        <Text key={start + i} wrap="truncate-end">
          {printable(l) || " "}
        </Text>
      ))}
      <Text color={theme.muted}>
        {lines.length > rows
          ? `lines ${start + 1}–${Math.min(lines.length, start + rows)} of ${lines.length} · j/k scroll · Esc back`
          : "Esc back"}
      </Text>
    </Box>
  );
}
