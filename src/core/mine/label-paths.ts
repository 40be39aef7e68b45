import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { workspacePaths } from "../workspace/paths.js";

/**
 * Where the label stores are and which one the last `fire mine` wrote: a module without the
 * stores' schema, so a read command's cache key loads no schema library.
 */

/** `.fire/cache/labels/<labeler>.json` (a cache: safe to delete). */
export function labelStorePath(workspaceDir: string, labeler: "llm" | "heuristic"): string {
  return join(workspacePaths(workspaceDir).labels, `${labeler}.json`);
}

/** `.fire/cache/labels/last.json`: which labeller the last `fire mine` used. */
export function lastPath(workspaceDir: string): string {
  return join(workspacePaths(workspaceDir).labels, "last.json");
}

/** The labeller of the last mining run, if any. */
export async function lastLabeler(workspaceDir: string): Promise<"llm" | "heuristic" | undefined> {
  try {
    const raw = JSON.parse(await readFile(lastPath(workspaceDir), "utf8")) as { labeler?: unknown };
    return raw.labeler === "llm" || raw.labeler === "heuristic" ? raw.labeler : undefined;
  } catch {
    return undefined;
  }
}

/** `lastLabeler`, read synchronously (a cache key computed where no await may come between). */
export function lastLabelerSync(workspaceDir: string): "llm" | "heuristic" | undefined {
  try {
    const raw = JSON.parse(readFileSync(lastPath(workspaceDir), "utf8")) as { labeler?: unknown };
    return raw.labeler === "llm" || raw.labeler === "heuristic" ? raw.labeler : undefined;
  } catch {
    return undefined;
  }
}
