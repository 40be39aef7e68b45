import { useSticky } from "./useSticky.js";

export interface Marks {
  /** Marked keys, in the order they were marked. */
  list: readonly string[];
  has(key: string): boolean;
  toggle(key: string): void;
  clear(): void;
  /** The latest marks, also between renders (for handlers of a burst of keys). */
  current(): readonly string[];
}

/**
 * A set of marked rows of one list (Space marks, an action takes them all), kept across
 * screen switches like the list's cursor. Marks of rows that are gone are dropped by
 * `keep` (the keys still present).
 */
export function useMarks(stickyKey: string, keep?: ReadonlySet<string>): Marks {
  const [raw, setList, latest] = useSticky<readonly string[]>(stickyKey, []);
  const live = (l: readonly string[]) => (keep ? l.filter((k) => keep.has(k)) : l);
  const list = live(raw);
  return {
    list,
    has: (key) => list.includes(key),
    toggle: (key) =>
      setList((prev) => (prev.includes(key) ? prev.filter((k) => k !== key) : [...prev, key])),
    clear: () => setList([]),
    current: () => live(latest()),
  };
}
