import { runScreen, runSettingsFor, runSummaryLine } from "../../core/app/index.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useSticky } from "./useSticky.js";

/** The workbench's screen run: which screen runs, its running trials, a tick per event. */
export interface LiveRun {
  /** The screen being run, if any. */
  active?: string;
  /** Plan cell ids started and not yet finished. */
  running: readonly string[];
  /** Bumps on every progress event and at the end (views re-read the schedule). */
  tick: number;
}

export interface ScreenRun extends LiveRun {
  /** Starts (or resumes) a run with the settings of its last run, else the config's. */
  start(name: string): void;
  /** Stops after the running trials end; finished ones stay stored. */
  cancel(): void;
}

/**
 * Runs a screen from the workbench through the same use case as `fire screen run`
 * (core/app runScreen), as the app's one long job: its progress is the status line's,
 * Esc or `x` cancels it, and switching screens leaves it running (state is sticky).
 */
export function useScreenRun(): ScreenRun {
  const { data } = useAppState();
  const actions = useAppActions();
  const [live, setLive] = useSticky<LiveRun>("runs.live", { running: [], tick: 0 });
  const start = (name: string) => {
    if (!data || live.active) return;
    void (async () => {
      const settings = await runSettingsFor(data.ws, name).catch((err: Error) => {
        actions.notify("error", err.message);
        return null;
      });
      if (settings === null) return;
      if (!settings) {
        actions.notify(
          "warn",
          `no run settings for ${name}: run \`fire screen run ${name} --command …\` once, or set screen.run in fire.config.json`,
        );
        return;
      }
      setLive((l) => ({ active: name, running: [], tick: l.tick + 1 }));
      await actions.run(
        `run ${name}`,
        (signal, progress) =>
          runScreen({
            workspace: data.ws.dir,
            name,
            settings,
            signal,
            rebuildHook: async () =>
              (await import("../../build/bundle-standalone.js")).bundleStandaloneHook(),
            onProgress: (p) => {
              setLive((l) => {
                const unit = p.unit;
                const running =
                  !unit || p.event === "skip" || p.event === "trials"
                    ? l.running
                    : p.event === "start"
                      ? [...l.running, unit]
                      : l.running.filter((u) => u !== unit);
                return { ...l, running, tick: l.tick + 1 };
              });
              progress({ done: p.done, total: p.total });
            },
          }),
        (s) => runSummaryLine(name, s),
      );
      setLive((l) => ({ running: [], tick: l.tick + 1 }));
    })();
  };
  return { ...live, start, cancel: () => (live.active ? actions.cancel() : undefined) };
}
