import { useCallback, useEffect, useState } from "react";
import { keepGlance } from "../../core/app/glance.js";
import { isIndexCurrent } from "../../core/app/workspace.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import {
  loadWorkspaceData,
  readPendingCandidates,
  type WorkspaceData,
  withCandidates,
} from "../data/workspace.js";

export interface WorkspaceLoad {
  /** Reads the workspace again (after Esc cancelled the first read). */
  retry(): void;
}

/**
 * Opens the workspace as a cancellable job (from its index when current), then, in the
 * background, checks the index against the sources and re-reads everything when they
 * changed, and loads the current clusters. The candidate files are read after the first
 * frame that shows the workspace.
 */
export function useWorkspaceLoad(): WorkspaceLoad {
  const state = useAppState();
  const actions = useAppActions();
  const [attempt, setAttempt] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` (the retry counter) re-runs the read
  useEffect(() => {
    const background = new AbortController();
    let job: AbortSignal | undefined;
    const read = (full: boolean) =>
      actions.run(
        full ? "sources changed: reading workspace" : "reading workspace",
        (signal, progress) => {
          job = signal;
          return loadWorkspaceData(state.dir, {
            signal,
            fromIndex: !full,
            deferCandidates: true,
            onIndex: () => progress({ done: 0 }),
            onProgress: (p) => progress({ done: p.done, ...(p.total ? { total: p.total } : {}) }),
          });
        },
        (d: WorkspaceData) =>
          `${d.ws.attempts.length} attempts, ${d.ws.errors.length} input errors`,
      );
    void (async () => {
      let data = await read(false);
      if (!data) {
        if (job?.aborted && !background.signal.aborted)
          actions.notify("warn", "reading workspace: cancelled · r reads it again");
        return;
      }
      actions.setData(data);
      if (data.ws.index) {
        const current = await isIndexCurrent(data.ws, background.signal).catch(() => true);
        if (!current && !background.signal.aborted) {
          const fresh = await read(true);
          if (fresh) {
            data = fresh;
            actions.setData(fresh);
          }
        }
      }
      if (background.signal.aborted) return;
      const mine = await import("../data/mining.js")
        .then((m) => m.currentClusters(data.ws))
        .catch(() => undefined);
      if (!background.signal.aborted) actions.setMine(mine);
    })();
    return () => background.abort();
  }, [actions, state.dir, attempt]);
  // The candidate files are read and compiled once the workspace is shown, a file per turn
  // of the event loop: the frame that shows it is written first, keys typed meanwhile wait
  // for one file, and the result goes into whatever data is current by then.
  const pending = !!state.data?.candidatesPending;
  useEffect(() => {
    if (!pending) return;
    const ac = new AbortController();
    readPendingCandidates({ ws: { dir: state.dir } }, ac.signal).then(
      (cands) => {
        if (!ac.signal.aborted)
          actions.updateData((d) => (d.candidatesPending ? withCandidates(d, cands) : d));
      },
      (err: unknown) => {
        if (ac.signal.aborted) return;
        // not pending for ever (screens of candidates hold keys while it is): none are shown
        actions.updateData((d) =>
          d.candidatesPending ? withCandidates(d, { entries: [], errors: [] }) : d,
        );
        actions.notify("error", `reading the candidate files: ${(err as Error).message}`);
      },
    );
    return () => ac.abort();
  }, [actions, pending, state.dir]);
  // Triage as shown is kept for the next first frame (core/app/glance.ts), under the key its
  // inputs were read with, while that is still the key.
  const ws = state.data?.ws;
  const key = state.data?.triageKey;
  const triage = state.data?.triage;
  useEffect(() => {
    if (ws && triage) keepGlance(ws, key, triage);
  }, [ws, key, triage]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { retry };
}
