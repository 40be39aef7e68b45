import { FAMILIES } from "../core/families.js";
import type { DetectorHit } from "../core/mine/detectors/types.js";
import type { Label, LabelAnswer as LabelAnswerT } from "../core/mine/label.js";
import { LabelAnswer } from "../core/mine/label.js";
import type { Attempt } from "../core/model/attempt.js";
import { labelInBatch } from "./batch.js";
import type { LlmConfig, LlmConfigInput } from "./config.js";
import { buildLabelPrompt } from "./prompt.js";
import type { RunReport } from "./report.js";
import { createSession, type LlmSession, type RetryEvent } from "./session.js";
import { type StructuredResult, type StructuredSpec, structuredCall } from "./structured.js";

export interface LabelProgress {
  done: number;
  total: number;
  cacheHits: number;
  costUsd: number;
}

export interface LabelOptions {
  evidence: Map<string, DetectorHit[]>;
  config: LlmConfig | LlmConfigInput;
  cacheDir: string;
  onProgress?: (p: LabelProgress) => void;
  signal?: AbortSignal;
  batch?: boolean;
  apiKey?: string;
  baseURL?: string;
  onRetry?: (e: RetryEvent) => void;
}

/** Bump when the prompt or LabelAnswer meaning changes: old cache entries stop matching. */
export const LABEL_SCHEMA_VERSION = "label-answer@1";

/** The label spec for one attempt: LabelAnswer plus "every cited event exists". */
export function labelSpec(attempt: Attempt): StructuredSpec<LabelAnswerT> {
  const indices = new Set(attempt.events.map((e) => e.index));
  const last = attempt.events.length ? Math.max(...indices) : -1;
  return {
    schema: LabelAnswer,
    name: "fire_label",
    version: LABEL_SCHEMA_VERSION,
    validate: (a) => {
      const cited = [
        ...a.capabilityEvidence.map((c) => c.eventIndex),
        ...(a.preFailureState ? [a.preFailureState.eventIndex] : []),
      ];
      const bad = [...new Set(cited.filter((i) => !indices.has(i)))];
      return bad.length
        ? [`event indices ${bad.join(", ")} do not exist in this attempt (valid: 0..${last})`]
        : [];
    },
  };
}

/** The family a label points to: one named in the mechanism, else the detectors' common one. */
export function familyOf(answer: LabelAnswerT, hits: DetectorHit[]): string | undefined {
  const text = `${answer.mechanism} ${answer.rationale}`.toLowerCase();
  const named = FAMILIES.find((f) => text.includes(f) || text.includes(f.replace(/-/g, " ")));
  if (named) return named;
  const families = new Set(hits.map((h) => h.family).filter((f) => f !== undefined));
  return families.size === 1 ? [...families][0] : undefined;
}

export function toLabel(
  attempt: Attempt,
  hits: DetectorHit[],
  result: StructuredResult<LabelAnswerT>,
  model: string,
): Label {
  const detectorIds = [...new Set(hits.map((h) => h.detectorId))];
  if (result.ok) {
    const family = familyOf(result.value, hits);
    return {
      ...result.value,
      attemptId: attempt.id,
      source: "llm",
      detectorIds,
      model,
      ...(family ? { family } : {}),
    };
  }
  return {
    isProceduralLoss: false,
    capabilityEvidence: [],
    preFailureState: null,
    mechanism: "unlabelled",
    interventionPoint: "none",
    exclusion: "none",
    confidence: 0,
    rationale: "",
    attemptId: attempt.id,
    source: "llm",
    detectorIds,
    model,
    unlabelledReason: result.reason,
  };
}

/**
 * Label failed attempts with an OpenAI-compatible model. Never throws for a bad
 * answer or a failed request: such attempts come back with `unlabelledReason`.
 * Throws LlmUnavailableError when there is neither a key nor a base URL.
 */
export async function labelAttempts(
  attempts: Attempt[],
  opts: LabelOptions,
): Promise<{ labels: Label[]; report: RunReport }> {
  const session: LlmSession = createSession(opts.config, {
    cacheDir: opts.cacheDir,
    apiKey: opts.apiKey,
    baseURL: opts.baseURL,
    signal: opts.signal,
    onRetry: opts.onRetry,
  });
  const { report } = session;
  const prompts = attempts.map((a) => {
    const p = buildLabelPrompt(a, opts.evidence.get(a.id) ?? [], session.config);
    report.estimatedPromptTokens += p.promptTokens;
    report.fullTraceTokens += p.fullTokens;
    report.fixedPromptTokens = p.fixedTokens;
    return p;
  });
  let done = 0;
  const progress = (): void =>
    opts.onProgress?.({
      done,
      total: attempts.length,
      cacheHits: report.cacheHits,
      costUsd: report.costUsd,
    });

  let results: StructuredResult<LabelAnswerT>[];
  if (opts.batch) {
    results = await labelInBatch(session, attempts, prompts, labelSpec, (n) => {
      done = n;
      progress();
    });
  } else {
    results = await Promise.all(
      attempts.map(async (a, i) => {
        const r = await structuredCall(labelSpec(a), prompts[i]?.messages ?? [], {
          id: a.id,
          session,
        });
        done += 1;
        progress();
        return r;
      }),
    );
  }
  const labels = attempts.map((a, i) => {
    const r = results[i] ?? { ok: false as const, reason: "no result", stopped: false };
    if (!r.ok) report.failures.push({ id: a.id, reason: r.reason });
    return toLabel(a, opts.evidence.get(a.id) ?? [], r, session.config.model);
  });
  report.labelled = labels.filter((l) => !l.unlabelledReason).length;
  report.unlabelled = labels.length - report.labelled;
  return { labels, report };
}
