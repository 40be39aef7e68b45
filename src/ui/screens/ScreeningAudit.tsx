import type { ReactNode } from "react";
import type { RouteAudit } from "../../core/route/audit.js";
import { RouteMatrix, routedRows } from "../components/RouteMatrix.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import type { CommandHandler } from "../hooks/useKeyTable.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useSticky } from "../hooks/useSticky.js";
import { SCREENS_AUDIT_KEYS } from "../keys/tables.js";

export interface ScreeningAuditProps {
  audit: RouteAudit;
  /** The tab switches (a / p / s), shared by every tab of the Screens screen. */
  tabs: Record<"audit" | "replay" | "runs" | "field", CommandHandler>;
  active: boolean;
  width: number;
  height: number;
}

/** The routing-audit tab: a cell cursor over task × candidate; Enter lists the task's attempts. */
export function ScreeningAudit({
  audit,
  tabs,
  active,
  width,
  height,
}: ScreeningAuditProps): ReactNode {
  const { data } = useAppState();
  const actions = useAppActions();
  const routed = routedRows(audit);
  const cursor = useListCursor(routed.length, Math.max(1, height - 4), "screens.audit.row");
  const [col, setCol, colNow] = useSticky("screens.audit.col", 0);
  const cols = audit.candidates.length;
  useKeyTable(
    SCREENS_AUDIT_KEYS,
    {
      ...tabs,
      move: cursor.handle,
      column: (input, key) => {
        const by = key.rightArrow || input === "l" ? 1 : -1;
        setCol(Math.max(0, Math.min(cols - 1, colNow() + by)));
      },
      open: () => {
        const r = routed[cursor.current()];
        const c = audit.candidates[Math.min(colNow(), cols - 1)];
        if (!r || !c || !data) return false;
        const routes = r.routes.some((x) => x.policy === c.policy);
        const ids = data.ws.attempts.filter((a) => a.taskId === r.taskId).map((a) => a.id);
        actions.openAttempts({
          title: `${r.taskId} · ${routes ? "routed" : "not routed"} by ${c.policy} · ${ids.length} attempts`,
          ids,
        });
      },
    },
    { isActive: active },
  );
  return (
    <RouteMatrix
      audit={audit}
      row={cursor.index}
      col={Math.min(col, Math.max(0, cols - 1))}
      height={height}
      width={width}
    />
  );
}
