import { Box } from "ink";
import type { ReactNode } from "react";
import type { FunnelRow } from "../../core/screening/results/funnel-rows.js";
import { Text } from "../components/Text.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { FUNNEL_KEYS } from "../keys/tables.js";

export interface ScreeningFunnelProps {
  name: string;
  rows: readonly FunnelRow[];
  height: number;
  onBack: () => void;
}

/** A run screen's funnel, one row per arm and stage; Enter lists the attempts of a row. */
export function ScreeningFunnel({ name, rows, height, onBack }: ScreeningFunnelProps): ReactNode {
  const theme = useTheme();
  const actions = useAppActions();
  const cursor = useListCursor(rows.length, height - 1, `screens.funnel.${name}`);
  useKeyTable(FUNNEL_KEYS, {
    move: cursor.handle,
    open: () => {
      const r = rows[cursor.current()];
      if (!r) return false;
      if (r.attemptIds.length === 0) {
        actions.notify(
          "warn",
          `${r.arm} · ${r.stage}: ${r.count} result rows name no attempt (imported from a table, not traces)`,
        );
        return;
      }
      const unnamed = r.unnamed ? ` (+${r.unnamed} rows without an attempt)` : "";
      actions.openAttempts({
        title: `${name} · ${r.arm} · ${r.stage} ${r.count}${unnamed}`,
        ids: r.attemptIds,
      });
    },
    back: onBack,
  });
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {`funnel of ${name} (arm · stage · attempts reaching it)`}
      </Text>
      <VirtualList
        items={rows}
        selected={cursor.index}
        height={height - 1}
        keyOf={(r) => `${r.arm}:${r.stage}`}
        empty="no result rows"
        renderRow={(r) => (
          <Text wrap="truncate-end">
            {r.arm.padEnd(14)}
            {r.stage.padEnd(10)}
            {String(r.count).padStart(5)}
            <Text color={theme.muted}>
              {r.unnamed ? `  (${r.unnamed} without an attempt id)` : ""}
            </Text>
          </Text>
        )}
      />
    </Box>
  );
}
