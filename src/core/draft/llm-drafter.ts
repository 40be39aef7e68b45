import type { Cluster } from "../mine/cluster.js";
import type { Attempt } from "../model/attempt.js";
import { conditionKeysText } from "../policy/atoms.js";
import type { Candidate } from "../policy/schema.js";
import { redact } from "../redact.js";
import { type DraftResult, finishDraft } from "./template-drafter.js";

/** One chat message (the shape src/llm sends). */
export interface DraftMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * The LLM call, injected by the CLI (core never imports src/llm): ask for one answer of the
 * candidate schema; `validate` returns problems (the LLM layer sends one repair round with
 * them). Resolves to the validated value or why there is none.
 */
export type AskDraft = (
  messages: DraftMessage[],
  validate: (value: Candidate) => string[],
) => Promise<{ ok: true; value: Candidate } | { ok: false; reason: string }>;

/** The policy language as the drafter is told it (condition keys from the atom registry). */
export const DRAFT_LANGUAGE = `A candidate policy is JSON: {id, version, family, title, chain:{state, intervention, behavior, verifier}, eligibility:{allOf:[], anyOf:[pattern], noneOf:[]}, values:[{id, pattern}], track:[{id, at, when, set|clear|record|recordFirst|increment|mark|streak}], rules:[{id, at: prompt|tool|tool_result|stop, when, action: instruct|deny, message, nudgeLimit?, release?}], behavior: condition}.
A pattern is a regex string or {pattern, flags}; flags from i, m, s, u. No nested quantifiers.
values lists capture what the task text names (paths, file names: every match, group 1). A track rule's mark {values, as, match?: path|name|written} marks the values the current tool call uses; streak {counter, key?: output} counts a run of identical results.
A condition is an object whose keys must all hold: ${conditionKeysText()}.
deny is only allowed at "tool". Eligibility reads the task text once; tracking rules record the agent's steps; the behaviour marker is checked on the final state.
Rules and patterns must be general: never name a task, a file path from the traces, or an expected answer.`;

/** The prompt: the policy language, the cluster's mechanism and its (redacted) evidence. */
export function draftMessages(cluster: Cluster, example?: Candidate): DraftMessage[] {
  const evidence = cluster.evidence
    .slice(0, 6)
    .map((e) => `- ${e.excerpt}`)
    .join("\n");
  const ex = example
    ? `\nAn example policy of a related family:\n${JSON.stringify({ ...example, lineage: undefined, history: undefined })}`
    : "";
  return [
    {
      role: "system",
      content: `You write runtime policies for coding agents as declarative JSON.\n${DRAFT_LANGUAGE}${ex}`,
    },
    {
      role: "user",
      content: `Draft ONE candidate policy for this failure mechanism.
Family: ${cluster.family ?? cluster.mechanismId ?? "unknown (choose a short kebab-case family name)"}
Mechanism: ${cluster.mechanism}${cluster.mechanismId ? ` (id ${cluster.mechanismId})` : ""}${cluster.signature ? `\nSignature (normalized evidence): ${redact(cluster.signature)}` : ""}
Intervention point: ${cluster.interventionPoint}
Detectors: ${cluster.detectors.map((d) => d.id).join(", ") || "none"}
Evidence (redacted excerpts of the failed attempts):
${evidence || "- none"}
Use id "draft" and version 1. Reply with the JSON object only.`,
    },
  ];
}

/**
 * LLM drafter: structured output validated against the candidate schema, every pattern
 * safety-checked, compiled and checked for task ids / paths (the same checks as templates);
 * a draft failing any of them is reported with its problems, never returned half-valid.
 */
export async function draftWithLlm(
  cluster: Cluster,
  attempts: readonly Attempt[],
  ask: AskDraft,
  now: Date,
  example?: Candidate,
): Promise<DraftResult> {
  const note = `drafted from cluster ${cluster.id} (LLM)`;
  const check = (v: Candidate): string[] => {
    const r = finishDraft(v, cluster, attempts, now, note);
    return r.ok ? [] : r.problems;
  };
  const answer = await ask(draftMessages(cluster, example), check);
  if (!answer.ok) return { ok: false, drafter: "llm", problems: [answer.reason] };
  const r = finishDraft(answer.value, cluster, attempts, now, note);
  return r.ok
    ? { ok: true, candidate: r.candidate, drafter: "llm" }
    : { ok: false, drafter: "llm", problems: r.problems };
}
