import type { AskDraft } from "./core/draft/llm-drafter.js";
import type { Cluster } from "./core/mine/cluster.js";
import type { Label } from "./core/mine/label.js";
import type { ExternalLabeler } from "./core/mine/mine.js";
import type { Workspace } from "./core/workspace/load.js";
import type { LabelProgress } from "./llm/label.js";
import type { RunReport } from "./llm/report.js";
import type { SuggestOutcome } from "./llm/suggest.js";

/**
 * The LLM services a front end hands to core/app (`mine(s, { external })`,
 * `draft(s, c, { ask })`): built once per workspace from its `llm` config and cache, and
 * shared by the CLI and the workbench, so both label, draft and suggest the same way. src/llm
 * is loaded only when a service is first asked for, so the offline path never imports it.
 */
export interface Services {
  /** The LLM labeller for `mine`; `onProgress` gets cost and cache hits as well. */
  labeler(opts?: {
    batch?: boolean;
    onProgress?: (p: LabelProgress) => void;
  }): Promise<ExternalLabeler>;
  /** The LLM drafter's structured call. */
  drafter(): Promise<AskDraft>;
  /** LLM names and merges for the current clusters (`fire clusters --suggest`). */
  suggest(
    clusters: readonly Cluster[],
    labels: readonly Label[],
  ): Promise<{ outcome: SuggestOutcome; report: RunReport }>;
}

type Llm = typeof import("./llm/index.js");

async function loadLlm(): Promise<Llm> {
  try {
    return await import("./llm/index.js");
  } catch (err) {
    throw new Error(`the LLM services (src/llm) are not available: ${(err as Error).message}`);
  }
}

const built = new WeakMap<Workspace, Services>();

/** The services of a workspace, built once per loaded workspace. */
export function workspaceServices(ws: Workspace): Services {
  const known = built.get(ws);
  if (known) return known;
  const services: Services = {
    async labeler(opts = {}) {
      const llm = await loadLlm();
      return llm.workspaceLabeler(ws, {
        ...(opts.batch ? { batch: true } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      });
    },
    async drafter() {
      const llm = await loadLlm();
      const { Candidate } = await import("./core/policy/schema.js");
      const session = llm.createSession(ws.config.llm, { cacheDir: llm.llmCacheDir(ws) });
      return async (messages, validate) => {
        const r = await llm.structuredCall(
          { schema: Candidate, name: "fire_candidate_draft", version: "1", validate },
          messages,
          { session, id: "draft" },
        );
        return r.ok ? { ok: true, value: r.value } : { ok: false, reason: r.reason };
      };
    },
    async suggest(clusters, labels) {
      const llm = await loadLlm();
      return llm.suggestClusterChanges(clusters, labels, {
        config: ws.config.llm,
        cacheDir: llm.llmCacheDir(ws),
      });
    },
  };
  built.set(ws, services);
  return services;
}
