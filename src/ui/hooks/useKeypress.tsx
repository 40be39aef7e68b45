import { type Key, useInput } from "ink";
import { createContext, type ReactNode, useContext, useLayoutEffect, useMemo, useRef } from "react";

/** A key handler; returning true consumes the key (lower layers do not see it). */
export type KeyHandler = (input: string, key: Key) => boolean | undefined | void;

/** Layers, highest first: overlays see keys before a text field, screens, then global keys. */
export const KeyLayer = {
  Global: 0,
  Screen: 10,
  Field: 50,
  Overlay: 100,
} as const;
export type KeyLayer = (typeof KeyLayer)[keyof typeof KeyLayer];

interface Entry {
  id: number;
  layer: number;
  handler: { current: KeyHandler };
  active: { current: boolean };
}

interface Registry {
  add(e: Entry): () => void;
}

const KeypressContext = createContext<Registry | undefined>(undefined);

export interface KeypressProviderProps {
  children: ReactNode;
}

/**
 * The one place keyboard input enters the app (one `useInput`). Handlers register by layer;
 * each key goes to the active handlers from the highest layer down (newest first within a
 * layer) until one consumes it.
 */
export function KeypressProvider({ children }: KeypressProviderProps): ReactNode {
  const entries = useRef<Entry[]>([]);
  const registry = useMemo<Registry>(
    () => ({
      add(e) {
        entries.current = [...entries.current, e];
        return () => {
          entries.current = entries.current.filter((x) => x.id !== e.id);
        };
      },
    }),
    [],
  );
  useInput((input, key) => {
    const ordered = [...entries.current].sort((a, b) => b.layer - a.layer || b.id - a.id);
    for (const e of ordered) {
      if (!e.active.current) continue;
      if (e.handler.current(input, key) === true) return;
    }
  });
  return <KeypressContext.Provider value={registry}>{children}</KeypressContext.Provider>;
}

let nextId = 1;

export interface UseKeypressOptions {
  layer?: KeyLayer;
  isActive?: boolean;
}

/** Subscribes a handler to the keypress provider (the latest handler closure is used). */
export function useKeypress(handler: KeyHandler, opts: UseKeypressOptions = {}): void {
  const registry = useContext(KeypressContext);
  if (!registry) throw new Error("useKeypress needs a KeypressProvider");
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  const active = useRef(opts.isActive ?? true);
  active.current = opts.isActive ?? true;
  const layer = opts.layer ?? KeyLayer.Screen;
  // Registered during commit, so a key typed right after a frame appears already reaches it.
  useLayoutEffect(() => {
    const id = nextId++;
    return registry.add({ id, layer, handler: handlerRef, active });
  }, [registry, layer]);
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
  if (key.pageDown || input === " ") return page;
  if (input === "g") return "start";
  if (input === "G") return "end";
  return undefined;
}
