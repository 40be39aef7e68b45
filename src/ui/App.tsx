import { Box } from "ink";
import { type ReactNode, useEffect, useMemo } from "react";
import { Header } from "./components/Header.js";
import { HelpOverlay } from "./components/HelpOverlay.js";
import { SearchOverlay } from "./components/SearchOverlay.js";
import { StatusLine } from "./components/StatusLine.js";
import { AppProvider, useAppActions, useAppState } from "./contexts/AppContext.js";
import { SCREENS } from "./contexts/screens.js";
import { ThemeContext } from "./contexts/ThemeContext.js";
import { searchItems } from "./data/search.js";
import { KeyLayer, KeypressProvider, useKeypress } from "./hooks/useKeypress.js";
import { type TerminalSize, useTerminalSize } from "./hooks/useTerminalSize.js";
import { useWorkspaceLoad } from "./hooks/useWorkspaceLoad.js";
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
}

/** The workbench: providers around the shell. */
export function App({ dir, size, theme, onQuit, onReady }: AppProps): ReactNode {
  return (
    <ThemeContext.Provider value={theme ?? themeFor()}>
      <KeypressProvider>
        <AppProvider dir={dir}>
          <Shell
            {...(size ? { size } : {})}
            {...(onQuit ? { onQuit } : {})}
            {...(onReady ? { onReady } : {})}
          />
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
  // Load the workspace (its index when current), then in the background the clusters.
  const load = useWorkspaceLoad();
  useEffect(() => {
    if (state.data) onReady?.();
  }, [state.data, onReady]);

  useKeypress(
    (input, key) => {
      if (key.escape && isBusy(state.status)) {
        actions.cancel();
        return true;
      }
      if (input === "?") actions.setOverlay("help");
      else if (input === "/") actions.setOverlay("search");
      else if (input === "q") onQuit?.();
      else if (input === "r" && !state.data && !isBusy(state.status)) load.retry();
      else if (key.tab) {
        const i = SCREENS.findIndex((s) => s.id === state.screen);
        const next = (i + (key.shift ? SCREENS.length - 1 : 1)) % SCREENS.length;
        actions.go(SCREENS[next]!.id);
      } else {
        const s = SCREENS.find((x) => x.key === input);
        if (!s) return false;
        actions.go(s.id);
      }
      return true;
    },
    { layer: KeyLayer.Global },
  );

  const items = useMemo(
    () =>
      state.overlay === "search" && state.data
        ? searchItems(state.data.ws.attempts, state.mine?.clusters ?? [], state.data.candidates)
        : [],
    [state.overlay, state.data, state.mine],
  );
  const bodyHeight = Math.max(4, size.rows - 4);
  const counts = headerCounts(state, size.columns);
  return (
    <Box flexDirection="column" width={size.columns} height={size.rows}>
      <Header screen={state.screen} counts={counts} width={size.columns} />
      <Box height={bodyHeight} flexDirection="column" overflow="hidden">
        {state.overlay === "help" ? (
          <HelpOverlay width={size.columns} onClose={() => actions.setOverlay(undefined)} />
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
        <Box display={state.overlay ? "none" : "flex"} flexDirection="column">
          <ScreenBody screen={state.screen} width={size.columns} height={bodyHeight} />
        </Box>
      </Box>
      <StatusLine
        status={state.status}
        {...(state.job ? { job: state.job } : {})}
        {...(state.message ? { message: state.message } : {})}
        hints="1-6/Tab screens · j/k move · Enter open · Esc back · / search · ? keys · q quit"
        width={size.columns}
      />
    </Box>
  );
}

function headerCounts(state: ReturnType<typeof useAppState>, width: number): string {
  const d = state.data;
  if (!d) return `workspace ${state.dir}`;
  const by = { reachable: 0, unsolved: 0, solved: 0, unscored: 0 };
  for (const t of d.triage.tasks) by[t.status]++;
  // Each count sits next to its unit: exclusions count attempts, statuses count tasks.
  const base =
    `${d.ws.attempts.length} attempts (${d.triage.exclusions.length} excluded) · ` +
    `${d.triage.tasks.length} tasks: ${by.reachable} reachable, ${by.unsolved} unsolved, ` +
    `${by.solved} solved`;
  const more = ` · ${state.mine?.clusters.length ?? 0} clusters · ${d.candidates.length} candidates`;
  return base.length + more.length <= width ? base + more : base;
}
