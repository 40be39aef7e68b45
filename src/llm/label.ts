import { z } from "zod";
import { FAMILIES, isFamilyId } from "../core/families.js";
import type { DetectorHit } from "../core/mine/detectors/types.js";
import type { FaultMarkers } from "../core/mine/faults/index.js";
import type { Label, LabelEvidence } from "../core/mine/label.js";
import {
  InScopeKind,
  InterventionPoint,
  LabelAnswer,
  LabelStatus,
  LLM_LABEL_VERSION,
} from "../core/mine/label.js";
import { mechanismById } from "../core/mine/mechanisms.js";
import { siblingEvidence } from "../core/mine/sibling-diff.js";
import type { Attempt } from "../core/model/attempt.js";
import { redact } from "../core/redact.js";
import { labelInBatch } from "./batch.js";
import { createSession, type LlmSession, type RetryEvent } from "./client.js";
import type { LlmConfig, LlmConfigInput } from "./config.js";
import { buildLabelPrompt } from "./prompt.js";
import { MECHANISM_IDS } from "./prompt-evidence.js";
import type { RunReport } from "./report.js";
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
  /**
   * Every attempt of the workspace (passing ones included): a failed attempt of a split task
   * is compared with its passing sibling, and the differences go into its prompt.
   */
  population?: readonly Attempt[];
}

/** One piece of evidence the model cites: an event shown, a verifier line quoted, a sibling. */
const CitedEvidence = z.strictObject({
  claim: z.enum(["capability", "state", "mechanism", "fault", "addressable"]),
  from: z.enum(["event", "verifier", "sibling"]),
  /** The event's [index] (from event), else null. */
  eventIndex: z.number().int().nullable(),
  /** The passing sibling's attempt id (from sibling), else null. */
  attemptId: z.string().nullable(),
  /** The words that show it: part of the event, the verifier line exactly as shown. */
  excerpt: z.string().max(400),
});

/**
 * What the model answers: the label schema with the in-scope kind, the status, cited
 * evidence, the known mechanism id when one fits, and the second reading of an excluded
 * fault. `isProceduralLoss` is derived (kind = procedural_loss), not asked for. Nullable,
 * not optional: strict structured output needs every field required.
 */
export const LlmLabelAnswer = LabelAnswer.omit({ isProceduralLoss: true }).extend({
  kind: InScopeKind.nullable(),
  status: LabelStatus,
  evidence: z.array(CitedEvidence),
  mechanismId: z.enum(MECHANISM_IDS).nullable(),
  secondReading: z
    .strictObject({ kind: InScopeKind, interventionPoint: InterventionPoint, why: z.string() })
    .nullable(),
});
export type LlmLabelAnswer = z.infer<typeof LlmLabelAnswer>;
type LabelAnswerT = LlmLabelAnswer;

/** Bump when the prompt, digest or LabelAnswer meaning changes: old cache entries stop matching. */
export const LABEL_SCHEMA_VERSION = LLM_LABEL_VERSION;

/** Whitespace collapsed, for "this quoted line is in the verifier's output" checks. */
const squash = (s: string): string => s.replace(/\s+/g, " ").trim();

/** The verifier text a quoted line must come from: its output and its failing tests' messages. */
function verifierText(attempt: Attempt): string {
  const tests = (attempt.verifierTests ?? []).map(
    (t) => `${t.status.toUpperCase()} ${t.name}${t.message ? ` - ${t.message}` : ""}`,
  );
  return squash(redact([attempt.verifierOutput ?? "", ...tests].join("\n")));
}

/**
 * The label spec for one attempt: the answer schema plus "every cited event exists", "every
 * quoted verifier line is in the verifier's output" and "in scope ⇔ a kind".
 */
