import { passingSibling } from "../../core/app/attempt.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useSticky } from "./useSticky.js";

export interface CompareMark {
  /** The attempt marked for a compare, if any. */
  mark: string | undefined;
  toggle(id: string): void;
  /** Opens `id` side by side with the marked attempt, else with a passing sibling. */
  compare(id: string): void;
}

/** One mark shared by every attempt list and the Attempt screen (kept across screens). */
export function useCompareMark(): CompareMark {
  const { data } = useAppState();
  const actions = useAppActions();
  const [mark, setMark, latest] = useSticky<string | undefined>("compare.mark", undefined);
  return {
    mark,
    toggle(id) {
      const next = latest() === id ? undefined : id;
      setMark(next);
      actions.notify(
        "info",
        next ? `marked ${id}: c on another attempt compares the two` : `unmarked ${id}`,
      );
    },
    compare(id) {
      const attempt = data?.byId.get(id);
      if (!data || !attempt) return;
      const marked = latest();
      const other =
        marked && marked !== id ? data.byId.get(marked) : passingSibling(attempt, data.ws.attempts);
      if (!other) {
        actions.notify("warn", `no passing sibling of ${id}: mark another attempt first`);
        return;
      }
      setMark(undefined);
      // the failing side on the left when one side passed
      const [l, r] =
        other.outcome === "pass" || marked === other.id ? [attempt, other] : [other, attempt];
      actions.openCompare(l.id, r.id);
    },
  };
}
