import { Box } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { wrapLine } from "../text/wrap.js";
import { Text } from "./Text.js";

export interface ErrorBlockProps {
  /** Each error's full text (may hold several lines). */
  errors: readonly string[];
  width: number;
  /** Rows at most; what does not fit is counted, and E opens all of it in the pager. */
  rows: number;
}

/** Errors wrapped to the width, in full when they fit (never cut at one line). */
export function ErrorBlock({ errors, width, rows }: ErrorBlockProps): ReactNode {
  const theme = useTheme();
  // ✗ starts an error; its further lines and wrapped rows are indented under it
  const lines = errors.flatMap((e) =>
    e
      .split("\n")
      .flatMap((l) => wrapLine(l, width - 2))
      .map((row, i) => `${i === 0 ? "✗" : " "} ${row}`),
  );
  if (lines.length === 0) return null;
  const fits = lines.length <= rows;
  const shown = fits ? lines : lines.slice(0, Math.max(1, rows - 1));
  return (
    <Box flexDirection="column">
      {shown.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows of fixed messages
        <Text key={i} color={theme.bad}>
          {l}
        </Text>
      ))}
      {fits ? null : (
        <Text
          color={theme.muted}
        >{`… ${lines.length - shown.length} more rows: E reads every error`}</Text>
      )}
    </Box>
  );
}
