import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { workspacePaths } from "../workspace/paths.js";
import type { PortfolioManifest } from "./manifest.js";
import { loadFrozenPortfolio, readManifest } from "./verify.js";

/** A frozen portfolio folder: its manifest, and whether every hash still verifies. */
export interface PortfolioEntry {
  name: string;
  dir: string;
  manifest?: PortfolioManifest;
  /** Undefined when the hashes verify; the integrity error otherwise. */
  problem?: string;
}

/**
 * Frozen portfolios under `portfolios/`, sorted by name, each verified (manifest hash and
 * policy SHA-256s). A portfolio that fails verification is listed with its problem (and its
 * manifest when that still reads).
 */
export function listPortfolios(workspace: string): PortfolioEntry[] {
  const root = workspacePaths(workspace).portfolios;
  if (!existsSync(root)) return [];
  const out: PortfolioEntry[] = [];
  for (const ent of readdirSync(root, { withFileTypes: true })) {
    if (!ent.isDirectory()) continue;
    const dir = join(root, ent.name);
    try {
      const { manifest } = loadFrozenPortfolio(dir);
      out.push({ name: ent.name, dir, manifest });
    } catch (e) {
      let manifest: PortfolioManifest | undefined;
      try {
        manifest = readManifest(dir);
      } catch {
        manifest = undefined;
      }
      out.push({
        name: ent.name,
        dir,
        ...(manifest ? { manifest } : {}),
        problem: (e as Error).message,
      });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}
