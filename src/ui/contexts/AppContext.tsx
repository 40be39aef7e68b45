import { createContext, type ReactNode, useContext, useMemo, useRef, useState } from "react";
import type { TriageGlance } from "../../core/app/glance.js";
import type { MineResult } from "../../core/mine/mine.js";
import type { WorkspaceData } from "../data/workspace.js";
import { Status } from "../status.js";
import { errorLine, isAbort } from "./errors.js";
import type { ScreenId } from "./screens.js";

export interface Message {
  level: "info" | "warn" | "error";
  text: string;
}

/** Progress of the running job (labelling, replay, loading). */
export interface JobProgress {
  label: string;
  done: number;
  total?: number;
  costUsd?: number;
  cacheHits?: number;
}

export type Overlay = "help" | "search" | undefined;

/** A named set of attempts to list (evidence, preview counts, routing cells, funnel rows). */
export interface AttemptSet {
  title: string;
  ids: readonly string[];
}

/** Where the user is: what Esc returns to. */
export interface Location {
  screen: ScreenId;
  attemptId?: string;
  taskId?: string;
  /** Which openTask put taskId here (a new one per call): Triage follows each jump once. */
  taskJump?: number;
  clusterId?: string;
  candidateFile?: string;
  /** Two attempts side by side (Attempt screen). */
  compare?: readonly [string, string];
  /** An attempt list opened from a count or row (Triage screen). */
  attemptSet?: AttemptSet;
}

const LOCATION_KEYS = [
  "screen",
  "attemptId",
  "taskId",
  "taskJump",
  "clusterId",
  "candidateFile",
  "compare",
  "attemptSet",
] as const;

const locationOf = (s: AppState): Location => {
  const l: Location = { screen: s.screen };
  for (const k of LOCATION_KEYS) if (s[k] !== undefined) Object.assign(l, { [k]: s[k] });
  return l;
};

/** At most this many places are remembered for Esc. */
const HISTORY = 50;

/** The app state: the current place (a Location) and what the workbench holds. */
export interface AppState extends Location {
  dir: string;
  status: Status;
  message?: Message;
  job?: JobProgress;
  data?: WorkspaceData;
  /**
   * Triage's counts and task rows as last computed (core/app/glance.ts), shown until `data`
   * is read: the first frame, drawn before the index is read.
   */
  glance?: TriageGlance;
  /** Current clusters (the last mining run's labels with the user's decisions). */
  mine?: MineResult;
  /** Whether `mine` was read (until then the clusters are unknown, not none). */
  mineRead?: boolean;
  overlay: Overlay;
  /** Places left, newest last (Esc pops). */
  history: Location[];
}

export type Work<T> = (
  signal: AbortSignal,
  progress: (p: Omit<JobProgress, "label">) => void,
) => Promise<T>;

export interface AppActions {
  go(screen: ScreenId): void;
  openAttempt(id: string): void;
  openTask(id: string): void;
  openCluster(id: string): void;
  openCandidate(file: string): void;
  /** Two attempts side by side. */
  openCompare(a: string, b: string): void;
  /** A list of attempts named by a count or row. */
  openAttempts(set: AttemptSet): void;
  /** Back to where the user came from (nothing when there is nowhere to go). */
  back(): void;
  setOverlay(o: Overlay): void;
  notify(level: Message["level"], text: string): void;
  setData(d: WorkspaceData): void;
  /** Changes the current data (nothing when none is loaded): for work that ends later. */
  updateData(f: (d: WorkspaceData) => WorkspaceData): void;
  setMine(m: MineResult | undefined): void;
  /**
   * Runs long work with progress; Esc cancels; errors become the message line. `apply` puts
   * the result into the state in the same update as the job's end: no frame shows the
   * message of a job whose result is not shown, nor a result half applied.
   */
  run<T>(
    label: string,
    work: Work<T>,
    done?: (r: T) => string | undefined,
    apply?: (r: T, s: AppState) => Partial<AppState>,
  ): Promise<T | undefined>;
  cancel(): void;
}

const StateContext = createContext<AppState | undefined>(undefined);
const ActionsContext = createContext<AppActions | undefined>(undefined);

