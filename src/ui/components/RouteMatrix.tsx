import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { RouteAudit } from "../../core/route/audit.js";
import { useTheme } from "../contexts/ThemeContext.js";

export interface RouteMatrixProps {
  audit: RouteAudit;
  top: number;
  height: number;
  width: number;
}

/** Task × candidate routing matrix (● routed), routed tasks only; problems underneath. */
export function RouteMatrix({ audit, top, height, width }: RouteMatrixProps): ReactNode {
  const theme = useTheme();
  const cols = audit.candidates.map((c) => c.policy);
  const routed = audit.matrix.filter((r) => r.routes.length > 0);
  const nameW = Math.max(12, Math.min(30, width - 4 - cols.length * 2));
  const rows = Math.max(1, height - 4);
  const start = Math.max(0, Math.min(top, Math.max(0, routed.length - rows)));
  return (
    <Box flexDirection="column">
      <Text color={theme.muted} wrap="truncate-end">
        {`${"task".padEnd(nameW)} ${cols.map((_c, i) => String((i + 1) % 10)).join(" ")}   ${cols.map((c, i) => `${i + 1}=${c}`).join(" ")}`}
      </Text>
      {routed.slice(start, start + rows).map((r) => {
        const set = new Set(r.routes.map((x) => x.policy));
        const multi = new Set(r.routes.map((x) => x.family)).size > 1;
        return (
          <Text key={r.taskId} wrap="truncate-end">
            <Text color={multi ? theme.warn : undefined}>
              {r.taskId.slice(0, nameW).padEnd(nameW)}{" "}
            </Text>
            {cols.map((c) => (set.has(c) ? "●" : "·")).join(" ")}
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
      <Text color={theme.muted}>j/k scroll</Text>
    </Box>
  );
}
