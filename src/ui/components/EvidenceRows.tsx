import { Box } from "ink";
import type { ReactNode } from "react";
import type { Cluster } from "../../core/mine/cluster.js";
import { printable } from "../../core/printable.js";
import { useAppActions } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { EVIDENCE_KEYS } from "../keys/tables.js";
import { fitCell } from "../text/wrap.js";
import { Text } from "./Text.js";
import { VirtualList } from "./VirtualList.js";

/** A cluster's confidence and facets (signature counts), as one line. */
export function clusterStrength(c: Cluster): string {
  const conf =
    c.confidence !== undefined ? `confidence ${c.confidence.toFixed(2)}` : "confidence -";
  const facets = (c.facets ?? []).map((f) => `${f.signature}×${f.count}`).join(", ");
  return `${conf} · facets: ${facets || "none"}`;
}

export interface EvidenceRowsProps {
  cluster: Cluster;
  height: number;
  width: number;
  onBack: () => void;
}

/** A cluster's evidence rows (event, excerpt, attempt); Enter opens the attempt a row quotes. */
export function EvidenceRows({ cluster, height, width, onBack }: EvidenceRowsProps): ReactNode {
  const theme = useTheme();
  const actions = useAppActions();
  const rows = cluster.evidence;
  const idW = Math.max(12, Math.min(44, Math.floor((width - 9) / 2)));
  const cursor = useListCursor(rows.length, height, `mechanisms.evidence.${cluster.id}`);
  useKeyTable(EVIDENCE_KEYS, {
    move: cursor.handle,
    open: () => {
      const row = rows[cursor.current()];
      if (!row) return false;
      actions.openAttempt(row.attemptId);
    },
    back: onBack,
  });
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        evidence of {cluster.id} <Text color={theme.muted}>(Enter opens the attempt)</Text>
      </Text>
      <Text wrap="truncate-end" color={theme.muted}>
        {clusterStrength(cluster)}
      </Text>
      <VirtualList
        items={rows}
        selected={cursor.index}
        height={height}
        keyOf={(e, i) => `${i}:${e.attemptId}:${e.eventIndex}`}
        empty="no evidence rows"
        renderRow={(e) => (
          <Text wrap="truncate-end">
            <Text color={theme.accent}>{`#${e.eventIndex}`.padEnd(5)}</Text>
            <Text color={theme.muted}>{fitCell(e.attemptId, idW)}</Text> {printable(e.excerpt)}
          </Text>
        )}
      />
    </Box>
  );
}
