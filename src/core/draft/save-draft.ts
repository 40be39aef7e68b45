import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { draftFile, writeCandidate } from "../lifecycle/store.js";
import type { Cluster } from "../mine/cluster.js";
import type { Candidate } from "../policy/schema.js";
import { taskTexts } from "../route/audit.js";
import type { Workspace } from "../workspace/load.js";
import { draftFromTemplate } from "./template-drafter.js";
import { loadTemplates } from "./templates.js";

/** What drafting a cluster to disk did: saved, no valid draft, or a draft file already there. */
export type SavedDraft =
  | { ok: true; file: string; candidate: Candidate }
  | { ok: false; reason: "invalid"; problems: string[] }
  | { ok: false; reason: "exists"; file: string };

/**
 * Writes a drafted candidate to `candidates/drafts/<id>.<ext>` atomically, whichever drafter
 * made it. Never overwrites an existing draft file.
 */
export async function saveDraftCandidate(
  ws: Pick<Workspace, "dir">,
  candidate: Candidate,
  ext: "yaml" | "json" = "yaml",
): Promise<{ ok: true; file: string } | { ok: false; reason: "exists"; file: string }> {
  const file = draftFile(ws.dir, candidate, ext);
  if (existsSync(file)) return { ok: false, reason: "exists", file };
  await mkdir(dirname(file), { recursive: true });
  await writeCandidate(file, candidate);
  return { ok: true, file };
}

/**
 * `fire draft --cluster ID` with the template drafter: drafts from the cluster's member
 * attempts and saves it with `saveDraftCandidate`. Writes nothing when the draft is not valid.
 */
export async function saveTemplateDraft(
  ws: Workspace,
  cluster: Cluster,
  now: Date,
  ext: "yaml" | "json" = "yaml",
): Promise<SavedDraft> {
  const members = ws.attempts.filter((a) => cluster.attemptIds.includes(a.id));
  const r = draftFromTemplate(cluster, members, loadTemplates(), now, {
    tasks: taskTexts(ws.attempts),
  });
  if (!r.ok) return { ok: false, reason: "invalid", problems: r.problems };
  const saved = await saveDraftCandidate(ws, r.candidate, ext);
  return saved.ok ? { ...saved, candidate: r.candidate } : saved;
}