export interface AppProviderProps {
  dir: string;
  initial?: Partial<AppState>;
  children: ReactNode;
}

/** Holds the app state; actions are stable so screens can depend on them freely. */
export function AppProvider({ dir, initial, children }: AppProviderProps): ReactNode {
  const [state, setState] = useState<AppState>({
    dir,
    status: Status.Idle,
    screen: "triage",
    overlay: undefined,
    history: [],
    ...initial,
  });
  const controller = useRef<AbortController | undefined>(undefined);
  const jumps = useRef(0);
  const actions = useMemo<AppActions>(() => {
    const patch = (p: Partial<AppState>) => setState((s) => ({ ...s, ...p }));
    // Moves to a new place, remembering the current one for Esc.
    const visit = (p: Partial<Location> & { screen: ScreenId }) =>
      setState((s) => {
        const here = locationOf(s);
        const next = { ...s, ...p, overlay: undefined };
        if (LOCATION_KEYS.every((k) => here[k] === locationOf(next)[k])) return next;
        return { ...next, history: [...s.history, here].slice(-HISTORY) };
      });
    return {
      go: (screen) => visit({ screen }),
      openAttempt: (attemptId) => visit({ attemptId, screen: "attempt", compare: undefined }),
      openTask: (taskId) =>
        visit({ taskId, taskJump: ++jumps.current, screen: "triage", attemptSet: undefined }),
      openCluster: (clusterId) => visit({ clusterId, screen: "mechanisms" }),
      openCandidate: (candidateFile) => visit({ candidateFile, screen: "candidates" }),
      openCompare: (a, b) => visit({ screen: "attempt", attemptId: a, compare: [a, b] }),
      openAttempts: (attemptSet) => visit({ screen: "triage", attemptSet }),
      back() {
        setState((s) => {
          const prev = s.history.at(-1);
          if (!prev) return s;
          const cleared = Object.fromEntries(LOCATION_KEYS.map((k) => [k, undefined]));
          return { ...s, ...cleared, ...prev, overlay: undefined, history: s.history.slice(0, -1) };
        });
      },
      setOverlay: (overlay) => patch({ overlay }),
      notify: (level, text) => patch({ message: { level, text } }),
      setData: (data) => patch({ data }),
      updateData: (f) => setState((s) => (s.data ? { ...s, data: f(s.data) } : s)),
      setMine: (mine) => patch({ mine, mineRead: true }),
      cancel: () => controller.current?.abort(),
      async run(label, work, done, apply) {
        controller.current?.abort();
        const ac = new AbortController();
        controller.current = ac;
        patch({ status: Status.Running, job: { label, done: 0 }, message: undefined });
        try {
          const r = await work(ac.signal, (p) => {
            if (!ac.signal.aborted) patch({ job: { label, ...p } });
          });
          ac.signal.throwIfAborted();
          const text = done?.(r);
          setState((s) => ({
            ...s,
            ...apply?.(r, s),
            status: Status.Done,
            job: undefined,
            ...(text ? { message: { level: "info", text } } : {}),
          }));
          return r;
        } catch (err) {
          if (isAbort(err, ac.signal)) {
            patch({
              status: Status.Cancelled,
              job: undefined,
              message: { level: "warn", text: `${label}: cancelled` },
            });
          } else {
            patch({
              status: Status.Error,
              job: undefined,
              message: {
                level: "error",
                text: `${label}: ${errorLine(err).replaceAll(`${dir}/`, "")}`,
              },
            });
          }
          return undefined;
        } finally {
          if (controller.current === ac) controller.current = undefined;
        }
      },
    };
  }, [dir]);
  return (
    <ActionsContext.Provider value={actions}>
      <StateContext.Provider value={state}>{children}</StateContext.Provider>
    </ActionsContext.Provider>
  );
}

export function useAppState(): AppState {
  const s = useContext(StateContext);
  if (!s) throw new Error("useAppState needs an AppProvider");
  return s;
}

export function useAppActions(): AppActions {
  const a = useContext(ActionsContext);
  if (!a) throw new Error("useAppActions needs an AppProvider");
  return a;
}
