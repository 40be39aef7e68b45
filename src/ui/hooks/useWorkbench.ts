import { relative } from "node:path";
import {
  describeDecision,
  labelOutcome,
  outcomeCounts,
  outcomeProblem,
} from "../../core/app/present.js";
import type { HandChange } from "../../core/app/workspace.js";
import { markAttempt } from "../../core/app/workspace.js";
import type { Cluster } from "../../core/mine/cluster.js";
import type { Decision } from "../../core/mine/decisions.js";
import type { LabelerName } from "../../core/mine/mine.js";
import { useAppActions, useAppState } from "../contexts/AppContext.js";
import {
  readCandidateFiles,
  reloadTriage,
  withCandidates,
  withMiningOf,
} from "../data/workspace.js";

// Labelling, clustering and drafting load their modules when first asked for: the first
// screen needs none of them, and they are most of the workbench's code.
const mining = () => import("../data/mining.js");
const lifecycle = () => import("../../core/app/lifecycle.js");

/** Workspace-level actions shared by screens: each runs as a cancellable job. */
export interface Workbench {
  mine(labeler: LabelerName): Promise<void>;
  decide(d: Decision, what: string): Promise<void>;
  /** Undoes the newest cluster decision. */
  undo(): Promise<void>;
  reloadCandidates(): void;
  draft(cluster: Cluster): Promise<string | undefined>;
  /** Gives an attempt without a verifier outcome an outcome and/or tags by hand. */
  mark(attemptId: string, change: HandChange, what: string): Promise<void>;
}

export function useWorkbench(): Workbench {
  const state = useAppState();
  const actions = useAppActions();
  const data = state.data;
  // Every result goes into the data current when its work ends (`withMiningOf`,
  // `withCandidates`), in the same update as the job's end: a job started on older data
  // never takes the screen back to it, and no frame shows half of what a job changed.
  const reloadCandidates = () => {
    if (!data) return;
    const files = readCandidateFiles(data.ws.dir);
    actions.updateData((d) => withCandidates(d, files));
  };
  return {
    reloadCandidates,
    async mine(labeler) {
      if (!data) return;
      const r = await actions.run(
        labeler === "llm" ? "labelling (LLM)" : "labelling (heuristic)",
        async (signal, progress) => {
          const mined = await (await mining()).mineWorkspace(
            data.ws,
            labeler,
            (p) =>
              progress({
                done: p.done,
                total: p.total,
                ...(p.costUsd !== undefined ? { costUsd: p.costUsd } : {}),
                ...(p.cacheHits !== undefined ? { cacheHits: p.cacheHits } : {}),
              }),
            signal,
          );
          // the new labels change triage (a capability gap is excluded): read with the run,
          // so the clusters and the counts they change are shown in one frame
          return { mined, next: await reloadTriage(data) };
        },
        ({ mined: m }) =>
          `${m.labels.length} labels (${outcomeCounts(labelOutcome(m))}), ${m.clusters.length} clusters`,
        ({ mined, next }, s) => ({ mine: mined, mineRead: true, data: withMiningOf(s.data, next) }),
      );
      if (!r) return;
      // The same counts as `fire mine`; a run that labelled nothing is an error, a partial one a warning.
      const outcome = labelOutcome(r.mined);
      const endpoint = (r.mined.report as { endpoint?: string } | undefined)?.endpoint;
      const problem = outcomeProblem(outcome, endpoint);
      if (problem)
        actions.notify(
          outcome.nothingLabelled ? "error" : "warn",
          `${r.mined.labels.length} labels (${outcomeCounts(outcome)}): ${problem}`,
        );
    },
    async mark(attemptId, change, what) {
      if (!data) return;
      await actions.run(
        what,
        async () => {
          await markAttempt(data.ws.dir, attemptId, change);
          return reloadTriage(data);
        },
        () => `${what}: recorded in mining/outcomes.json`,
        (next, s) => ({ data: withMiningOf(s.data, next) }),
      );
    },
    async undo() {
      if (!data) return;
      await actions.run(
        "undo",
        async () => (await mining()).undoDecision(data),
        (u) => (u.undone ? `undid: ${describeDecision(u.undone)}` : "no cluster decision to undo"),
        (u, s) => ({ mine: u.mine, mineRead: true, data: withMiningOf(s.data, u.data) }),
      );
    },
    async decide(d, what) {
      if (!data) return;
      await actions.run(
        what,
        async () => (await mining()).decide(data, d),
        () => `${what}: recorded in mining/decisions.json`,
        (r, s) => ({ mine: r.mine, mineRead: true, data: withMiningOf(s.data, r.data) }),
      );
    },
    async draft(cluster) {
      if (!data) return undefined;
      const r = await actions.run(
        `drafting from ${cluster.id}`,
        async () => {
          const file = await (await lifecycle()).draftFile(data, cluster);
          return { file, files: readCandidateFiles(data.ws.dir) };
        },
        ({ file }) => `drafted ${relative(data.ws.dir, file)} (status draft)`,
        ({ files }, s) => (s.data ? { data: withCandidates(s.data, files) } : {}),
      );
      return r?.file;
    },
  };
}
