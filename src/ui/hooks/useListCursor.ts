import { useEffect, useState } from "react";
import { type KeyHandler, moveBy } from "./useKeypress.js";

/** A list cursor clamped to the list; `handle` moves it by arrows, j/k, pages, g/G. */
export function useListCursor(
  count: number,
  page: number,
  initial = 0,
): { index: number; setIndex: (i: number) => void; handle: KeyHandler } {
  const [index, setIndex] = useState(initial);
  useEffect(() => {
    if (index >= count && count > 0) setIndex(count - 1);
  }, [count, index]);
  const handle: KeyHandler = (input, key) => {
    const m = moveBy(input, key, Math.max(1, page));
    if (m === undefined) return false;
    if (m === "start") setIndex(0);
    else if (m === "end") setIndex(Math.max(0, count - 1));
    else setIndex((i) => Math.max(0, Math.min(count - 1, i + m)));
    return true;
  };
  return { index: Math.min(index, Math.max(0, count - 1)), setIndex, handle };
}
