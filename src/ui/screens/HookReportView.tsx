import { Box } from "ink";
import { type ReactNode, useState } from "react";
import {
  type HookReport,
  latencyText,
  outcomesText,
  type RuleRow,
  ruleDetailLines,
  ruleLines,
} from "../../core/app/hook.js";
import { Pager } from "../components/Pager.js";
import { Text } from "../components/Text.js";
import { VirtualList } from "../components/VirtualList.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { HOOK_REPORT_KEYS } from "../keys/tables.js";
import { layoutColumns } from "../text/columns.js";
import { fitCell } from "../text/wrap.js";

export interface HookReportViewProps {
  /** What the report is of (first line). */
  title: string;
  report: HookReport;
  /** The rows shown (default: every rule of the report). */
  rows?: readonly RuleRow[];
  width: number;
  height: number;
  onBack: () => void;
  /** Keeps the cursor when the view is left and opened again. */
  stickyKey: string;
}

/** `3 +2 obs` (observe-mode firings beside the enforced ones). */
const both = (enforced: number, observed: number) =>
  observed > 0 ? `${enforced} +${observed} obs` : String(enforced);

/** The totals line: files, sessions, events, faults, observe mode, latency. */
export function reportTotals(r: HookReport): string {
  return `${r.files.length} log file(s) · ${r.sessions} sessions · ${r.events} events · faults ${r.faults} (fail-open ${r.failOpens}) · held back by observe ${r.observedAnswers} · ${latencyText(r.latency)}`;
}

/**
 * What `fire hook report` shows, as a list: one row per rule and policy version (firings
 * enforced and observed, denies, escalations, followed / ignored, the outcomes of the sessions
 * it fired in, flags), the selected rule's lines below; Enter reads the rule with every
 * session it fired in (log file:line, verifier outcome) in the pager.
 */
export function HookReportView(props: HookReportViewProps): ReactNode {
  const { report, width, height, onBack, stickyKey } = props;
  const rows = props.rows ?? report.rules;
  const theme = useTheme();
  const [detail, setDetail] = useState<RuleRow | undefined>();
  const listHeight = Math.max(3, height - 10);
  const cursor = useListCursor(rows.length, listHeight, stickyKey);
  useKeyTable(
    HOOK_REPORT_KEYS,
    {
      move: cursor.handle,
      open: () => {
        const r = rows[cursor.current()];
        if (!r) return false;
        setDetail(r);
      },
      back: onBack,
    },
    { isActive: !detail },
  );
  if (detail)
    return (
      <Pager
        title={`${detail.policy}/${detail.rule} in the field`}
        text={`${ruleDetailLines(detail).join("\n")}\n`}
        width={width}
        height={height}
        editName="field.txt"
        onClose={() => setDetail(undefined)}
      />
    );
  const [ruleW, modeW, firedW, denyW, escW, folW, outW, flagW] = layoutColumns(width - 2, [
    { want: 40, min: 12, flex: true },
    { want: 8, min: 7 },
    { want: 11, min: 5 },
    { want: 9, min: 5 },
    { want: 9, min: 5 },
    { want: 10, min: 7 },
    { want: 22, min: 8 },
    { want: 14, min: 6 },
  ]);
  const sel = rows[cursor.index];
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {props.title}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {reportTotals(report)}
      </Text>
      <Text bold wrap="truncate-end">
        {`  ${fitCell("policy/rule", ruleW!)} ${fitCell("mode", modeW!)} ${fitCell("fired", firedW!)} ${fitCell("denies", denyW!)} ${fitCell("escalated", escW!)} ${fitCell("fol/ign", folW!)} ${fitCell("outcomes", outW!)} ${fitCell("flags", flagW!)}`}
      </Text>
      <VirtualList
        items={rows}
        selected={cursor.index}
        height={listHeight}
        keyOf={(r) => `${r.policy}/${r.rule}`}
        empty="no rule in these hook logs (none fired, no portfolio given)"
        renderRow={(r) => (
          <Text wrap="truncate-end">
            {fitCell(`${r.policy}/${r.rule}`, ruleW!)} {fitCell(r.modes.join("+"), modeW!)}{" "}
            {fitCell(both(r.enforced.firings, r.observed.firings), firedW!)}{" "}
            {fitCell(both(r.enforced.denies, r.observed.denies), denyW!)}{" "}
            {fitCell(both(r.enforced.escalations, r.observed.escalations), escW!)}{" "}
            {fitCell(`${r.followed}/${r.ignored}`, folW!)}{" "}
            {fitCell(r.fired.length > 0 ? outcomesText(r.outcomes) : "-", outW!)}{" "}
            <Text color={r.flags.length > 0 ? theme.warn : theme.muted}>
              {fitCell(r.flags.join(",") || "-", flagW!)}
            </Text>
          </Text>
        )}
      />
      {sel
        ? ruleLines(sel).map((l) => (
            <Text key={l} color={theme.muted} wrap="truncate-end">
              {l}
            </Text>
          ))
        : null}
      {report.errors.length > 0 ? (
        <Text color={theme.warn} wrap="truncate-end">
          {`${report.errors.length} bad line(s) skipped; first: ${report.errors[0]!.format()}`}
        </Text>
      ) : null}
    </Box>
  );
}
