import type { ReactNode } from "react";
import { useTheme } from "../contexts/ThemeContext.js";
import { Text } from "./Text.js";

export interface ProgressBarProps {
  done: number;
  total?: number;
  width: number;
}

/** `[████░░░░] 12/40`; an unknown total shows the count only. */
export function ProgressBar({ done, total, width }: ProgressBarProps): ReactNode {
  const theme = useTheme();
  if (!total) return <Text color={theme.muted}>{done} done</Text>;
  const w = Math.max(4, width);
  const full = Math.min(w, Math.round((done / total) * w));
  return (
    <Text>
      <Text color={theme.accent}>{"█".repeat(full)}</Text>
      <Text color={theme.muted}>{"░".repeat(w - full)}</Text>
      <Text>
        {" "}
        {done}/{total}
      </Text>
    </Text>
  );
}
