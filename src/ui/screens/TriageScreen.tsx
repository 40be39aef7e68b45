import { relative } from "node:path";
import { Box } from "ink";
import { type ReactNode, useEffect, useMemo } from "react";
import { evidenceText } from "../../core/app/present.js";
import { triageOf } from "../../core/app/workspace.js";
import type { TaskStatus, TaskTriage } from "../../core/mine/triage.js";
import { printable } from "../../core/printable.js";
import { AttemptList } from "../components/AttemptList.js";
import { GlanceBody } from "../components/GlanceFrame.js";
import { TaskAttempts } from "../components/TaskAttempts.js";
import { TaskTable } from "../components/TaskTable.js";
import { Text } from "../components/Text.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import {
  type AttemptFilters,
  applyFilters,
  cycle,
  FILTER_KEYS,
  filterValues,
} from "../data/filters.js";
import { useCompareMark } from "../hooks/useCompareMark.js";
import { useWaitForReady } from "../hooks/useKeypress.js";
import { type CommandHandler, useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useSticky } from "../hooks/useSticky.js";
import { TRIAGE_ATTEMPTS_KEYS, TRIAGE_EXCLUSIONS_KEYS, TRIAGE_TASKS_KEYS } from "../keys/tables.js";
import type { ScreenProps } from "./types.js";

const STATUSES: TaskStatus[] = ["reachable", "unsolved", "solved", "unscored"];

type View = "tasks" | "attempts" | "exclusions";

/** A file as the row has room for it: relative to the workspace, else its last three parts. */
function shortPath(file: string, base: string): string {
  const rel = relative(base, file);
  const p = rel.startsWith("..") ? file : rel;
  if (p.length <= 40) return p;
  return `…/${p.split(/[\\/]/).slice(-3).join("/")}`;
}

