import { Box } from "ink";
import type { ReactNode } from "react";
import type { GlanceTask } from "../../core/app/glance.js";
import type { TaskStatus, TaskTriage } from "../../core/mine/triage.js";
import { printable } from "../../core/printable.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { layoutColumns } from "../text/columns.js";
import { fitCell, middleEllipsis } from "../text/wrap.js";
import { Text } from "./Text.js";
import { VirtualList } from "./VirtualList.js";

const SYMBOL: Record<TaskStatus, string> = {
  reachable: "◐",
  unsolved: "○",
  solved: "●",
  unscored: "⊘",
};

/** A task's row: triage's, or a glance's (its attempts counted, not listed). */
export type TaskRow = TaskTriage | GlanceTask;

const attemptCount = (t: TaskRow) => ("attemptIds" in t ? t.attemptIds.length : t.attempts);

export interface TaskTableProps {
  tasks: readonly TaskRow[];
  selected: number;
  width: number;
  height: number;
}

/**
 * Tasks by k/n with columns sized from the width: the task id takes the room (middle
 * ellipsis keeps both ends), k/n always stays on screen, arm/attempts/status give way.
 */
export function TaskTable({ tasks, selected, width, height }: TaskTableProps): ReactNode {
  const theme = useTheme();
  // ▸ + symbol take 4 columns before the first cell
  const [taskW, armW, knW, nW, statusW] = layoutColumns(width - 4, [
    { want: 42, min: 10, flex: true },
    { want: 10, min: 6, drop: 2 },
    { want: 5, min: 5 },
    { want: 8, min: 4, drop: 3 },
    { want: 9, min: 9, drop: 4 },
  ]);
  const cell = (s: string, w: number, right = false) =>
    w > 0 ? `${fitCell(s, w, right ? "right" : "left")} ` : "";
  const colour = (s: TaskStatus) =>
    s === "reachable"
      ? theme.warn
      : s === "solved"
        ? theme.good
        : s === "unsolved"
          ? theme.bad
          : theme.muted;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {`    ${cell("task", taskW!)}${cell("arm", armW!)}${cell("k/n", knW!, true)}${cell("attempts", nW!, true)}`}
      </Text>
      <VirtualList
        items={tasks}
        selected={selected}
        height={height - 1}
        keyOf={(t) => `${t.taskId}\u0000${t.arm}`}
        empty="no tasks match the filters"
        renderRow={(t) => (
          // The symbol is its own text node: the rest of the row is then mostly ASCII, which
          // Ink measures in one step instead of grapheme by grapheme (every row, every frame).
          <>
            <Box flexShrink={0} width={2}>
              <Text color={colour(t.status)}>{SYMBOL[t.status]}</Text>
            </Box>
            {/* the wide task column is a box, not a string padded with spaces Ink must scan */}
            <Box flexShrink={0} width={taskW! + 1}>
              <Text wrap="truncate-end">{middleEllipsis(printable(t.taskId), taskW!)}</Text>
            </Box>
            <Text wrap="truncate-end">
              {cell(t.arm, armW!)}
              {cell(`${t.passes}/${t.n}`, knW!, true)}
              {cell(String(attemptCount(t)), nW!, true)}
              {statusW ? <Text color={theme.muted}>{t.status}</Text> : null}
            </Text>
          </>
        )}
      />
    </Box>
  );
}
