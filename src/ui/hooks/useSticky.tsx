import { createContext, type ReactNode, useCallback, useContext, useRef, useState } from "react";

const StickyContext = createContext<Map<string, unknown> | undefined>(undefined);

export interface StickyProviderProps {
  children: ReactNode;
}

/** Holds view state (cursors, filters, tabs) that outlives a screen's unmount. */
export function StickyProvider({ children }: StickyProviderProps): ReactNode {
  const store = useRef(new Map<string, unknown>());
  return <StickyContext.Provider value={store.current}>{children}</StickyContext.Provider>;
}

export type SetSticky<T> = (next: T | ((prev: T) => T)) => void;

/**
 * `useState` that keeps its value per `key` across unmounts (a screen switched away and back
 * finds its cursor and filters where it left them). `current()` is the latest value, also
 * between renders. Without a key (or outside a provider) it is plain state.
 */
export function useSticky<T>(key: string | undefined, initial: T): [T, SetSticky<T>, () => T] {
  const store = useContext(StickyContext);
  const [value, setValue] = useState<T>(() =>
    key !== undefined && store?.has(key) ? (store.get(key) as T) : initial,
  );
  const ref = useRef(value);
  const set = useCallback<SetSticky<T>>(
    (next) => {
      const v = typeof next === "function" ? (next as (prev: T) => T)(ref.current) : next;
      ref.current = v;
      if (key !== undefined) store?.set(key, v);
      setValue(v);
    },
    [key, store],
  );
  const current = useCallback(() => ref.current, []);
  return [value, set, current];
}
