import { z } from "zod";
import { FAMILIES, isFamilyId } from "../core/families.js";
import type { DetectorHit } from "../core/mine/detectors/types.js";
import type { FaultMarkers } from "../core/mine/faults/index.js";
import type { Label } from "../core/mine/label.js";
import { LabelAnswer } from "../core/mine/label.js";
import { mechanismById } from "../core/mine/mechanisms.js";
import type { Attempt } from "../core/model/attempt.js";
import { labelInBatch } from "./batch.js";
import type { LlmConfig, LlmConfigInput } from "./config.js";
import { buildLabelPrompt } from "./prompt.js";
import { MECHANISM_IDS } from "./prompt-evidence.js";
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
  /** The workspace's fault markers, so the prompt shows the fault evidence triage sees. */
  faultMarkers?: FaultMarkers;
}

/**
 * What the model answers: the label schema plus the known mechanism id, when one fits.
 * Nullable, not optional: strict structured output needs every field required.
 */
export const LlmLabelAnswer = LabelAnswer.extend({ mechanismId: z.enum(MECHANISM_IDS).nullable() });
export type LlmLabelAnswer = z.infer<typeof LlmLabelAnswer>;
type LabelAnswerT = LlmLabelAnswer;

/** Bump when the prompt or LabelAnswer meaning changes: old cache entries stop matching. */
export const LABEL_SCHEMA_VERSION = "label-answer@2";

/** The label spec for one attempt: LabelAnswer plus "every cited event exists". */
export function labelSpec(attempt: Attempt): StructuredSpec<LabelAnswerT> {
  const indices = new Set(attempt.events.map((e) => e.index));
  const last = attempt.events.length ? Math.max(...indices) : -1;
  return {
    schema: LlmLabelAnswer,
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

/**
 * The known mechanism of an answer and the detector evidence behind it: the id the model
 * named, else the family its text names (or the detectors agree on). The signature comes
 * from the detector hit of that mechanism, so an LLM label and a heuristic label of the
 * same mechanism and evidence share a cluster.
 */
function knownMechanism(
  answer: LabelAnswerT,
  hits: DetectorHit[],
): Pick<Label, "family" | "mechanismId" | "signature" | "evidenceEvents"> {
  const m = mechanismById(answer.mechanismId ?? familyOf(answer, hits));
  if (!m) return {};
  const hit = hits.find((h) => (h.mechanism ?? h.family) === m.id);
  const family = m.family ?? (isFamilyId(m.id) ? m.id : undefined);
  return {
    mechanismId: m.id,
    ...(family ? { family } : {}),
    ...(hit?.signature ? { signature: hit.signature } : {}),
    ...(hit ? { evidenceEvents: [...hit.eventIndices] } : {}),
  };
}

export function toLabel(
  attempt: Attempt,
  hits: DetectorHit[],
  result: StructuredResult<LabelAnswerT>,
  model: string,
): Label {
  const detectorIds = [...new Set(hits.map((h) => h.detectorId))];
  if (result.ok) {
    const { mechanismId: _named, ...answer } = result.value;
    return {
      ...answer,
      attemptId: attempt.id,
      source: "llm",
      detectorIds,
      model,
      ...knownMechanism(result.value, hits),
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
    const p = buildLabelPrompt(a, opts.evidence.get(a.id) ?? [], session.config, {
      ...(opts.faultMarkers ? { markers: opts.faultMarkers } : {}),
    });
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
