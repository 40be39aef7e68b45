import { Box } from "ink";
import type { ReactNode } from "react";
import { eventCountOf } from "../../core/app/workspace.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useCompareMark } from "../hooks/useCompareMark.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { ATTEMPT_SET_KEYS } from "../keys/tables.js";
import { layoutColumns } from "../text/columns.js";
import { fitCell } from "../text/wrap.js";
import { outcomeToken } from "../theme.js";
import { Text } from "./Text.js";
import { VirtualList } from "./VirtualList.js";

export interface AttemptListProps {
  title: string;
  ids: readonly string[];
  width: number;
  height: number;
  /** Keeps the cursor per list across screen switches. */
  stickyKey: string;
  onBack: () => void;
  active: boolean;
}

/** A list of attempts (a task's, or a set a count names): Enter opens, Space marks, c compares. */
export function AttemptList(props: AttemptListProps): ReactNode {
  const { title, ids, width, height, stickyKey, onBack, active } = props;
  const { data } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  const marks = useCompareMark();
  const cursor = useListCursor(ids.length, height - 1, stickyKey);
  useKeyTable(
    ATTEMPT_SET_KEYS,
    {
      move: cursor.handle,
      open: () => {
        const id = ids[cursor.current()];
        if (id) actions.openAttempt(id);
      },
      mark: () => {
        const id = ids[cursor.current()];
        if (id) marks.toggle(id);
      },
      compare: () => {
        const id = ids[cursor.current()];
        if (id) marks.compare(id);
      },
      back: onBack,
    },
    { isActive: active },
  );
  const [outW, idW, restW] = layoutColumns(width - 6, [
    { want: 7, min: 4 },
    { want: 44, min: 12, flex: true },
    { want: 30, min: 0, drop: 1 },
  ]);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      <VirtualList
        items={ids}
        selected={cursor.index}
        height={height - 1}
        keyOf={(id) => id}
        empty="no attempts"
        renderRow={(id) => {
          const a = data?.byId.get(id);
          return (
            <Text wrap="truncate-end">
              <Text color={theme.warn}>{marks.mark === id ? "*" : " "}</Text>
              <Text color={outcomeToken(theme, a?.outcome ?? "unknown")}>
                {fitCell(a?.outcome ?? "?", outW!)}
              </Text>{" "}
              {fitCell(id, idW!)}
              {restW ? (
                <Text color={theme.muted}>
                  {" "}
                  {a && data
                    ? `${a.taskId} · ${a.agent ?? ""} ${a.model ?? ""} · ${eventCountOf(data.ws, a)} events`
                    : ""}
                </Text>
              ) : null}
            </Text>
          );
        }}
      />
    </Box>
  );
}
