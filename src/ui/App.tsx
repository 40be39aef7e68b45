import { Box } from "ink";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import type { TriageGlance } from "../core/app/glance.js";
import { countsText } from "./components/GlanceFrame.js";
import { Header } from "./components/Header.js";
import { HelpOverlay } from "./components/HelpOverlay.js";
import { Pager } from "./components/Pager.js";
import { SearchOverlay } from "./components/SearchOverlay.js";
import { StatusLine } from "./components/StatusLine.js";
import { Text } from "./components/Text.js";
import { AppProvider, useAppActions, useAppState } from "./contexts/AppContext.js";
import { QuitContext } from "./contexts/QuitContext.js";
import { cycleScreen, SCREENS } from "./contexts/screens.js";
import { ThemeContext } from "./contexts/ThemeContext.js";
import { searchItems } from "./data/search.js";
import {
  type ActiveTable,
  KeyLayer,
  KeypressProvider,
  type TypedKey,
  useActiveTables,
} from "./hooks/useKeypress.js";
import { useKeyTable } from "./hooks/useKeyTable.js";
import { StickyProvider } from "./hooks/useSticky.js";
import { type TerminalSize, useTerminalSize } from "./hooks/useTerminalSize.js";
import { useWorkspaceLoad } from "./hooks/useWorkspaceLoad.js";
import { hintText, type KeyTable } from "./keys/table.js";
import { GLOBAL_KEYS, LOAD_KEYS } from "./keys/tables.js";
import { ScreenBody } from "./screens/ScreenBody.js";
import { isBusy } from "./status.js";
import { type Theme, themeFor } from "./theme.js";

export interface AppProps {
  /** The workspace folder. */
  dir: string;
  /** Fixed size (tests, benchmarks); otherwise the terminal's, following resizes. */
  size?: Partial<TerminalSize>;
  theme?: Theme;
  /** Called when the user quits (q; Ctrl-C is Boot's, whatever has the keyboard). */
  onQuit?: () => void;
  /** Called once the workspace is loaded and its first frame rendered. */
  onReady?: () => void;
  /** Told every command a key runs (tests watch dispatch with it). */
  onCommand?: (scope: string, id: string) => void;
  /** Triage as last computed, shown until the workspace is read (Boot reads it). */
  glance?: TriageGlance;
  /** Keys typed before the workbench was up (Boot kept them), handled first. */
  typed?: readonly TypedKey[];
}

/** Below this size the workbench shows a message instead of a garbled frame. */
export const MIN_SIZE = { columns: 40, rows: 10 } as const;

/** The workbench: providers around the shell. */
export function App(props: AppProps): ReactNode {
  const { dir, size, theme, onQuit, onReady, onCommand, glance, typed } = props;
  return (
    <ThemeContext.Provider value={theme ?? themeFor()}>
      <KeypressProvider {...(onCommand ? { onCommand } : {})} {...(typed ? { typed } : {})}>
        <AppProvider dir={dir} {...(glance ? { initial: { glance } } : {})}>
          <StickyProvider>
            <Shell
              {...(size ? { size } : {})}
              {...(onQuit ? { onQuit } : {})}
              {...(onReady ? { onReady } : {})}
            />
          </StickyProvider>
        </AppProvider>
      </KeypressProvider>
    </ThemeContext.Provider>
  );
}

interface ShellProps {
  size?: Partial<TerminalSize>;
  onQuit?: () => void;
  onReady?: () => void;
}

