import type { ReactNode } from "react";
import { outcomesText, type PolicyField } from "../../core/app/hook.js";
import type { CandidateEntry } from "../../core/lifecycle/entries.js";
import type { ReplayScreen } from "../../core/screening/replay/measure.js";
import { Text } from "../components/Text.js";
import { useTheme } from "../contexts/ThemeContext.js";
import type { RunScreenEntry } from "../data/screens.js";
import { fitCell } from "../text/wrap.js";

/** A candidate on the replay tab: its saved replay screen's verdict and firing counts. */
export function ReplayRow({
  entry,
  screen,
  width = 120,
}: {
  entry: CandidateEntry;
  screen?: ReplayScreen;
  /** The screen's width: the key gives way (middle ellipsis) below 80 columns. */
  width?: number;
}): ReactNode {
  const theme = useTheme();
  const v = screen?.verdict.verdict;
  const s = screen?.summary;
  return (
    <Text wrap="truncate-end">
      {`${fitCell(entry.policy!.key, Math.max(10, Math.min(40, width - 40)))} `}
      <Text color={v === "promising" ? theme.good : v ? theme.warn : theme.muted}>
        {v ?? "not screened"}
      </Text>
      <Text color={theme.muted}>
        {s
          ? ` · positives ${s.positiveFiring.k}/${s.positiveFiring.n} · negatives ${s.negativeFiring.k}/${s.negativeFiring.n}`
          : ""}
      </Text>
    </Text>
  );
}

/** A run screen on the runs tab: plan or not, result rows so far. */
export function RunRow({ run, width = 120 }: { run: RunScreenEntry; width?: number }): ReactNode {
  const theme = useTheme();
  return (
    <Text wrap="truncate-end">
      {fitCell(run.name, Math.max(8, Math.min(30, width - 30)))}{" "}
      <Text color={theme.muted}>
        {run.hasPlan ? "plan" : "no plan"} · {run.rows} result rows
      </Text>
    </Text>
  );
}

/**
 * A candidate on the field tab: what the deployed hook did with it (sessions it was loaded
 * in and fired in, firings enforced / observed, denies, escalations, followed / ignored, the
 * outcomes of the sessions it fired in). `null`: not in the hook logs; absent: still reading.
 */
export function FieldRow({
  entry,
  field,
  width = 120,
}: {
  entry: CandidateEntry;
  field?: PolicyField | null;
  width?: number;
}): ReactNode {
  const theme = useTheme();
  const key = `${fitCell(entry.policy!.key, Math.max(10, Math.min(40, width - 40)))} `;
  if (field === undefined)
    return (
      <Text wrap="truncate-end">
        {key}
        <Text color={theme.muted}>reading the hook logs…</Text>
      </Text>
    );
  if (field === null)
    return (
      <Text wrap="truncate-end">
        {key}
        <Text color={theme.muted}>not in the hook logs</Text>
      </Text>
    );
  const obs = (n: number) => (n > 0 ? ` +${n} observed` : "");
  const fired = field.enforced.firings + field.observed.firings;
  return (
    <Text wrap="truncate-end">
      {key}
      <Text color={field.flags.length > 0 ? theme.warn : fired > 0 ? theme.good : theme.muted}>
        {`fired in ${field.firedSessions}/${field.sessions} sessions`}
      </Text>
      <Text color={theme.muted}>
        {field.flags.length > 0 ? ` · ${field.flags.join(", ")}` : ""}
        {` · firings ${field.enforced.firings}${obs(field.observed.firings)} · denies ${field.enforced.denies}${obs(field.observed.denies)}`}
        {fired > 0 ? ` · outcomes ${outcomesText(field.outcomes)}` : ""}
        {` · followed ${field.followed}, ignored ${field.ignored} · escalations ${field.enforced.escalations}${obs(field.observed.escalations)}`}
      </Text>
    </Text>
  );
}