export function labelSpec(attempt: Attempt): StructuredSpec<LabelAnswerT> {
  const indices = new Set(attempt.events.map((e) => e.index));
  const last = attempt.events.length ? Math.max(...indices) : -1;
  const verifier = verifierText(attempt);
  return {
    schema: LlmLabelAnswer,
    name: "fire_label",
    version: LABEL_SCHEMA_VERSION,
    validate: (a) => {
      const problems: string[] = [];
      const cited = [
        ...a.capabilityEvidence.map((c) => c.eventIndex),
        ...(a.preFailureState ? [a.preFailureState.eventIndex] : []),
        ...a.evidence.flatMap((e) => (e.eventIndex === null ? [] : [e.eventIndex])),
      ];
      const bad = [...new Set(cited.filter((i) => !indices.has(i)))];
      if (bad.length)
        problems.push(
          `event indices ${bad.join(", ")} do not exist in this attempt (valid: 0..${last})`,
        );
      for (const e of a.evidence) {
        if (e.from === "event" && e.eventIndex === null)
          problems.push("evidence from an event needs its eventIndex");
        if (e.from === "sibling" && !e.attemptId)
          problems.push("evidence from a sibling needs its attemptId");
        const quote = squash(e.excerpt.replace(/…/g, " ")).slice(0, 120);
        if (e.from === "verifier" && quote && !verifier.includes(quote))
          problems.push(`verifier evidence must quote the verifier's output exactly: "${quote}"`);
      }
      if (a.exclusion === "none" && a.kind === null)
        problems.push("an in-scope failure (exclusion none) needs its kind");
      if (a.exclusion !== "none" && a.kind !== null)
        problems.push(
          "an excluded failure has kind null (use secondReading for what a rule could still address)",
        );
      return problems;
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

/** The model's cited evidence as stored label evidence (at most 12, excerpts capped). */
function labelEvidence(a: LabelAnswerT): LabelEvidence[] {
  return a.evidence.slice(0, 12).map((e) => ({
    claim: e.claim,
    from: e.from,
    ...(e.eventIndex !== null ? { eventIndex: e.eventIndex } : {}),
    ...(e.attemptId !== null ? { attemptId: e.attemptId } : {}),
    excerpt: e.excerpt.slice(0, 400),
  }));
}

/**
 * The stored label of a valid answer. Precision first: a label the model calls named but
 * whose mechanism no cited evidence shows is kept for review, and a label for review gets
 * no mechanism from the detectors either (never a guessed mechanism).
 */
function answerLabel(attempt: Attempt, hits: DetectorHit[], value: LabelAnswerT, model: string) {
  const { mechanismId: _named, kind, status, evidence: _cited, secondReading, ...rest } = value;
  const evidence = labelEvidence(value);
  const inScope = value.exclusion === "none";
  const shown = evidence.some((e) => e.claim === "mechanism" || e.claim === "state");
  const finalStatus = inScope
    ? status === "named" && shown
      ? "named"
      : "needs_review"
    : undefined;
  const known = knownMechanism(value, hits);
  const cited = [
    ...new Set(evidence.flatMap((e) => (e.eventIndex === undefined ? [] : [e.eventIndex]))),
  ];
  const label: Label = {
    ...rest,
    isProceduralLoss: inScope && kind === "procedural_loss",
    attemptId: attempt.id,
    source: "llm",
    detectorIds: [...new Set(hits.map((h) => h.detectorId))],
    model,
    ...(finalStatus === "needs_review" ? {} : known),
    ...(inScope && kind ? { kind } : {}),
    ...(finalStatus ? { status: finalStatus } : {}),
    ...(evidence.length ? { evidence } : {}),
  };
  if (!label.evidenceEvents && cited.length) label.evidenceEvents = cited.sort((x, y) => x - y);
  if (!inScope && secondReading && known.mechanismId)
    label.secondReading = {
      kind: secondReading.kind,
      mechanismId: known.mechanismId,
      interventionPoint: secondReading.interventionPoint,
      why: secondReading.why.slice(0, 400),
    };
  return label;
}

export function toLabel(
  attempt: Attempt,
  hits: DetectorHit[],
  result: StructuredResult<LabelAnswerT>,
  model: string,
): Label {
  if (result.ok) return answerLabel(attempt, hits, result.value, model);
  const detectorIds = [...new Set(hits.map((h) => h.detectorId))];
  return unlabelled(attempt.id, result.reason, model, detectorIds);
}

/** An attempt the LLM labeller could not label, kept with the reason (never a guessed label). */
export function unlabelled(
  attemptId: string,
  reason: string,
  model: string,
  detectorIds: string[] = [],
): Label {
  return {
    isProceduralLoss: false,
    capabilityEvidence: [],
    preFailureState: null,
    mechanism: "unlabelled",
    interventionPoint: "none",
    exclusion: "none",
    confidence: 0,
    rationale: "",
    attemptId,
    source: "llm",
    detectorIds,
    model,
    unlabelledReason: reason,
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
    const sibling = opts.population ? siblingEvidence(a, opts.population) : undefined;
    const p = buildLabelPrompt(a, opts.evidence.get(a.id) ?? [], session.config, {
      ...(opts.faultMarkers ? { markers: opts.faultMarkers } : {}),
      ...(sibling ? { sibling } : {}),
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
