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
import { reloadCandidateFiles, reloadTriage } from "../data/workspace.js";

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
  const reloadCandidates = () => {
    if (data) actions.setData(reloadCandidateFiles(data));
  };
  return {
    reloadCandidates,
    async mine(labeler) {
      if (!data) return;
      const r = await actions.run(
        labeler === "llm" ? "labelling (LLM)" : "labelling (heuristic)",
        async (signal, progress) =>
          (await mining()).mineWorkspace(
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
          ),
        (m) =>
          `${m.labels.length} labels (${outcomeCounts(labelOutcome(m))}), ${m.clusters.length} clusters`,
      );
      if (!r) return;
      actions.setMine(r);
      // The same counts as `fire mine`; a run that labelled nothing is an error, a partial one a warning.
      const outcome = labelOutcome(r);
      const endpoint = (r.report as { endpoint?: string } | undefined)?.endpoint;
      const problem = outcomeProblem(outcome, endpoint);
      if (problem)
        actions.notify(
          outcome.nothingLabelled ? "error" : "warn",
          `${r.labels.length} labels (${outcomeCounts(outcome)}): ${problem}`,
        );
      actions.setData(await reloadTriage(data));
    },
    async mark(attemptId, change, what) {
      if (!data) return;
      const r = await actions.run(
        what,
        () => markAttempt(data.ws.dir, attemptId, change),
        () => `${what}: recorded in mining/outcomes.json`,
      );
      if (r) actions.setData(await reloadTriage(data));
    },
    async undo() {
      if (!data) return;
      const r = await actions.run(
        "undo",
        async () => (await mining()).undoDecision(data.ws),
        (u) => (u.undone ? `undid: ${describeDecision(u.undone)}` : "no cluster decision to undo"),
      );
      if (!r) return;
      actions.setMine(r.mine);
      actions.setData(await reloadTriage(data));
    },
    async decide(d, what) {
      if (!data) return;
      const r = await actions.run(
        what,
        async () => (await mining()).decide(data.ws, d),
        () => `${what}: recorded in mining/decisions.json`,
      );
      if (r) actions.setMine(r);
      // an exclude decision changes which failures are in scope: triage reads it again
      actions.setData(await reloadTriage(data));
    },
    async draft(cluster) {
      if (!data) return undefined;
      const file = await actions.run(
        `drafting from ${cluster.id}`,
        async () => (await lifecycle()).draftFile(data, cluster),
        (f) => `drafted ${relative(data.ws.dir, f)} (status draft)`,
      );
      if (file) actions.setData(reloadCandidateFiles(data));
      return file;
    },
  };
}
