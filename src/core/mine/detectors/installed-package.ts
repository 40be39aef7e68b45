import { EXISTING_CODE, EXISTING_CODE_ROLE } from "./existing-code.js";
import { LIBRARY } from "./graded-location.js";
import { allWrites, emptySearches, notFoundCalls } from "./paths.js";
import type { Detector } from "./types.js";

/** A task that is itself about installed packages (patch the installed library, a venv …). */
const ABOUT_INSTALLED =
  /\b(?:site-packages|dist-packages|node_modules|virtualenv|venv|installed\s+(?:package|library|module|version)|vendor(?:ed)?)\b/i;

/**
 * The agent's searches for the task's code missed, and every file it then changed lies inside
 * installed packages (`node_modules`, `site-packages`, a Go module cache): it edited a copy
 * some tool had installed — often the agent's own harness — instead of the task's code. Only
 * on a task about code already present that says nothing of installed packages; a run that
 * also changed a file anywhere else is not read so.
 */
export const installedPackageEdited: Detector = {
  id: "input.installed-package-edited",
  description:
    "the task's code never found; every change the agent made lies inside installed packages",
  mechanism: "task-input-missed",
  taskRole: EXISTING_CODE_ROLE,
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    if (!EXISTING_CODE.test(attempt.taskText) || ABOUT_INSTALLED.test(attempt.taskText)) return [];
    const writes = allWrites(attempt);
    if (writes.length === 0 || writes.some((w) => !LIBRARY.test(w.path))) return [];
    const first = writes[0]?.call.index ?? 0;
    const misses = [...notFoundCalls(attempt), ...emptySearches(attempt)].filter(
      (m) => m.index < first,
    );
    if (misses.length === 0) return [];
    const files = [...new Set(writes.map((w) => w.path))];
    return [
      {
        eventIndices: [
          ...misses.slice(-2).map((m) => m.index),
          ...writes.slice(-1).map((w) => w.call.index),
        ],
        reason: `${misses.length} search(es) for the task's code missed; all ${files.length} file(s) the agent changed lie inside installed packages (${files[0]?.slice(0, 100)})`,
        signature: "edited an installed package instead",
      },
    ];
  },
};
