import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { draftFile, writeCandidate } from "../lifecycle/store.js";
import type { Candidate } from "../policy/schema.js";
import type { Workspace } from "../workspace/load.js";

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
