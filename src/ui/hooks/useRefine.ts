import { relative } from "node:path";
import { useState } from "react";
import { acceptRefinement, type RefineResult, refine } from "../../core/app/index.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import { useWorkbench } from "./useWorkbench.js";

export interface RefineState {
  /** The search result on show (undefined: the view is closed). */
  open?: { file: string; result: RefineResult };
  /** Searches refinements of the candidate in `file` (progress and Esc-cancel by the app). */
  start: (file: string, key: string) => false | undefined;
  accept: (index: number) => void;
  close: () => void;
}

/**
 * The workbench side of `fire candidate refine` (Candidates and Screens `f`): runs the core/app
 * search as a job, keeps its result for the RefineView, and accepts a proposal as a revision.
 */
export function useRefine(onAccepted?: () => void): RefineState {
  const { data } = useAppState();
  const actions = useAppActions();
  const wb = useWorkbench();
  const [open, setOpen] = useState<{ file: string; result: RefineResult } | undefined>();
  return {
    ...(open ? { open } : {}),
    start: (file, key) => {
      if (!data) return false;
      void actions
        .run(
          `refine ${key}`,
          (signal, progress) =>
            refine(data, file, {
              signal,
              onProgress: (p) => progress({ done: p.tried, total: p.planned }),
            }),
          (r) => `refine ${key}: ${r.proposals.length} proposal(s) (${r.separation})`,
        )
        .then((r) => {
          if (r) setOpen({ file, result: r });
        });
      return undefined;
    },
    accept: (index) => {
      const p = open?.result.proposals[index];
      if (!data || !open || !p) return;
      void actions
        .run(
          `accept ${p.id}`,
          () => acceptRefinement(data, open.file, p),
          (rev) =>
            `${open.result.candidate} refined → ${relative(data.ws.dir, rev.file)} (screen it with r in Screens)`,
        )
        .then((rev) => {
          if (!rev) return;
          setOpen(undefined);
          wb.reloadCandidates();
          onAccepted?.();
        });
    },
    close: () => setOpen(undefined),
  };
}
