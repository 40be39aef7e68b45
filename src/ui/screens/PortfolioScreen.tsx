import { relative } from "node:path";
import { Box } from "ink";
import { type ReactNode, useMemo, useState } from "react";
import { fieldReport, type HookReport, installHook, uninstallHook } from "../../core/app/hook.js";
import { policyKey } from "../../core/app/present.js";
import type { Harness } from "../../core/deploy/settings.js";
import { Text } from "../components/Text.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { exportPortfolio, listPortfolios } from "../data/portfolios.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { PORTFOLIO_KEYS } from "../keys/tables.js";
import { HookReportView } from "./HookReportView.js";
import type { ScreenProps } from "./types.js";

/**
 * Screen 6: frozen portfolios with hashes and evidence; hook install/uninstall; export; the
 * hook report of the selected portfolio (`l`: what the installed hook did, per rule).
 */
export function PortfolioScreen({ width, height }: ScreenProps): ReactNode {
  const { data } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  const [tick, setTick] = useState(0);
  const [report, setReport] = useState<{ name: string; report: HookReport } | undefined>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: data/tick re-read the folder
  const portfolios = useMemo(() => (data ? listPortfolios(data.ws.dir) : []), [data, tick]);
  const listHeight = Math.max(3, Math.min(portfolios.length + 1, Math.floor(height / 3)));
  const cursor = useListCursor(portfolios.length, listHeight, "portfolio.list");
  const p = portfolios[cursor.index];

  const hook = (harness: Harness, install: boolean) => () => {
    if (!data) return;
    const p = portfolios[cursor.current()];
    if (install && !p) {
      actions.notify("warn", "freeze a portfolio first (4 Candidates, F)");
      return;
    }
    void actions.run(
      `${install ? "install" : "uninstall"} hook (${harness})`,
      async () =>
        install
          ? installHook({
              harness,
              project: data.ws.dir,
              portfolio: p!.dir,
              workspace: data.ws.dir,
            })
          : uninstallHook({ harness, project: data.ws.dir }),
      (r) =>
        `${install ? (r.changed ? "installed" : "already installed") : r.changed ? "removed" : "not installed"}: fire hook for ${harness} in ${relative(data.ws.dir, r.file)}`,
    );
  };
  useKeyTable(
    PORTFOLIO_KEYS,
    {
      move: cursor.handle,
      claude: hook("claude", true),
      codex: hook("codex", true),
      unclaude: hook("claude", false),
      uncodex: hook("codex", false),
      export: () => {
        const p = portfolios[cursor.current()];
        if (!data || !p) return false;
        void actions.run(
          `export ${p.name}`,
          () => exportPortfolio(data.ws.dir, p),
          (m) => `exported for failproofai: ${relative(data.ws.dir, m)}`,
        );
      },
      report: () => {
        const p = portfolios[cursor.current()];
        if (!data || !p) return false;
        void actions
          .run(
            `hook report ${p.name}`,
            async () => fieldReport({ workspace: data.ws.dir, portfolio: p.dir }),
            (r) => `hook report ${p.name}: ${r.files.length} log file(s), ${r.sessions} sessions`,
          )
          .then((r) => {
            if (r) setReport({ name: p.name, report: r });
          });
      },
      reload: () => setTick((t) => t + 1),
    },
    { isActive: !!data && !report },
  );

  if (!data) return <Text color={theme.muted}>reading the workspace…</Text>;
  if (report)
    return (
      <HookReportView
        title={`hook report of portfolio ${report.name} (the workspace's hook logs, .fire/)`}
        report={report.report}
        width={width}
        height={height}
        stickyKey={`portfolio.report.${report.name}`}
        onBack={() => setReport(undefined)}
      />
    );
  const m = p?.manifest;
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>Frozen portfolios (portfolios/)</Text>
      <VirtualList
        items={portfolios}
        selected={cursor.index}
        height={listHeight}
        keyOf={(x) => x.name}
        empty="none yet: freeze candidates in 4 Candidates (F)"
        renderRow={(x) => (
          <Text wrap="truncate-end">
            {x.name.padEnd(24)}
            <Text color={x.problem ? theme.bad : theme.good}>
              {x.problem ? "✗ tampered" : "✓ hashes verified"}
            </Text>
            <Text color={theme.muted}>
              {x.manifest
                ? ` · ${x.manifest.policies.length} policies · ${x.manifest.frozenAt}`
                : ""}
            </Text>
          </Text>
        )}
      />
      {p ? (
        <Box flexDirection="column">
          {p.problem ? (
            <Text color={theme.bad} wrap="wrap">
              {p.problem.replaceAll(`${data.ws.dir}/`, "")}
            </Text>
          ) : null}
          <Text wrap="truncate-end">manifest sha256 {m?.manifestHash ?? "?"}</Text>
          {(m?.policies ?? []).slice(0, 4).map((x) => (
            <Text key={x.file} wrap="truncate-end">
              {`  ${policyKey(x)}`.padEnd(34)}{" "}
              <Text color={theme.muted}>
                {x.family} · sha256 {x.sha256.slice(0, 16)}… · from {x.source}
              </Text>
            </Text>
          ))}
          {(m?.screens ?? []).slice(0, 3).map((s) => (
            <Text key={`${s.policy}:${s.name}`} wrap="truncate-end">
              {"  evidence: "}
              {s.kind} screen {s.name}: {s.verdict}
              <Text color={theme.muted}> {s.evidence[0] ?? ""}</Text>
            </Text>
          ))}
          {(m?.forced ?? []).map((f) => (
            <Text key={f.policy} color={theme.warn} wrap="truncate-end">
              {"  forced: "}
              {f.policy}: {f.reason}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}
