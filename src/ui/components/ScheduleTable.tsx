import { Box } from "ink";
import type { ReactNode } from "react";
import type { ScheduleTrial, TrialStatus } from "../../core/app/index.js";
import { printable } from "../../core/printable.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { layoutColumns } from "../text/columns.js";
import { fitCell } from "../text/wrap.js";
import type { Theme } from "../theme.js";
import { Text } from "./Text.js";
import { VirtualList } from "./VirtualList.js";

export interface ScheduleTableProps {
  trials: readonly ScheduleTrial[];
  /** Trials running now (plan cell ids). */
  running: ReadonlySet<string>;
  selected: number;
  width: number;
  height: number;
}

const SYMBOL: Record<TrialStatus | "running", string> = {
  pending: "·",
  running: "▶",
  pass: "✓",
  fail: "✗",
  unscorable: "⊘",
  failed: "!",
};

function colourOf(s: TrialStatus | "running", theme: Theme): string | undefined {
  if (s === "pass") return theme.good;
  if (s === "fail" || s === "failed") return theme.bad;
  if (s === "running" || s === "unscorable") return theme.warn;
  return theme.muted;
}

/**
 * A run screen's trials (task × arm × policy, replicate) with each one's status, columns
 * sized from the width: the task takes the room (middle ellipsis), the status always stays,
 * the policy and the replicate give way first.
 */
export function ScheduleTable({
  trials,
  running,
  selected,
  width,
  height,
}: ScheduleTableProps): ReactNode {
  const theme = useTheme();
  // the cursor and the status symbol take 4 columns before the first cell
  const [repW, taskW, armW, policyW, statusW] = layoutColumns(width - 4, [
    { want: 3, min: 2, drop: 3 },
    { want: 34, min: 8, flex: true },
    { want: 13, min: 6 },
    { want: 24, min: 8, drop: 2 },
    { want: 10, min: 7, drop: 1 },
  ]);
  const cell = (s: string, w: number) => (w > 0 ? `${fitCell(s, w)} ` : "");
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {`    ${cell(repW! >= 3 ? "rep" : "r", repW!)}${cell("task", taskW!)}${cell("arm", armW!)}${cell("policy", policyW!)}${statusW ? "status" : ""}`}
      </Text>
      <VirtualList
        items={trials}
        selected={selected}
        height={height - 1}
        keyOf={(t) => t.id}
        empty="the plan has no trials"
        renderRow={(t) => {
          const s = running.has(t.id) ? "running" : t.status;
          return (
            <Text wrap="truncate-end">
              <Text color={colourOf(s, theme)}>{SYMBOL[s]} </Text>
              {cell(`r${t.replicate}`, repW!)}
              {cell(printable(t.task), taskW!)}
              {cell(t.arm, armW!)}
              {cell(t.policies.join(",") || "—", policyW!)}
              {statusW ? <Text color={colourOf(s, theme)}>{s}</Text> : null}
            </Text>
          );
        }}
      />
    </Box>
  );
}
