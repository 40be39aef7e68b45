import type { Cluster } from "../core/mine/cluster.js";
import type { Label } from "../core/mine/label.js";
import {
  ClusterSuggestions,
  checkSuggestions,
  SUGGEST_SCHEMA_VERSION,
  suggestMessages,
} from "../core/mine/suggest.js";
import { createSession, type RetryEvent } from "./client.js";
import type { LlmConfig, LlmConfigInput } from "./config.js";
import type { RunReport } from "./report.js";
import { type StructuredSpec, structuredCall } from "./structured.js";

export interface SuggestOptions {
  config: LlmConfig | LlmConfigInput;
  cacheDir: string;
  apiKey?: string;
  baseURL?: string;
  signal?: AbortSignal;
  onRetry?: (e: RetryEvent) => void;
}

export type SuggestOutcome =
  | { ok: true; suggestions: ClusterSuggestions; cached: boolean }
  | { ok: false; reason: string };

/** The structured-output spec: the suggestion schema plus "every cluster id is real". */
export function suggestSpec(clusters: readonly Cluster[]): StructuredSpec<ClusterSuggestions> {
  return {
    schema: ClusterSuggestions,
    name: "fire_cluster_suggestions",
    version: SUGGEST_SCHEMA_VERSION,
    validate: (v) => checkSuggestions(v, clusters),
  };
}

/**
 * Ask the model to name clusters and suggest merges. One structured call (redacted,
 * cached by model + prompt hash + schema version, one repair round for a bad answer).
 * Returns advice only; it never writes a decision. No clusters → no request.
 * Throws LlmUnavailableError when there is neither a key nor a base URL.
 */
export async function suggestClusterChanges(
  clusters: readonly Cluster[],
  labels: readonly Label[],
  opts: SuggestOptions,
): Promise<{ outcome: SuggestOutcome; report: RunReport }> {
  const session = createSession(opts.config, {
    cacheDir: opts.cacheDir,
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
    ...(opts.baseURL !== undefined ? { baseURL: opts.baseURL } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
  });
  if (clusters.length === 0)
    return {
      outcome: { ok: true, suggestions: { names: [], merges: [] }, cached: false },
      report: session.report,
    };
  const byId = new Map(labels.map((l) => [l.attemptId, l]));
  const r = await structuredCall(suggestSpec(clusters), suggestMessages(clusters, byId), {
    id: "cluster-suggestions",
    session,
  });
  if (!r.ok) {
    session.report.failures.push({ id: "cluster-suggestions", reason: r.reason });
    return { outcome: { ok: false, reason: r.reason }, report: session.report };
  }
  return {
    outcome: { ok: true, suggestions: r.value, cached: r.cached },
    report: session.report,
  };
}
