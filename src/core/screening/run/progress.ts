import type { RunProgress, RunSummary } from "./types.js";

/** Reports one unit's event, with the summary's running counts. */
export type ProgressReport = (event: RunProgress["event"], unit: string, message?: string) => void;

/**
 * A runner's fresh summary over `total` units and the reporter that tells `onProgress` about
 * each unit's event with the summary's counts at that moment (shared by every runner, so the
 * local and Harbor runs count progress the same way).
 */
export function startSummary(
  total: number,
  onProgress: ((p: RunProgress) => void) | undefined,
): { summary: RunSummary; progress: ProgressReport } {
  const summary: RunSummary = {
    total,
    done: 0,
    failed: 0,
    skipped: 0,
    aborted: false,
    errors: [],
  };
  const progress: ProgressReport = (event, unit, message) =>
    onProgress?.({
      done: summary.done + summary.failed,
      total: summary.total,
      skipped: summary.skipped,
      unit,
      event,
      ...(message ? { message } : {}),
    });
  return { summary, progress };
}
