import { relative } from "node:path";
import { Box, Text } from "ink";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { evidenceText } from "../../core/mine/render.js";
import type { TaskStatus, TaskTriage } from "../../core/mine/triage.js";
import { triage } from "../../core/mine/triage.js";
import { printable } from "../../core/printable.js";
import { eventCountOf } from "../../core/workspace/index-file.js";
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
import { useKeypress } from "../hooks/useKeypress.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { outcomeToken } from "../theme.js";
import type { ScreenProps } from "./types.js";

const STATUSES: TaskStatus[] = ["reachable", "unsolved", "solved", "unscored"];
const SYMBOL: Record<TaskStatus, string> = {
  reachable: "◐",
  unsolved: "○",
  solved: "●",
  unscored: "⊘",
};

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
  const { data, taskId } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  const [filters, setFilters] = useState<AttemptFilters>({});
  const [status, setStatus] = useState<TaskStatus | undefined>();
  const [view, setView] = useState<View>("tasks");
  const attempts = useMemo(() => applyFilters(data?.ws.attempts ?? [], filters), [data, filters]);
  // Unfiltered, the screen shows the workspace's triage as computed once (core triage-view);
  // filtered, the same core triage over the matching attempts with the same inputs.
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const result = useMemo(
    () => (!data ? undefined : filtered ? triage(attempts, data.triageInputs) : data.triage),
    [data, attempts, filtered],
  );
  const tasks = useMemo(
    () => (result?.tasks ?? []).filter((t) => status === undefined || t.status === status),
    [result, status],
  );
  const listHeight = height - 3;
  const cursor = useListCursor(tasks.length, listHeight);
  const [attemptSel, setAttemptSel] = useState(0);
  const task: TaskTriage | undefined = tasks[cursor.index];
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow a search jump only
  useEffect(() => {
    if (!taskId) return;
    const i = tasks.findIndex((t) => t.taskId === taskId);
    if (i >= 0) {
      cursor.setIndex(i);
      setView("tasks");
    }
  }, [taskId]);
  const exclusions = result?.exclusions ?? [];
  // one line under the exclusions list shows the selected one's evidence
  const exCursor = useListCursor(exclusions.length, listHeight - 1);
  const selectedEx = exclusions[exCursor.index];

  useKeypress((input, key) => {
    if (!data) return false;
    if (view === "attempts") {
      const ids = task?.attemptIds ?? [];
      if (key.escape) setView("tasks");
      else if (key.return && ids[attemptSel]) actions.openAttempt(ids[attemptSel]!);
      else if (key.downArrow || input === "j")
        setAttemptSel((s) => Math.min(ids.length - 1, s + 1));
      else if (key.upArrow || input === "k") setAttemptSel((s) => Math.max(0, s - 1));
      else return false;
      return true;
    }
    if (view === "exclusions") {
      if (key.escape || input === "x") setView("tasks");
      else if (key.return && exclusions[exCursor.index])
        actions.openAttempt(exclusions[exCursor.index]!.attemptId);
      else return exCursor.handle(input, key);
      return true;
    }
    if (key.return && task) {
      setAttemptSel(0);
      setView("attempts");
      return true;
    }
    if (input === "x") setView("exclusions");
    else if (input === "f") setStatus((s) => cycle(STATUSES, s) as TaskStatus | undefined);
    else if (input in FILTER_KEYS) {
      const name = FILTER_KEYS[input as keyof typeof FILTER_KEYS];
      setFilters((f) => ({ ...f, [name]: cycle(filterValues(data.ws.attempts, name), f[name]) }));
    } else return cursor.handle(input, key);
    return true;
  });

  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  const active = [
    ...(status ? [`status=${status}`] : []),
    ...Object.values(FILTER_KEYS).flatMap((n) => (filters[n] ? [`${n}=${filters[n]}`] : [])),
  ];
  const filterText = active.length ? active.join(" ") : "none";
  return (
    <Box flexDirection="column" width={width}>
      <Text color={theme.muted} wrap="truncate-end">
        filters: {filterText} · x exclusions ({exclusions.length}) · f status a arm o outcome t
        agent m model s source
      </Text>
      {view === "exclusions" ? (
        <>
          <Text bold>Excluded attempts (reason: detail) — Enter opens, x/Esc back</Text>
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
            {task.taskId} · {task.arm} · {task.passes}/{task.n} — Enter opens, Esc back
          </Text>
          {task.attemptIds.map((id, i) => {
            const a = data.byId.get(id);
            return (
              <Text key={id} wrap="truncate-end">
                <Text color={i === attemptSel ? theme.accent : undefined}>
                  {i === attemptSel ? "▸ " : "  "}
                </Text>
                <Text color={outcomeToken(theme, a?.outcome ?? "unknown")}>
                  {(a?.outcome ?? "?").padEnd(8)}
                </Text>
                {id}{" "}
                <Text color={theme.muted}>
                  {a?.agent ?? ""} {a?.model ?? ""} {a ? eventCountOf(data.ws, a) : 0} events
                </Text>
              </Text>
            );
          })}
        </>
      ) : (
        <>
          <Text bold>{`${"   task".padEnd(46)}${"arm".padEnd(11)}k/n  attempts`}</Text>
          <VirtualList
            items={tasks}
            selected={cursor.index}
            height={listHeight}
            keyOf={(t) => `${t.taskId}\u0000${t.arm}`}
            empty="no tasks match the filters"
            renderRow={(t) => (
              <Text wrap="truncate-end">
                <Text
                  color={
                    t.status === "reachable"
                      ? theme.warn
                      : t.status === "solved"
                        ? theme.good
                        : t.status === "unsolved"
                          ? theme.bad
                          : theme.muted
                  }
                >
                  {SYMBOL[t.status]}{" "}
                </Text>
                {t.taskId.slice(0, 42).padEnd(43)}
                {t.arm.slice(0, 10).padEnd(11)}
                {`${t.passes}/${t.n}`.padStart(4)}
                {String(t.attemptIds.length).padStart(6)}{" "}
                <Text color={theme.muted}>{t.status}</Text>
              </Text>
            )}
          />
        </>
      )}
    </Box>
  );
}
