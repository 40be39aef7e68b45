import { Box } from "ink";
import type { ReactNode } from "react";
import { describeDecision } from "../../core/app/present.js";
import type { Decision } from "../../core/mine/decisions.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { Text } from "./Text.js";

export interface DecisionHistoryProps {
  decisions: readonly Decision[];
  width: number;
  /** Rows shown (newest first). */
  rows?: number;
}

/** The cluster decisions (mining/decisions.json), newest first: what `u` would undo next. */
export function DecisionHistory({ decisions, width, rows = 4 }: DecisionHistoryProps): ReactNode {
  const theme = useTheme();
  const shown = decisions
    .map((d, i) => ({ d, n: i + 1 }))
    .slice(-rows)
    .reverse();
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>
        decision history ({decisions.length}) <Text color={theme.muted}>· u undoes the newest</Text>
      </Text>
      {shown.length === 0 ? <Text color={theme.muted}>no cluster decisions yet</Text> : null}
      {shown.map(({ d, n }) => (
        <Text key={n} wrap="truncate-end">
          <Text color={n === decisions.length ? theme.accent : theme.muted}>
            {String(n).padStart(3)}.{" "}
          </Text>
          {describeDecision(d)} <Text color={theme.muted}>{d.at ?? ""}</Text>
        </Text>
      ))}
    </Box>
  );
}
