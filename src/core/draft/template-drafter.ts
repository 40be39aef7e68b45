import type { Cluster } from "../mine/cluster.js";
import type { Attempt } from "../model/attempt.js";
import { compilePolicy } from "../policy/compile.js";
import { unsafePatterns } from "../policy/safety.js";
import { Candidate } from "../policy/schema.js";
import type { TaskText } from "../route/audit.js";
import { type LearnedEligibility, learnEligibility, taskIdWords } from "./eligibility.js";
import { answersOf, hygieneProblems, pathsOf } from "./hygiene.js";
import { type DraftCluster, type MechanismTemplate, paramsOf } from "./mechanism-template.js";
import type { Templates } from "./templates.js";

/** A drafted candidate, or why there is none (never a half-valid one). */
export type DraftResult =
  | {
      ok: true;
      candidate: Candidate;
      drafter: "template" | "llm";
      template?: string;
      /** Phrases learned from the cluster's task texts, with their routing counts. */
      learned?: LearnedEligibility;
    }
  | { ok: false; drafter: "template" | "llm"; problems: string[] };

/** The mechanism a cluster is drafted for: its mechanism id, else its family. */
export function mechanismOf(cluster: DraftCluster): string | undefined {
  return cluster.mechanismId ?? cluster.family;
}

/** `draft-<mechanism>-<cluster hash>`: stable for one cluster, a valid candidate id. */
export function draftId(cluster: Pick<DraftCluster, "id" | "family" | "mechanismId">): string {
  const mech = cluster.mechanismId ?? cluster.family ?? "mechanism";
  return `draft-${mech}-${cluster.id.replace(/^c-/, "").slice(0, 6)}`.toLowerCase();
}

