/**
 * A wall-clock budget for the pattern tests of one hook event. Patterns run in linear time
 * (regex.ts), but a large command times many patterns can still add up: past the budget the
 * next pattern test throws BudgetExceeded, and the hook fails open (or denies under
 * --fail-closed), logs it and writes no state. Replay runs without a budget.
 */
let deadline = Number.POSITIVE_INFINITY;

/** Milliseconds on a monotonic clock (the `performance` global would load perf_hooks). */
const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
let budget = 0;

export class BudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`pattern matching exceeded its ${budgetMs} ms budget`);
    this.name = "BudgetExceeded";
  }
}

/** Throws BudgetExceeded once the current budget is spent (free when there is none). */
export function checkBudget(): void {
  if (deadline !== Number.POSITIVE_INFINITY && nowMs() > deadline) throw new BudgetExceeded(budget);
}

/** Runs `fn` with every pattern test checking a deadline `ms` from now. */
export function withPatternBudget<T>(ms: number, fn: () => T): T {
  const saved = [deadline, budget] as const;
  deadline = nowMs() + ms;
  budget = ms;
  try {
    return fn();
  } finally {
    [deadline, budget] = saved;
  }
}
