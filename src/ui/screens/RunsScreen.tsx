import { Box } from "ink";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { type ScreenSchedule, screenSchedule, TRIAL_STATUSES } from "../../core/app/index.js";
import { runSummary } from "../../core/app/present.js";
import { type ScreenStatus, screenStatus } from "../../core/app/results.js";
import { ScheduleTable } from "../components/ScheduleTable.js";
import { Text } from "../components/Text.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { listRunScreens } from "../data/screens.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useScreenRun } from "../hooks/useScreenRun.js";
import { useSticky } from "../hooks/useSticky.js";
import { RUNS_KEYS, RUNS_SCHEDULE_KEYS } from "../keys/tables.js";
import { layoutColumns } from "../text/columns.js";
import { fitCell, middleEllipsis } from "../text/wrap.js";
import type { ScreenProps } from "./types.js";

/** `2 pass · 1 fail · 1 pending` (statuses with no trial left out). */
function countsLine(s: ScreenSchedule, running: number): string {
  const parts = TRIAL_STATUSES.filter((k) => s.counts[k] > 0).map((k) => `${s.counts[k]} ${k}`);
  return [`${s.trials.length} trials`, ...(running ? [`${running} running`] : []), ...parts].join(
    " · ",
  );
}

/** Screen 7: run screens, each one's schedule (task × arm × policy), start / resume / stop. */
export function RunsScreen({ width, height }: ScreenProps): ReactNode {
  const { data } = useAppState();
  const theme = useTheme();
  const run = useScreenRun();
  const [statuses, setStatuses] = useState<ScreenStatus[]>([]);
  const [schedule, setSchedule] = useState<ScreenSchedule | undefined>();
  const [open, setOpen] = useSticky<string | undefined>("runs.open", undefined);
  const [refresh, setRefresh] = useState(0);
  const listHeight = Math.max(2, height - 3);
  const cursor = useListCursor(statuses.length, listHeight, "runs.list");
  const rows = useListCursor(schedule?.trials.length ?? 0, listHeight - 1, "runs.schedule");
  const selected = open ?? statuses[cursor.index]?.name;
  const dir = data?.ws.dir;
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read after every run event
  useEffect(() => {
    if (!dir) return;
    let live = true;
    void listRunScreens(dir)
      .then((l) => Promise.all(l.filter((e) => e.hasPlan).map((e) => screenStatus(dir, e.name))))
      .then(
        (s) => live && setStatuses(s),
        () => live && setStatuses([]),
      );
    return () => {
      live = false;
    };
  }, [dir, run.tick, refresh]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read after every run event
  useEffect(() => {
    if (!dir || !selected) return setSchedule(undefined);
    let live = true;
    void screenSchedule(dir, selected).then(
      (s) => live && setSchedule(s),
      () => live && setSchedule(undefined),
    );
    return () => {
      live = false;
    };
  }, [dir, selected, run.tick, refresh]);
  const running = useMemo(() => new Set(run.running), [run.running]);
  const control = {
    start: () => (selected ? run.start(selected) : false),
    cancel: () => (run.active ? run.cancel() : false),
    refresh: () => setRefresh((x) => x + 1),
  };
  useKeyTable(
    RUNS_KEYS,
    {
      move: cursor.handle,
      open: () => (selected ? setOpen(selected) : false),
      ...control,
    },
    { isActive: !!data && !open },
  );
  useKeyTable(
    RUNS_SCHEDULE_KEYS,
    // Esc while running is the app's cancel (the status line says so), else back to the list
    { move: rows.handle, ...control, close: () => (run.active ? false : setOpen(undefined)) },
    { isActive: !!data && !!open },
  );

  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  // the counts first: a long name gives way (middle ellipsis keeps its distinguishing end)
  const counts = schedule ? countsLine(schedule, selected === run.active ? running.size : 0) : "";
  const title = schedule
    ? `${counts} · ${middleEllipsis(schedule.name, Math.max(8, width - counts.length - 3))}`
    : "";
  if (open)
    return (
      <Box flexDirection="column" width={width}>
        <Text bold wrap="truncate-end">
          {title || `${open}: reading the schedule…`}
          {run.active === open ? <Text color={theme.warn}> · running (x stops)</Text> : null}
        </Text>
        {schedule ? (
          <ScheduleTable
            trials={schedule.trials}
            running={run.active === open ? running : new Set()}
            selected={rows.index}
            width={width}
            height={height - 1}
          />
        ) : null}
      </Box>
    );
  const [nameW, runW] = layoutColumns(width - 2, [
    { want: 24, min: 6 },
    { want: 50, min: 10, flex: true },
  ]);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">{`  ${fitCell("screen", nameW!)} run`}</Text>
      <VirtualList
        items={statuses}
        selected={cursor.index}
        height={listHeight}
        keyOf={(s) => s.name}
        empty="no planned run screens: fire screen plan (see README), then s here runs one"
        renderRow={(s) => (
          <Text wrap="truncate-end">
            {fitCell(s.name, nameW!)}{" "}
            <Text color={s.name === run.active ? theme.warn : theme.muted}>
              {s.name === run.active ? "running · " : ""}
              {fitCell(runSummary(s), runW!)}
            </Text>
          </Text>
        )}
      />
      <Text color={theme.muted} wrap="truncate-end">
        {title}
      </Text>
    </Box>
  );
}
