import { useEffect, useRef, useState } from "react";
import { type KeyHandler, moveBy } from "./useKeypress.js";

export interface ListCursor {
  index: number;
  /** The latest index, also between renders (keys can arrive faster than frames). */
  current(): number;
  setIndex: (i: number) => void;
  handle: KeyHandler;
}

/** A list cursor clamped to the list; `handle` moves it by arrows, j/k, pages, g/G. */
export function useListCursor(count: number, page: number, initial = 0): ListCursor {
  const [index, setState] = useState(initial);
  const ref = useRef(initial);
  const clamp = (i: number) => Math.max(0, Math.min(Math.max(0, count - 1), i));
  const setIndex = (i: number) => {
    ref.current = clamp(i);
    setState(ref.current);
  };
  useEffect(() => {
    if (ref.current >= count && count > 0) {
      ref.current = count - 1;
      setState(count - 1);
    }
  }, [count]);
  const handle: KeyHandler = (input, key) => {
    const m = moveBy(input, key, Math.max(1, page));
    if (m === undefined) return false;
    if (m === "start") setIndex(0);
    else if (m === "end") setIndex(count - 1);
    else setIndex(ref.current + m);
    return true;
  };
  return { index: clamp(index), current: () => ref.current, setIndex, handle };
}
