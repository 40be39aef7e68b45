import { Text } from "ink";
import type { ReactNode } from "react";
import type { CandidateEntry } from "../../core/lifecycle/entries.js";
import type { ReplayScreen } from "../../core/screen/replay/measure.js";
import { useTheme } from "../contexts/ThemeContext.js";
import type { RunScreenEntry } from "../data/screens.js";

/** A candidate on the replay tab: its saved replay screen's verdict and firing counts. */
export function ReplayRow({
  entry,
  screen,
}: {
  entry: CandidateEntry;
  screen?: ReplayScreen;
}): ReactNode {
  const theme = useTheme();
  const v = screen?.verdict.verdict;
  const s = screen?.summary;
  return (
    <Text wrap="truncate-end">
      {entry.policy!.key.slice(0, 40).padEnd(41)}
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
export function RunRow({ run }: { run: RunScreenEntry }): ReactNode {
  const theme = useTheme();
  return (
    <Text wrap="truncate-end">
      {run.name.padEnd(30)}{" "}
      <Text color={theme.muted}>
        {run.hasPlan ? "plan" : "no plan"} · {run.rows} result rows
      </Text>
    </Text>
  );
}
