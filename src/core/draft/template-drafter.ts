import type { Cluster } from "../mine/cluster.js";
import type { Attempt } from "../model/attempt.js";
import { compilePolicy } from "../policy/compile.js";
import { unsafePatterns } from "../policy/safety.js";
import { Candidate } from "../policy/schema.js";
import { answersOf, hygieneProblems, pathsOf } from "./hygiene.js";
import type { Templates } from "./templates.js";

/** A drafted candidate, or why there is none (never a half-valid one). */
export type DraftResult =
  | { ok: true; candidate: Candidate; drafter: "template" | "llm"; template?: string }
  | { ok: false; drafter: "template" | "llm"; problems: string[] };

/** `draft-<family>-<cluster hash>`: stable for one cluster, a valid candidate id. */
export function draftId(cluster: Pick<Cluster, "id" | "family">): string {
  const fam = cluster.family ?? "stop-without-check";
  return `draft-${fam}-${cluster.id.replace(/^c-/, "").slice(0, 6)}`.toLowerCase();
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

/**
 * Template drafter: the family's template mechanics, with identity, title, chain state and
 * notes filled from the cluster (mechanism, detectors, members). Clusters without a known
 * family get the generic stop-without-check template.
 */
export function draftFromTemplate(
  cluster: Cluster,
  attempts: readonly Attempt[],
  templates: Templates,
  now: Date,
): DraftResult {
  const family = cluster.family ?? "stop-without-check";
  const t = templates.byFamily.get(family);
  if (!t) return { ok: false, drafter: "template", problems: [`no template for family ${family}`] };
  const { id: _id, version: _v, status: _s, lineage: _l, history: _h, $schema: _sc, ...mech } = t;
  const detectors = cluster.detectors.map((d) => `${d.id}×${d.count}`).join(", ");
  const note = `drafted from cluster ${cluster.id} (template ${t.id})`;
  const filled = {
    ...mech,
    title: `${t.title} (cluster ${cluster.id})`,
    chain: { ...t.chain, state: `${cluster.mechanism || t.chain.state}. ${t.chain.state}` },
    notes: `Drafted from cluster ${cluster.id} "${cluster.name}" (${cluster.attemptIds.length} attempt(s), ${cluster.taskIds.length} task(s); detectors: ${detectors || "none"}) with the ${family} template ${t.id}@${t.version}.`,
  };
  let r = finishDraft(filled, cluster, attempts, now, note);
  if (!r.ok) {
    // The cluster's own words (mechanism, name) may quote a task or path: fall back to the
    // template's wording, which names neither.
    const plain = {
      ...mech,
      title: `${t.title} (cluster ${cluster.id})`,
      notes: `Drafted from cluster ${cluster.id} with the ${family} template ${t.id}@${t.version}.`,
    };
    r = finishDraft(plain, cluster, attempts, now, note);
  }
  return r.ok
    ? { ok: true, candidate: r.candidate, drafter: "template", template: `${t.id}@${t.version}` }
    : { ok: false, drafter: "template", problems: r.problems };
}