function Shell({ size: fixed, onQuit, onReady }: ShellProps): ReactNode {
  const state = useAppState();
  const actions = useAppActions();
  const size = useTerminalSize(fixed);
  // The last message, read in full in the pager (`!`): the status line has one row.
  const [reading, setReading] = useState<string | undefined>();
  // Load the workspace (its index when current), then in the background the clusters.
  const load = useWorkspaceLoad();
  useEffect(() => {
    if (state.data) onReady?.();
  }, [state.data, onReady]);

  useKeyTable(
    LOAD_KEYS,
    { retry: () => load.retry() },
    {
      isActive: !state.data && !isBusy(state.status),
    },
  );
  useKeyTable(
    GLOBAL_KEYS,
    {
      screen: (input) => {
        const s = SCREENS.find((x) => x.key === input);
        if (s) actions.go(s.id);
      },
      next: () => actions.go(cycleScreen(state.screen, 1)),
      prev: () => actions.go(cycleScreen(state.screen, -1)),
      back: () => {
        if (isBusy(state.status)) actions.cancel();
        else actions.back();
      },
      search: () => actions.setOverlay("search"),
      help: () => actions.setOverlay("help"),
      message: () => (state.message ? setReading(state.message.text) : false),
      quit: () => onQuit?.(),
    },
    { layer: KeyLayer.Global },
  );
  const live = useActiveTables();
  const hints = useMemo(() => hintText(footerTables(live)), [live]);

  const items = useMemo(
    () =>
      state.overlay === "search" && state.data
        ? searchItems(state.data.ws.attempts, state.mine?.clusters ?? [], state.data.candidates)
        : [],
    [state.overlay, state.data, state.mine],
  );
  const bodyHeight = Math.max(4, size.rows - 4);
  const counts = headerCounts(state, size.columns);
  if (size.columns < MIN_SIZE.columns || size.rows < MIN_SIZE.rows)
    return (
      <Box flexDirection="column" width={size.columns} height={size.rows} overflowY="hidden">
        {/* one phrase a line: Ink's wrap would start a wrapped line with the space it broke at */}
        <Text wrap="wrap">{`fire needs at least ${MIN_SIZE.columns}×${MIN_SIZE.rows};`}</Text>
        <Text wrap="wrap">{`this terminal is ${size.columns}×${size.rows}.`}</Text>
        <Text wrap="wrap">Enlarge it (q quits).</Text>
      </Box>
    );
  return (
    // Clipped vertically only: every row is already cut to the width (Text truncates), and a
    // horizontal clip makes Ink re-slice each written line on every frame (~⅓ of a frame).
    <Box flexDirection="column" width={size.columns} height={size.rows} overflowY="hidden">
      <Header screen={state.screen} counts={counts} width={size.columns} />
      <Box height={bodyHeight} flexDirection="column" overflowY="hidden">
        {reading !== undefined ? (
          <Pager
            title="message"
            text={reading}
            width={size.columns}
            height={bodyHeight}
            layer={KeyLayer.Overlay}
            onClose={() => setReading(undefined)}
          />
        ) : null}
        {state.overlay === "help" ? (
          <HelpOverlay
            width={size.columns}
            height={bodyHeight}
            onClose={() => actions.setOverlay(undefined)}
          />
        ) : null}
        {state.overlay === "search" ? (
          <SearchOverlay
            items={items}
            width={size.columns}
            height={bodyHeight}
            onClose={() => actions.setOverlay(undefined)}
            onOpen={(item) => {
              if (item.kind === "attempt") actions.openAttempt(item.ref);
              else if (item.kind === "task") actions.openTask(item.ref);
              else if (item.kind === "cluster") actions.openCluster(item.ref);
              else actions.openCandidate(item.ref);
            }}
          />
        ) : null}
        {/* The screen stays mounted under an overlay, so it keeps its place. */}
        <Box
          display={state.overlay || reading !== undefined ? "none" : "flex"}
          flexDirection="column"
        >
          <QuitContext.Provider value={onQuit}>
            <ScreenBody screen={state.screen} width={size.columns} height={bodyHeight} />
          </QuitContext.Provider>
        </Box>
      </Box>
      <StatusLine
        status={state.status}
        {...(state.job ? { job: state.job } : {})}
        {...(state.message ? { message: state.message } : {})}
        hints={hints}
        width={size.columns}
      />
    </Box>
  );
}

/**
 * The footer's tables: those of the most specific layer live now (an overlay, a text field,
 * the screen and its modes), then the global keys when they are reachable from there.
 */
export function footerTables(live: readonly ActiveTable[]): KeyTable[] {
  const top = live.find((t) => t.layer > KeyLayer.Global)?.layer;
  const own = live.filter((t) => t.layer === top).map((t) => t.table);
  if (top !== undefined && top >= KeyLayer.Field) return own;
  // a global command whose every key the screen takes over (the editor's unsaved guard on
  // 1–7 and Tab) is not reachable from here: its hint would say what the keys do not do
  const claimed = new Set(own.flatMap((t) => t.commands.flatMap((c) => c.keys)));
  const global = live
    .filter((t) => t.layer === KeyLayer.Global)
    .map((t) => ({
      ...t.table,
      commands: t.table.commands.filter((c) => !c.keys.every((k) => claimed.has(k))),
    }));
  return [...own, ...global];
}

function headerCounts(state: ReturnType<typeof useAppState>, width: number): string {
  const d = state.data;
  // until the workspace is read, the glance's counts (triage as last computed), else none
  if (!d)
    return state.glance
      ? countsText(state.glance, undefined, undefined, width)
      : `workspace ${state.dir}`;
  return countsText(
    { attempts: d.ws.attempts.length, excluded: d.triage.exclusions.length, tasks: d.triage.tasks },
    // unknown until the mining state is read: "…", never a 0 that is not so
    state.mineRead ? (state.mine?.clusters.length ?? 0) : undefined,
    d.candidatesPending ? undefined : d.candidates.length,
    width,
  );
}