/** Screen 1: tasks by k/n (reachable-but-undelivered first), exclusions, filters. */
export function TriageScreen({ width, height }: ScreenProps): ReactNode {
  const { data, glance, taskId, taskJump, attemptSet } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  const marks = useCompareMark();
  const [filters, setFilters] = useSticky<AttemptFilters>("triage.filters", {});
  const [status, setStatus] = useSticky<TaskStatus | undefined>("triage.status", undefined);
  const [view, setView] = useSticky<View>("triage.view", "tasks");
  const attempts = useMemo(() => applyFilters(data?.ws.attempts ?? [], filters), [data, filters]);
  // Unfiltered, the screen shows the workspace's triage as computed once (core triage-view);
  // filtered, the same core triage over the matching attempts with the same inputs.
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const result = useMemo(
    () => (!data ? undefined : filtered ? triageOf(attempts, data.triageInputs) : data.triage),
    [data, attempts, filtered],
  );
  const tasks = useMemo(
    () => (result?.tasks ?? []).filter((t) => status === undefined || t.status === status),
    [result, status],
  );
  const listHeight = height - 3;
  // Until the workspace is read, the glance's rows (triage as last computed, in its order):
  // the cursor moves over them, and a key that needs the workspace waits for it.
  const shown = data || !glance ? tasks.length : glance.tasks.length;
  const cursor = useListCursor(shown, listHeight, "triage.tasks");
  const wait = useWaitForReady(!!data);
  // The open task is followed by id: a hand outcome can move it in the sorted list. Sticky, so
  // it still holds after Esc back from an attempt opened in the list.
  const [openKey, setOpenKey] = useSticky<string | undefined>("triage.open", undefined);
  const keyOf = (t: TaskTriage) => `${t.taskId}\u0000${t.arm}`;
  const openIndex = view === "attempts" ? tasks.findIndex((t) => keyOf(t) === openKey) : -1;
  const task: TaskTriage | undefined = tasks[openIndex >= 0 ? openIndex : cursor.index];
  const attemptCursor = useListCursor(
    task?.attemptIds.length ?? 0,
    listHeight - 1,
    "triage.attempts",
  );
  const attemptSel = attemptCursor.index;
  // A search jump is followed once: Esc back to a place holding the same jump (from an attempt
  // opened after it) keeps the view the user left, e.g. the task's attempt list.
  const [followed, setFollowed] = useSticky<number | undefined>("triage.jump", undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow a search jump only
  useEffect(() => {
    if (!taskId || taskJump === followed) return;
    const i = tasks.findIndex((t) => t.taskId === taskId);
    if (i >= 0) {
      cursor.setIndex(i);
      setView("tasks");
      setFollowed(taskJump);
    }
  }, [taskId, taskJump]);
  const exclusions = result?.exclusions ?? [];
  // one line under the exclusions list shows the selected one's evidence
  const exCursor = useListCursor(exclusions.length, listHeight - 1, "triage.exclusions");
  const selectedEx = exclusions[exCursor.index];

  const needsData =
    (f: CommandHandler): CommandHandler =>
    (input, key) =>
      data ? f(input, key) : wait(input, key);
  useKeyTable(
    TRIAGE_TASKS_KEYS,
    {
      move: cursor.handle,
      open: needsData(() => {
        const t = tasks[cursor.current()];
        if (!t) return false;
        setOpenKey(keyOf(t));
        attemptCursor.setIndex(0);
        setView("attempts");
      }),
      status: needsData(() => setStatus((s) => cycle(STATUSES, s) as TaskStatus | undefined)),
      arm: needsData((input) => cycleFilter(input)),
      outcome: needsData((input) => cycleFilter(input)),
      agent: needsData((input) => cycleFilter(input)),
      model: needsData((input) => cycleFilter(input)),
      source: needsData((input) => cycleFilter(input)),
      exclusions: needsData(() => setView("exclusions")),
    },
    { isActive: (!!data || !!glance) && view === "tasks" && !attemptSet },
  );
  const cycleFilter = (input: string) => {
    if (!data) return;
    const name = FILTER_KEYS[input as keyof typeof FILTER_KEYS];
    setFilters((f) => ({ ...f, [name]: cycle(filterValues(data.ws.attempts, name), f[name]) }));
  };
  useKeyTable(
    TRIAGE_ATTEMPTS_KEYS,
    {
      move: attemptCursor.handle,
      open: () => {
        const id = task?.attemptIds[attemptCursor.current()];
        if (id) actions.openAttempt(id);
      },
      mark: () => {
        const id = task?.attemptIds[attemptCursor.current()];
        if (id) marks.toggle(id);
      },
      compare: () => {
        const id = task?.attemptIds[attemptCursor.current()];
        if (id) marks.compare(id);
      },
      back: () => {
        if (openIndex >= 0) cursor.setIndex(openIndex);
        setView("tasks");
      },
    },
    { isActive: !!data && view === "attempts" && !attemptSet },
  );
  useKeyTable(
    TRIAGE_EXCLUSIONS_KEYS,
    {
      move: exCursor.handle,
      open: () => {
        const ex = exclusions[exCursor.current()];
        if (ex) actions.openAttempt(ex.attemptId);
      },
      back: () => setView("tasks"),
    },
    { isActive: !!data && view === "exclusions" && !attemptSet },
  );

  if (!data)
    return glance ? (
      <GlanceBody glance={glance} selected={cursor.index} width={width} height={height} />
    ) : (
      <Text color={theme.muted}>reading the workspace…</Text>
    );
  const active = [
    ...(status ? [`status=${status}`] : []),
    ...Object.values(FILTER_KEYS).flatMap((n) => (filters[n] ? [`${n}=${filters[n]}`] : [])),
  ];
  const filterText = active.length ? active.join(" ") : "none";
  if (attemptSet)
    return (
      <Box flexDirection="column" width={width}>
        <AttemptList
          title={attemptSet.title}
          ids={attemptSet.ids}
          width={width}
          height={height}
          stickyKey={`triage.set.${attemptSet.title}`}
          onBack={() => actions.back()}
          active
        />
      </Box>
    );
  return (
    <Box flexDirection="column" width={width}>
      <Text color={theme.muted} wrap="truncate-end">
        filters: {filterText} · exclusions {exclusions.length}
      </Text>
      {view === "exclusions" ? (
        <>
          <Text bold>Excluded attempts (reason: detail)</Text>
          <VirtualList
            items={exclusions}
            selected={exCursor.index}
            height={listHeight - 1}
            keyOf={(e) => e.attemptId}
            empty="no exclusions"
            renderRow={(e) => (
              <Text wrap="truncate-end">
                <Text color={theme.warn}>{e.reason.padEnd(22)}</Text>
                {printable(e.taskId)} <Text color={theme.muted}>{printable(e.detail)}</Text>
              </Text>
            )}
          />
          <Text color={theme.muted} wrap="truncate-end">
            {selectedEx
              ? `evidence: ${selectedEx.evidence.map((ev) => evidenceText(ev.file ? { ...ev, file: shortPath(ev.file, data.ws.dir) } : ev)).join(" · ") || "-"}`
              : ""}
          </Text>
        </>
      ) : view === "attempts" && task ? (
        <>
          <Text bold wrap="truncate-end">
            {task.taskId} · {task.arm} · {task.passes}/{task.n}
          </Text>
          <TaskAttempts
            data={data}
            task={task}
            selected={attemptSel}
            active={view === "attempts"}
            width={width}
          />
        </>
      ) : (
        // the table fills the screen under the filters line
        <TaskTable tasks={tasks} selected={cursor.index} width={width} height={height - 1} />
      )}
    </Box>
  );
}
