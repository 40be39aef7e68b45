import { readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";

/** The extensions of candidate files. */
const EXTS = new Set([".json", ".yaml", ".yml"]);

/**
 * Candidate files under a path (a file, or a directory searched recursively), sorted. In a
 * module of its own (no compiler, no schema) so a cache keyed by the files loads nothing else.
 */
export function candidateFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const out: string[] = [];
  for (const ent of readdirSync(path, { withFileTypes: true })) {
    if (ent.name.startsWith(".")) continue;
    const full = join(path, ent.name);
    if (ent.isDirectory()) out.push(...candidateFiles(full));
    else if (EXTS.has(extname(ent.name))) out.push(full);
  }
  return out.sort();
}
