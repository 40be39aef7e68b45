import { Box, type Key, Text } from "ink";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import {
  promote,
  replayScreen,
  retire,
  routingAudit,
  savedReplayScreens,
} from "../../core/app/index.js";
import type { ReplayScreen } from "../../core/screen/replay/measure.js";
import { renderReplayScreen } from "../../core/screen/replay/render.js";
import { RouteMatrix } from "../components/RouteMatrix.js";
import { TextField } from "../components/TextField.js";
import { TextView } from "../components/TextView.js";
import { VirtualList } from "../components/VirtualList.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useTheme } from "../contexts/ThemeContext.js";
import { listRunScreens, type RunScreenEntry, runScreenReport } from "../data/screens.js";
import { moveBy } from "../hooks/useKeypress.js";
import { useKeyTable } from "../hooks/useKeyTable.js";
import { useListCursor } from "../hooks/useListCursor.js";
import { useSticky } from "../hooks/useSticky.js";
import { useWorkbench } from "../hooks/useWorkbench.js";
import {
  SCREENS_AUDIT_KEYS,
  SCREENS_REPLAY_KEYS,
  SCREENS_RUNS_KEYS,
  TEXT_KEYS,
} from "../keys/tables.js";
import type { ScreenProps } from "./types.js";

type Tab = "audit" | "replay" | "runs";
const TABS: [Tab, string, string][] = [
  ["audit", "a", "routing audit"],
  ["replay", "p", "replay screens"],
  ["runs", "s", "run screens"],
];

/** Screen 5: routing audit matrix, replay screens (run + verdict), run-screen reports. */
export function ScreensScreen({ width, height }: ScreenProps): ReactNode {
  const { data } = useAppState();
  const actions = useAppActions();
  const theme = useTheme();
  const [tab, setTab] = useSticky<Tab>("screens.tab", "audit");
  const [text, setText] = useState<string[] | undefined>();
  const [top, setTop] = useState(0);
  const [runs, setRuns] = useState<RunScreenEntry[]>([]);
  const [tick, setTick] = useState(0);
  const [verdict, setVerdict] = useState<
    { kind: "promote" | "retire"; value: string } | undefined
  >();
  const wb = useWorkbench();
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

  const scroll = (input: string, key: Key, max: number) => {
    const m = moveBy(input, key, listHeight);
    if (m === undefined) return false;
    setTop((t) => Math.max(0, Math.min(max, m === "start" ? 0 : m === "end" ? max : t + m)));
  };
  useKeyTable(
    TEXT_KEYS,
    {
      move: (input, key) => scroll(input, key, text?.length ?? 0),
      close: () => setText(undefined),
    },
    { isActive: !!data && !verdict && !!text },
  );
  const tabs = {
    audit: () => switchTab("audit"),
    replay: () => switchTab("replay"),
    runs: () => switchTab("runs"),
  };
  const switchTab = (t: Tab) => {
    setTab(t);
    setTop(0);
  };
  const showReport = (s: ReplayScreen) => {
    setText(renderReplayScreen(s).split("\n"));
    setTop(0);
  };
  const live1 = () => live[cursor.current()];
  const tabActive = (t: Tab) => !!data && !verdict && !text && tab === t;
  useKeyTable(
    SCREENS_AUDIT_KEYS,
    { ...tabs, move: (input, key) => scroll(input, key, audit?.matrix.length ?? 0) },
    { isActive: tabActive("audit") },
  );
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
            if (out) {
              setText(out.split("\n"));
              setTop(0);
            }
          });
      },
      refresh: () => setTick((x) => x + 1),
    },
    { isActive: tabActive("runs") },
  );

  if (!data || !audit) return <Text color={theme.muted}>reading the workspace…</Text>;
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
        <TextView lines={text} top={top} height={height - 1} />
      ) : tab === "audit" ? (
        <RouteMatrix audit={audit} top={top} height={height - 1} width={width} />
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
              return (
                <Text wrap="truncate-end">
                  {c.policy!.key.slice(0, 40).padEnd(41)}
                  <Text
                    color={
                      s?.verdict.verdict === "promising" ? theme.good : s ? theme.warn : theme.muted
                    }
                  >
                    {s ? s.verdict.verdict : "not screened"}
                  </Text>
                  <Text color={theme.muted}>
                    {s
                      ? ` · positives ${s.summary.positiveFiring.k}/${s.summary.positiveFiring.n} · negatives ${s.summary.negativeFiring.k}/${s.summary.negativeFiring.n}`
                      : ""}
                  </Text>
                </Text>
              );
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
      ) : (
        <VirtualList
          items={runs}
          selected={cursor.index}
          height={listHeight}
          keyOf={(r) => r.name}
          empty="no run screens: fire screen plan / run / import (see README)"
          renderRow={(r) => (
            <Text wrap="truncate-end">
              {r.name.padEnd(30)}{" "}
              <Text color={theme.muted}>
                {r.hasPlan ? "plan" : "no plan"} · {r.rows} result rows
              </Text>
            </Text>
          )}
        />
      )}
    </Box>
  );
}
