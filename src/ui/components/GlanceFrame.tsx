import { Box } from "ink";
import type { ReactNode } from "react";
import type { TriageGlance } from "../../core/app/glance.js";
import type { TaskStatus } from "../../core/mine/triage.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { Status } from "../status.js";
import { Header } from "./Header.js";
import { StatusLine } from "./StatusLine.js";
import { TaskTable } from "./TaskTable.js";
import { Text } from "./Text.js";

/** What the header counts: attempts, exclusions and tasks by status. */
export interface HeaderCounts {
  attempts: number;
  excluded: number;
  tasks: readonly { status: TaskStatus }[];
}

/**
 * The header's counts line. `clusters` and `candidates` are undefined while unknown: then
 * "…", never a 0 that is not so. The clusters and candidates go when the line has no room.
 */
export function countsText(
  c: HeaderCounts,
  clusters: number | undefined,
  candidates: number | undefined,
  width: number,
): string {
  const by = { reachable: 0, unsolved: 0, solved: 0, unscored: 0 };
  for (const t of c.tasks) by[t.status]++;
  // Each count sits next to its unit: exclusions count attempts, statuses count tasks.
  const base =
    `${c.attempts} attempts (${c.excluded} excluded) · ` +
    `${c.tasks.length} tasks: ${by.reachable} reachable, ${by.unsolved} unsolved, ` +
    `${by.solved} solved`;
  const more = ` · ${clusters ?? "…"} clusters · ${candidates ?? "…"} candidates`;
  return base.length + more.length <= width ? base + more : base;
}

/** Triage's first screen from a glance: the filters line and the task table. */
export function GlanceBody(props: {
  glance: TriageGlance;
  selected: number;
  width: number;
  height: number;
}): ReactNode {
  const theme = useTheme();
  return (
    <Box flexDirection="column" width={props.width}>
      <Text color={theme.muted} wrap="truncate-end">
        filters: none · exclusions {props.glance.excluded}
      </Text>
      <TaskTable
        tasks={props.glance.tasks}
        selected={props.selected}
        width={props.width}
        height={props.height - 1}
      />
    </Box>
  );
}

/**
 * The workbench's frame from a glance, drawn before the workbench's own modules load (the
 * same layout as App's shell on Triage): the counts and task rows as last computed, the
 * clusters and candidates unknown, the status line reading the workspace.
 */
export function GlanceFrame(props: {
  glance: TriageGlance;
  columns: number;
  rows: number;
}): ReactNode {
  const { glance, columns, rows } = props;
  const bodyHeight = Math.max(4, rows - 4);
  return (
    <Box flexDirection="column" width={columns} height={rows} overflowY="hidden">
      <Header
        screen="triage"
        counts={countsText(glance, undefined, undefined, columns)}
        width={columns}
      />
      <Box height={bodyHeight} flexDirection="column" overflowY="hidden">
        <GlanceBody glance={glance} selected={0} width={columns} height={bodyHeight} />
      </Box>
      <StatusLine
        status={Status.Running}
        job={{ label: "reading workspace", done: 0 }}
        hints=""
        width={columns}
      />
    </Box>
  );
}
