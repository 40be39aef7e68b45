import { Box } from "ink";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { fieldReport, type HookReport, policyField } from "../../core/app/hook.js";
import {
  promote,
  replayScreen,
  retire,
  routingAudit,
  savedReplayScreens,
} from "../../core/app/index.js";
import { renderReplayScreen } from "../../core/app/present.js";
import { type FunnelRow, loadFunnelRows } from "../../core/app/results.js";
import type { ReplayScreen } from "../../core/screening/replay/measure.js";
import { Pager } from "../components/Pager.js";
import { RefineView } from "../components/RefineView.js";
import { Text } from "../components/Text.js";
import { TextField } from "../components/TextField.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { listRunScreens, type RunScreenEntry, runScreenReport } from "../data/screens.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useRefine } from "../hooks/useRefine.js";
import { useSticky } from "../hooks/useSticky.js";
import { useWorkbench } from "../hooks/useWorkbench.js";
import { SCREENS_FIELD_KEYS, SCREENS_REPLAY_KEYS, SCREENS_RUNS_KEYS } from "../keys/tables.js";
import { HookReportView } from "./HookReportView.js";
import { ScreeningAudit } from "./ScreeningAudit.js";
import { ScreeningFunnel } from "./ScreeningFunnel.js";
import { FieldRow, ReplayRow, RunRow } from "./ScreeningRows.js";
import type { ScreenProps } from "./types.js";

type Tab = "audit" | "replay" | "runs" | "field";
const TABS: [Tab, string, string][] = [
  ["audit", "a", "routing audit"],
  ["replay", "p", "replay screens"],
  ["runs", "s", "run screens"],
  ["field", "d", "field"],
];

/**
 * Screen 5: routing audit matrix, replay screens (run + verdict), run-screen reports, and the
 * field: what the deployed hook did with each candidate (the workspace's hook logs).
 */