/** The lineage and checks every drafter applies to its candidate. */
export function finishDraft(
  raw: unknown,
  cluster: Cluster,
  attempts: readonly Attempt[],
  now: Date,
  note: string,
): { ok: true; candidate: Candidate } | { ok: false; problems: string[] } {
  const base = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const shaped = {
    ...base,
    id: draftId(cluster),
    version: 1,
    status: "draft",
    lineage: { clusters: [cluster.id], attempts: [...cluster.attemptIds] },
    history: [{ at: now.toISOString(), status: "draft", note }],
  };
  const parsed = Candidate.safeParse(shaped);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues
        .slice(0, 8)
        .map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`),
    };
  const c = parsed.data;
  const problems = unsafePatterns(c).map((u) => `${u.path.join(".")}: ${u.reason}`);
  try {
    compilePolicy(c);
  } catch (e) {
    problems.push((e as Error).message);
  }
  problems.push(
    ...hygieneProblems(c, {
      taskIds: cluster.taskIds,
      paths: pathsOf(attempts),
      answers: answersOf(attempts),
    }).map((p) => `rule text ${p}`),
  );
  return problems.length ? { ok: false, problems } : { ok: true, candidate: c };
}

/** What the drafter knows of the workspace besides the members: every task's text. */
export interface DraftContext {
  /** Task texts of the workspace (the cluster's own tasks are the positives, others negatives). */
  tasks?: readonly TaskText[];
}

/**
 * Template drafter. A cluster whose mechanism is a family gets the family's template
 * mechanics (reference portfolio; the generic stop-without-check template only for that
 * mechanism); a mechanism without a family gets its parameterized template built from the
 * cluster's evidence, with eligibility learned from the cluster's task texts against the
 * workspace's other tasks. A cluster whose mechanism has no template gets no draft (the LLM
 * drafter can still try): the generic template is never a catch-all.
 */
export function draftFromTemplate(
  cluster: DraftCluster,
  attempts: readonly Attempt[],
  templates: Templates,
  now: Date,
  context: DraftContext = {},
): DraftResult {
  const mech = mechanismOf(cluster);
  if (mech === undefined)
    return {
      ok: false,
      drafter: "template",
      problems: [
        "the cluster names no known mechanism, so no template fits (draft it with --llm, or relabel its attempts)",
      ],
    };
  const open = cluster.mechanismId ? templates.byMechanism.get(cluster.mechanismId) : undefined;
  if (open) return draftFromMechanism(cluster, attempts, open, now, context);
  const t = templates.byFamily.get(mech);
  if (!t)
    return {
      ok: false,
      drafter: "template",
      problems: [`no template for ${cluster.mechanismId ? "mechanism" : "family"} ${mech}`],
    };
  const {
    id: _id,
    version: _v,
    status: _s,
    lineage: _l,
    history: _h,
    $schema: _sc,
    ...mechanics
  } = t;
  const detectors = cluster.detectors.map((d) => `${d.id}×${d.count}`).join(", ");
  const note = `drafted from cluster ${cluster.id} (template ${t.id})`;
  const filled = {
    ...mechanics,
    title: `${t.title} (cluster ${cluster.id})`,
    chain: { ...t.chain, state: `${cluster.mechanism || t.chain.state}. ${t.chain.state}` },
    notes: `Drafted from cluster ${cluster.id} "${cluster.name}" (${cluster.attemptIds.length} attempt(s), ${cluster.taskIds.length} task(s); detectors: ${detectors || "none"}) with the ${mech} template ${t.id}@${t.version}.`,
  };
  const plain = {
    ...mechanics,
    title: `${t.title} (cluster ${cluster.id})`,
    notes: `Drafted from cluster ${cluster.id} with the ${mech} template ${t.id}@${t.version}.`,
  };
  return finishWithFallback(filled, plain, cluster, attempts, now, note, `${t.id}@${t.version}`);
}

/** Checks the filled draft; when the cluster's own words break hygiene, the plain wording. */
function finishWithFallback(
  filled: unknown,
  plain: unknown,
  cluster: Cluster,
  attempts: readonly Attempt[],
  now: Date,
  note: string,
  template: string,
  learned?: LearnedEligibility,
): DraftResult {
  let r = finishDraft(filled, cluster, attempts, now, note);
  // The cluster's own words (mechanism, name) may quote a task or path: fall back to the
  // template's wording, which names neither.
  if (!r.ok) r = finishDraft(plain, cluster, attempts, now, note);
  if (!r.ok) return { ok: false, drafter: "template", problems: r.problems };
  return {
    ok: true,
    candidate: r.candidate,
    drafter: "template",
    template,
    ...(learned ? { learned } : {}),
  };
}

function draftFromMechanism(
  cluster: DraftCluster,
  attempts: readonly Attempt[],
  t: MechanismTemplate,
  now: Date,
  context: DraftContext,
): DraftResult {
  const params = paramsOf(cluster, attempts);
  const mechanics = t.build(params);
  const tasks = context.tasks ?? [];
  const own = new Set(cluster.taskIds);
  const learned = learnEligibility(
    tasks.filter((x) => own.has(x.taskId)),
    tasks.filter((x) => !own.has(x.taskId)),
    taskIdWords(cluster.taskIds),
  );
  // learned phrases route the positives they cover; the template's default routes the rest
  const anyOf =
    learned.phrases.length === 0
      ? t.fallback
      : [
          ...learned.phrases.map((p) => p.pattern),
          ...(learned.uncovered.length > 0 ? t.fallback : []),
        ];
  const eligibility = { allOf: [...t.requires], anyOf, noneOf: [] };
  const how =
    learned.phrases.length > 0
      ? `eligibility learned from ${learned.positives} task text(s) against ${learned.negatives} other(s): ${learned.phrases.map((p) => `${p.label} (${p.positives}/${learned.positives} vs ${p.negatives}/${learned.negatives})`).join("; ")}${learned.uncovered.length > 0 ? `; the template's default for ${learned.uncovered.length} task(s) no phrase covers` : ""}`
      : "eligibility: the template's default (no phrase is frequent in the cluster's task texts and rare in the others)";
  const ref = `${t.id}@${t.version}`;
  const note = `drafted from cluster ${cluster.id} (template ${ref})`;
  const paramsText = `params: kinds=${params.kinds.join(",") || "any"}, afterCalls=${params.afterCalls}, repeats=${params.repeats}`;
  const base = { ...mechanics, eligibility, title: `${mechanics.title} (cluster ${cluster.id})` };
  const filled = {
    ...base,
    chain: {
      ...mechanics.chain,
      state: `${cluster.mechanism || mechanics.chain.state}. ${mechanics.chain.state}`,
    },
    notes: `Drafted from cluster ${cluster.id} "${cluster.name}" (${cluster.attemptIds.length} attempt(s), ${cluster.taskIds.length} task(s)) with the ${t.mechanismId} template ${ref}; ${paramsText}; ${how}.`,
  };
  const plain = {
    ...base,
    notes: `Drafted from cluster ${cluster.id} with the ${t.mechanismId} template ${ref}; ${paramsText}; ${how}.`,
  };
  return finishWithFallback(filled, plain, cluster, attempts, now, note, ref, learned);
}
