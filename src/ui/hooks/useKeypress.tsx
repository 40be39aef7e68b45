import { type Key, useInput } from "ink";
import {
  createContext,
  type ReactNode,
  useContext,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { splitBurst } from "../keys/burst.js";
import type { KeyTable } from "../keys/table.js";

/** A key handler; returning true consumes the key (lower layers do not see it; any other value does not). */
export type KeyHandler = (input: string, key: Key) => unknown;

/** Layers, highest first: overlays see keys before a text field, screens, then global keys. */
export const KeyLayer = {
  Global: 0,
  Screen: 10,
  Field: 50,
  Overlay: 100,
} as const;
export type KeyLayer = (typeof KeyLayer)[keyof typeof KeyLayer];

/** A key table that is live now, with the layer it listens on. */
export interface ActiveTable {
  layer: number;
  table: KeyTable;
}

interface Entry {
  id: number;
  layer: number;
  handler: { current: KeyHandler };
  active: { current: boolean };
  table: { current: KeyTable | undefined };
}

interface Registry {
  add(e: Entry): () => void;
  /** Recomputes the live tables (after a handler's table or activity changed). */
  refresh(): void;
  /**
   * Holds keys back (queued, in order) until the returned release is called: for a screen
   * whose code is still loading, so keys typed after switching to it reach it.
   */
  hold(): () => void;
  dispatch(input: string, key: Key): void;
  /** Puts a key back at the head of the queue (handled again after what holds keys). */
  requeue(input: string, key: Key): void;
  /** Handles the next queued key (if nothing holds them). */
  drain(): void;
  /** Handles the queued keys (if nothing holds them) one a commit, from the next commit on. */
  schedule(): void;
  onCommand?: (scope: string, id: string) => void;
}

const KeypressContext = createContext<Registry | undefined>(undefined);
const TablesContext = createContext<readonly ActiveTable[]>([]);

/** A key as Ink's useInput hands it over. */
export type TypedKey = readonly [string, Key];

export interface KeypressProviderProps {
  children: ReactNode;
  /** Keys typed before the provider was mounted (Boot kept them): handled first, in order. */
  typed?: readonly TypedKey[];
  /** Told every command a key table runs (tests and benchmarks watch dispatch with it). */
  onCommand?: (scope: string, id: string) => void;
}

const order = (a: Entry, b: Entry) => b.layer - a.layer || b.id - a.id;

/**
 * The one place keyboard input enters the app (one `useInput`). Handlers register by layer;
 * each key goes to the active handlers from the highest layer down (newest first within a
 * layer) until one consumes it. Keys that arrive before the last key's updates were
 * committed (several in one write, `jjj`, or typed ahead of the frame) queue and are handled
 * one a commit, so each sees the frame the key before it rendered: Enter then `4` closes
 * the text field first, and `4` switches screens. The provider also knows which key tables
 * are live, so help and hints follow them.
 */
export function KeypressProvider({ children, onCommand, typed }: KeypressProviderProps): ReactNode {
  const entries = useRef<Entry[]>([]);
  const [tables, setTables] = useState<readonly ActiveTable[]>([]);
  // keys typed before the workbench was up queue first, drained from the first commit on
  const held = useRef({
    count: 0,
    keys: (typed ?? []).flatMap(([i, k]) => splitBurst(i, k)) as [string, Key][],
    scheduled: (typed?.length ?? 0) > 0,
  });
  // Bumped after each key: its commit (which holds every update the key's handler made, in
  // the same batch) lets the next queued key go, so a key never reaches the handlers of the
  // frame before the last key's (React renders an update in a scheduler task, not at once).
  const [commits, setCommits] = useState(held.current.scheduled ? 1 : 0);
  const registry = useMemo<Registry>(() => {
    const dispatch = (input: string, key: Key) => {
      for (const e of [...entries.current].sort(order)) {
        if (!e.active.current) continue;
        if (e.handler.current(input, key) === true) break;
      }
    };
    // queued keys go one a commit, so each key's renders (a screen switch, a field that
    // closed on Enter) come before the next; while a drain is scheduled, new keys queue
    // behind the ones before them
    const schedule = () => {
      const h = held.current;
      if (h.scheduled) return;
      h.scheduled = true;
      setCommits((n) => n + 1);
    };
    const drain = () => {
      const h = held.current;
      if (h.count > 0) return;
      const next = h.keys.shift();
      if (!next) return;
      dispatch(...next);
      schedule();
    };
    const refresh = () => {
      const live = entries.current
        .filter((e) => e.active.current && e.table.current)
        .sort(order)
        .map((e) => ({ layer: e.layer, table: e.table.current! }));
      setTables((prev) =>
        prev.length === live.length &&
        prev.every((p, i) => p.table === live[i]!.table && p.layer === live[i]!.layer)
          ? prev
          : live,
      );
    };
    return {
      add(e) {
        entries.current = [...entries.current, e];
        refresh();
        return () => {
          entries.current = entries.current.filter((x) => x.id !== e.id);
          refresh();
        };
      },
      refresh,
      hold() {
        held.current.count++;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          held.current.count--;
          // after the commit that released it: the screen's handlers register in it
          schedule();
        };
      },
      dispatch,
      requeue(input, key) {
        held.current.keys.unshift([input, key]);
      },
      drain,
      schedule,
      ...(onCommand ? { onCommand } : {}),
    };
  }, [onCommand]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each scheduled commit
  useLayoutEffect(() => {
    const h = held.current;
    if (!h.scheduled) return;
    // the next task, after this commit's output: a key's handler sees the frame it follows
    setImmediate(() => {
      h.scheduled = false;
      registry.drain();
    });
  }, [commits]);
  useInput((input, key) => {
    const h = held.current;
    for (const [i, k] of splitBurst(input, key)) {
      if (h.count > 0 || h.keys.length || h.scheduled) h.keys.push([i, k]);
      else {
        // Ink hands every key of one write over in one batch, with no render between them:
        // a screen this key switches to would not be shown (nor hold keys) before the next
        // key. So the rest of the write queues, drained one key a task after this one.
        registry.dispatch(i, k);
        registry.schedule();
      }
    }
  });
  return (
    <KeypressContext.Provider value={registry}>
      <TablesContext.Provider value={tables}>{children}</TablesContext.Provider>
    </KeypressContext.Provider>
  );
}

let nextId = 1;

export interface UseKeypressOptions {
  layer?: KeyLayer;
  isActive?: boolean;
  /** The table this handler implements (for help and hints). */
  table?: KeyTable;
}

function useRegistry(): Registry {
  const registry = useContext(KeypressContext);
  if (!registry) throw new Error("useKeypress needs a KeypressProvider");
  return registry;
}

/** Subscribes a handler to the keypress provider (the latest handler closure is used). */
export function useKeypress(handler: KeyHandler, opts: UseKeypressOptions = {}): void {
  const registry = useRegistry();
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  const isActive = opts.isActive ?? true;
  const active = useRef(isActive);
  active.current = isActive;
  const table = useRef(opts.table);
  table.current = opts.table;
  const layer = opts.layer ?? KeyLayer.Screen;
  // Registered during commit, so a key typed right after a frame appears already reaches it.
  useLayoutEffect(() => {
    const id = nextId++;
    return registry.add({ id, layer, handler: handlerRef, active, table });
  }, [registry, layer]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refresh when table or activity change
  useLayoutEffect(() => registry.refresh(), [registry, isActive, opts.table]);
}

/** Holds keys back while `holding` (see Registry.hold); they are handled in order after. */
export function useHoldKeys(holding: boolean): void {
  const registry = useRegistry();
  useLayoutEffect(() => (holding ? registry.hold() : undefined), [registry, holding]);
}

/**
 * A handler for keys that need something not ready yet (the workspace, while the first
 * frame shows triage as last computed): the key goes back to the head of the queue and
 * every key waits, in order, until `ready`; then it is handled as if typed then.
 */
export function useWaitForReady(ready: boolean): KeyHandler {
  const registry = useRegistry();
  const [waiting, setWaiting] = useState(false);
  useLayoutEffect(
    () => (waiting && !ready ? registry.hold() : undefined),
    [registry, waiting, ready],
  );
  useLayoutEffect(() => {
    if (ready) setWaiting(false);
  }, [ready]);
  return (input, key) => {
    registry.requeue(input, key);
    setWaiting(true);
    return true;
  };
}

/** The live key tables, highest layer (and newest) first. */
export function useActiveTables(): readonly ActiveTable[] {
  return useContext(TablesContext);
}

/** The command reporter of the provider (undefined outside tests and benchmarks). */
export function useCommandReporter(): ((scope: string, id: string) => void) | undefined {
  return useRegistry().onCommand;
}

/** Up/down movement from arrows, j/k, PageUp/PageDown, g/G; undefined for other keys. */
export function moveBy(
  input: string,
  key: Key,
  page: number,
): number | "start" | "end" | undefined {
  if (key.upArrow || input === "k") return -1;
  if (key.downArrow || input === "j") return 1;
  if (key.pageUp) return -page;
  if (key.pageDown) return page;
  if (input === "g" || key.home) return "start";
  if (input === "G" || key.end) return "end";
  return undefined;
}