export function ScreeningScreen({ width, height }: ScreenProps): ReactNode {
  const { data } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  const [tab, setTab] = useSticky<Tab>("screens.tab", "audit");
  // A report in the pager; a run screen's funnel rows (kept while a row's attempts are open).
  const [text, setText] = useState<{ title: string; text: string } | undefined>();
  const [funnel, setFunnel] = useSticky<{ name: string; rows: FunnelRow[] } | undefined>(
    "screens.funnel",
    undefined,
  );
  const [runs, setRuns] = useState<RunScreenEntry[]>([]);
  // the field tab's hook report (read when the tab opens, `r` reads again) and an open candidate
  const [field, setField] = useState<HookReport | undefined>();
  const [fieldOpen, setFieldOpen] = useState<string | undefined>();
  const [tick, setTick] = useState(0);
  const [verdict, setVerdict] = useState<
    { kind: "promote" | "retire"; value: string } | undefined
  >();
  const wb = useWorkbench();
  const refining = useRefine(() => setTick((t) => t + 1));
  const live = useMemo(
    () =>
      (data?.candidates ?? []).filter((c) => c.policy && c.policy.candidate.status !== "retired"),
    [data],
  );
  const audit = useMemo(() => (data ? routingAudit(data) : undefined), [data]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick re-reads after a run
  useEffect(() => {
    if (data) void listRunScreens(data.ws.dir).then(setRuns, () => setRuns([]));
  }, [data, tick]);
  const listHeight = Math.max(3, height - 3);
  const items = tab === "runs" ? runs.length : live.length;
  const cursor = useListCursor(items, listHeight, `screens.${tab}`);
  // Saved replay screens are read once per workspace change or replay run, never in render.
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick re-reads after a run
  const screens = useMemo(() => (data ? savedReplayScreens(data) : new Map()), [data, tick]);
  const saved = (key: string) => screens.get(key);

  const decide = (kind: "promote" | "retire", note: string) => {
    const c = live[cursor.current()];
    if (!data || !c) return;
    void actions
      .run(
        `${kind} ${c.policy!.key}`,
        () => (kind === "promote" ? promote : retire)(data, c.file, note),
        () => `${kind} ${c.policy!.key}: done`,
      )
      .then(() => wb.reloadCandidates());
  };

  const tabs = {
    audit: () => switchTab("audit"),
    replay: () => switchTab("replay"),
    runs: () => switchTab("runs"),
    field: () => switchTab("field"),
  };
  const switchTab = (t: Tab) => {
    setTab(t);
    setFunnel(undefined);
    setFieldOpen(undefined);
    if (t === "field" && !field) readField();
  };
  const readField = () => {
    if (!data) return;
    void actions
      .run("read the hook logs", async () => fieldReport({ workspace: data.ws.dir }))
      .then((r) => {
        if (r) setField(r);
      });
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the saved tab opens on the field
  useEffect(() => {
    if (tab === "field" && !field) readField();
  }, [data]);
  const showReport = (s: ReplayScreen) =>
    // the report names the candidate on its first line; the pager title says what it is
    setText({ title: "replay report", text: renderReplayScreen(s) });
  const live1 = () => live[cursor.current()];
  // while the candidate files are read the lists are not shown: their keys would act (and move
  // the saved cursor, clamped on an empty list) out of sight
  const tabActive = (t: Tab) =>
    !!data &&
    !data.candidatesPending &&
    !verdict &&
    !text &&
    !funnel &&
    !fieldOpen &&
    !refining.open &&
    tab === t;
  useKeyTable(
    SCREENS_REPLAY_KEYS,
    {
      ...tabs,
      move: cursor.handle,
      run: () => {
        const c = live1();
        if (!data || !c) return false;
        void actions
          .run(
            `replay screen ${c.policy!.key}`,
            async (signal) => (await replayScreen(data, c.file, { signal })).screen,
            (s) => `replay screen ${s.candidate}: ${s.verdict.verdict.toUpperCase()}`,
          )
          .then((s) => {
            if (s) {
              setTick((t) => t + 1);
              showReport(s);
            }
          });
      },
      open: () => {
        const c = live1();
        if (!c) return false;
        const s = saved(c.policy!.key);
        if (s) showReport(s);
        else actions.notify("warn", `no replay screen for ${c.policy!.key} yet: press r`);
      },
      promote: () => (live1() ? setVerdict({ kind: "promote", value: "" }) : false),
      retire: () => (live1() ? setVerdict({ kind: "retire", value: "" }) : false),
      refine: () => {
        const c = live1();
        return c ? refining.start(c.file, c.policy!.key) : false;
      },
    },
    { isActive: tabActive("replay") },
  );
  useKeyTable(
    SCREENS_RUNS_KEYS,
    {
      ...tabs,
      move: cursor.handle,
      open: () => {
        const r = runs[cursor.current()];
        if (!data || !r) return false;
        void actions
          .run(
            `report ${r.name}`,
            () => runScreenReport(data.ws.dir, r.name),
            () => `report ${r.name}`,
          )
          .then((out) => {
            if (out) setText({ title: `run screen ${r.name}`, text: out });
          });
      },
      funnel: () => {
        const r = runs[cursor.current()];
        if (!data || !r) return false;
        void actions
          .run(`funnel ${r.name}`, () => loadFunnelRows(data.ws.dir, r.name))
          .then((rows) => {
            if (rows) setFunnel({ name: r.name, rows });
          });
      },
      refresh: () => setTick((x) => x + 1),
    },
    { isActive: tabActive("runs") },
  );

  useKeyTable(
    SCREENS_FIELD_KEYS,
    {
      ...tabs,
      move: cursor.handle,
      open: () => {
        const c = live1();
        if (!c || !field) return false;
        if (!policyField(field, c.policy!.key)) {
          actions.notify("warn", `${c.policy!.key} is not in the hook logs (.fire/)`);
          return;
        }
        setFieldOpen(c.policy!.key);
      },
      refresh: readField,
    },
    { isActive: tabActive("field") },
  );

  if (!data || !audit) return <Text color={theme.muted}>reading the workspace…</Text>;
  // not an audit of no candidates ("0 routed") while the files are still being read
  if (data.candidatesPending) return <Text color={theme.muted}>reading the candidate files…</Text>;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        {TABS.map(([id, k, title]) => (
          <Text key={id} inverse={id === tab} color={id === tab ? theme.accent : theme.muted}>
            {` ${k} ${title} `}
          </Text>
        ))}
      </Text>
      {text ? (
        <Pager
          title={text.title}
          text={text.text}
          width={width}
          height={height - 1}
          editName="report.txt"
          onClose={() => setText(undefined)}
        />
      ) : refining.open && tab === "replay" ? (
        <RefineView
          result={refining.open.result}
          width={width}
          height={height - 1}
          onAccept={refining.accept}
          onBack={refining.close}
        />
      ) : funnel && tab === "runs" ? (
        <ScreeningFunnel
          name={funnel.name}
          rows={funnel.rows}
          height={height - 1}
          onBack={() => setFunnel(undefined)}
        />
      ) : fieldOpen && field && tab === "field" ? (
        <HookReportView
          title={`${fieldOpen} in the field (the workspace's hook logs)`}
          report={field}
          rows={policyField(field, fieldOpen)?.rules ?? []}
          width={width}
          height={height - 1}
          stickyKey={`screens.field.${fieldOpen}`}
          onBack={() => setFieldOpen(undefined)}
        />
      ) : tab === "audit" ? (
        <ScreeningAudit
          audit={audit}
          tabs={tabs}
          active={tabActive("audit")}
          width={width}
          height={height - 1}
        />
      ) : tab === "replay" ? (
        <>
          <VirtualList
            items={live}
            selected={cursor.index}
            height={listHeight}
            keyOf={(c) => c.file}
            empty="no valid candidates"
            renderRow={(c) => {
              const s = saved(c.policy!.key);
              return <ReplayRow entry={c} width={width} {...(s ? { screen: s } : {})} />;
            }}
          />
          {verdict ? (
            <TextField
              label={verdict.kind === "promote" ? "promote note:" : "retire reason:"}
              value={verdict.value}
              active
              width={width}
              onChange={(v) => setVerdict({ ...verdict, value: v })}
              onSubmit={(v) => {
                setVerdict(undefined);
                if (v.trim() || verdict.kind === "promote") decide(verdict.kind, v.trim());
              }}
              onCancel={() => setVerdict(undefined)}
            />
          ) : null}
        </>
      ) : tab === "field" ? (
        <VirtualList
          items={live}
          selected={cursor.index}
          height={listHeight}
          keyOf={(c) => c.file}
          empty="no valid candidates"
          renderRow={(c) => (
            <FieldRow
              entry={c}
              width={width}
              {...(field ? { field: policyField(field, c.policy!.key) ?? null } : {})}
            />
          )}
        />
      ) : (
        <VirtualList
          items={runs}
          selected={cursor.index}
          height={listHeight}
          keyOf={(r) => r.name}
          empty="no run screens: fire screen plan / run / import (see README)"
          renderRow={(r) => <RunRow run={r} width={width} />}
        />
      )}
    </Box>
  );
}
