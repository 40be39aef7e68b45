import { useEffect } from "react";
import { type KeyHandler, moveBy } from "./useKeypress.js";
import { useSticky } from "./useSticky.js";

export interface ListCursor {
  index: number;
  /** The latest index, also between renders (keys can arrive faster than frames). */
  current(): number;
  setIndex: (i: number) => void;
  handle: KeyHandler;
}

/**
 * A list cursor clamped to the list; `handle` moves it by arrows, j/k, pages, g/G. With a
 * `stickyKey` the cursor survives the screen being switched away and back.
 */
export function useListCursor(count: number, page: number, stickyKey?: string): ListCursor {
  const [index, setState, latest] = useSticky(stickyKey, 0);
  const clamp = (i: number) => Math.max(0, Math.min(Math.max(0, count - 1), i));
  const setIndex = (i: number) => setState(clamp(i));
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-clamp when the list shrinks
  useEffect(() => {
    if (latest() >= count && count > 0) setState(count - 1);
  }, [count]);
  const handle: KeyHandler = (input, key) => {
    const m = moveBy(input, key, Math.max(1, page));
    if (m === undefined) return false;
    if (m === "start") setIndex(0);
    else if (m === "end") setIndex(count - 1);
    else setIndex(clamp(latest()) + m);
    return true;
  };
  return { index: clamp(index), current: () => clamp(latest()), setIndex, handle };
}
