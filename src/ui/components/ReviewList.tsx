import { Box } from "ink";
import type { ReactNode } from "react";
import { reviewGist } from "../../core/app/present.js";
import type { Label } from "../../core/mine/label.js";
import { printable } from "../../core/printable.js";
import { useAppActions } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { REVIEW_KEYS } from "../keys/tables.js";
import { fitCell } from "../text/wrap.js";
import { Text } from "./Text.js";
import { VirtualList } from "./VirtualList.js";

/** The status-line refusal of a draft from failures that name no mechanism yet. */
export const REVIEW_FIRST =
  "review comes first: these failures name no mechanism yet, and drafts come only from clusters (Enter opens an attempt)";

export interface ReviewListProps {
  /** The attempts kept for review (MineResult.review), in its order. */
  attemptIds: readonly string[];
  labels: ReadonlyMap<string, Label>;
  taskOf: (attemptId: string) => string | undefined;
  height: number;
  width: number;
  onBack: () => void;
}

/** The strongest suspected mechanism of a needs-review label, with its evidence strength. */
function strongestSuspect(l: Label | undefined): string {
  const best = reviewGist(l).suspect;
  return best ? `${best.mechanismId} (strength ${best.strength})` : "no suspect";
}

/**
 * Failures kept in scope without a named mechanism: per attempt its task, kind, strongest
 * suspected mechanism and the first evidence excerpt; Enter opens the attempt, `d` is refused.
 */
export function ReviewList({
  attemptIds,
  labels,
  taskOf,
  height,
  width,
  onBack,
}: ReviewListProps): ReactNode {
  const theme = useTheme();
  const actions = useAppActions();
  const cursor = useListCursor(attemptIds.length, height, "mechanisms.review.list");
  useKeyTable(REVIEW_KEYS, {
    move: cursor.handle,
    open: () => {
      const id = attemptIds[cursor.current()];
      if (!id) return false;
      actions.openAttempt(id);
    },
    draft: () => actions.notify("warn", REVIEW_FIRST),
    back: onBack,
  });
  // Task and suspect take a quarter of the width each (the evidence excerpt the rest).
  const quarter = (max: number) => Math.max(12, Math.min(max, Math.floor((width - 4) / 4)));
  const [taskW, kindW, suspectW] = [quarter(30), 18, quarter(36)];
  const selected = labels.get(attemptIds[cursor.index] ?? "");
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        needs review ({attemptIds.length}){" "}
        <Text color={theme.muted}>in scope, no mechanism named (Enter opens the attempt)</Text>
      </Text>
      <VirtualList
        items={attemptIds}
        selected={cursor.index}
        height={height}
        keyOf={(id) => id}
        empty="nothing needs review"
        renderRow={(id) => {
          const l = labels.get(id);
          const ev = reviewGist(l).evidence;
          return (
            <Text wrap="truncate-end">
              {`${fitCell(taskOf(id) ?? id, taskW)} ${fitCell(l?.kind ?? "-", kindW)} ${fitCell(strongestSuspect(l), suspectW)} `}
              <Text color={theme.muted}>
                {ev ? `${ev.claim} ${ev.from}: ${printable(ev.excerpt)}` : "no evidence yet"}
              </Text>
            </Text>
          );
        }}
      />
      <Text wrap="truncate-end" color={theme.muted}>
        {selected
          ? `${selected.attemptId}: ${printable(selected.rationale)}`
          : "no attempt selected"}
      </Text>
    </Box>
  );
}
