import { Box } from "ink";
import type { ReactNode } from "react";
import type { RouteAudit, RouteRow } from "../../core/route/audit.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { fitCell } from "../text/wrap.js";
import { Text } from "./Text.js";
import { windowStart } from "./VirtualList.js";

export interface RouteMatrixProps {
  audit: RouteAudit;
  /** The selected cell: a row of `routedRows(audit)` and a candidate column. */
  row: number;
  col: number;
  height: number;
  width: number;
}

/** The matrix's rows: tasks some candidate routes. */
export const routedRows = (audit: RouteAudit): RouteRow[] =>
  audit.matrix.filter((r) => r.routes.length > 0);

/** Task × candidate routing matrix (● routed), routed tasks only; the selected cell inverse. */
export function RouteMatrix({ audit, row, col, height, width }: RouteMatrixProps): ReactNode {
  const theme = useTheme();
  const cols = audit.candidates.map((c) => c.policy);
  const routed = routedRows(audit);
  // every column as wide as its label: 1 … 9 10 11, each under its own number
  const cw = String(cols.length).length + 1;
  const nameW = Math.max(12, Math.min(30, width - 4 - cols.length * cw));
  const rows = Math.max(1, height - 4);
  const start = windowStart(routed.length, row, rows);
  const sel = routed[row];
  const selCol = cols[col];
  const route = sel?.routes.find((x) => x.policy === selCol);
  return (
    <Box flexDirection="column">
      <Text color={theme.muted} wrap="truncate-end">
        {"task".padEnd(nameW)}{" "}
        {cols.map((_c, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: fixed columns
          <Text key={i} inverse={i === col}>
            {String(i + 1).padStart(cw - 1)}
            {i < cols.length - 1 ? " " : ""}
          </Text>
        ))}
        {`   ${cols.map((c, i) => `${i + 1}=${c}`).join(" ")}`}
      </Text>
      {routed.slice(start, start + rows).map((r, i) => {
        const set = new Set(r.routes.map((x) => x.policy));
        const multi = new Set(r.routes.map((x) => x.family)).size > 1;
        const here = start + i === row;
        return (
          <Text key={r.taskId} wrap="truncate-end">
            <Text color={multi ? theme.warn : undefined} bold={here}>
              {`${here ? "▸" : " "}${fitCell(r.taskId, nameW - 1)} `}
            </Text>
            {cols.map((c, j) => (
              <Text key={c} inverse={here && j === col}>
                {(set.has(c) ? "●" : "·").padStart(cw - 1)}
                {j < cols.length - 1 ? " " : ""}
              </Text>
            ))}
            <Text color={theme.muted}> “{(r.routes[0]?.matched ?? "").slice(0, 40)}”</Text>
          </Text>
        );
      })}
      <Text wrap="truncate-end">
        {routed.length} routed of {audit.tasks} tasks · silent {audit.silent.length} ·{" "}
        <Text color={audit.multiFamily.length ? theme.warn : theme.good}>
          multi-family {audit.multiFamily.length}
        </Text>{" "}
        · <Text color={audit.idle.length ? theme.warn : theme.good}>idle {audit.idle.length}</Text>
        {audit.idle.length ? ` (${audit.idle.join(", ")})` : ""}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {sel && selCol
          ? `${sel.taskId} × ${selCol}: ${route ? `routed on “${route.matched ?? ""}”` : "not routed"} · Enter lists the task's attempts`
          : "no routed task"}
      </Text>
    </Box>
  );
}
