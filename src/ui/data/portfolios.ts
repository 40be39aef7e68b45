import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { exportFailproofai } from "../../core/export/failproofai.js";
import type { PortfolioManifest } from "../../core/freeze/manifest.js";
import { loadFrozenPortfolio, readManifest } from "../../core/freeze/verify.js";
import { workspacePaths } from "../../core/workspace/paths.js";
import {
  editSettings,
  type Harness,
  hookCommand,
  type InstallResult,
  settingsPath,
  withFire,
  withoutFire,
} from "../../runtime/install.js";

/** A frozen portfolio folder: its manifest, and whether every hash still verifies. */
export interface PortfolioEntry {
  name: string;
  dir: string;
  manifest?: PortfolioManifest;
  /** Undefined when the hashes verify; the integrity error otherwise. */
  problem?: string;
}

/** Frozen portfolios under `portfolios/`, each verified (manifest hash and policy SHA-256s). */
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

/** The built CLI the installed hook runs (dist/cli/main.js, next to dist/ui/). */
const CLI_PATH = resolve(fileURLToPath(import.meta.url), "../../../cli/main.js");

/** `fire hook install --harness H --project WORKSPACE --portfolio DIR`. */
export function installHook(workspace: string, harness: Harness, portfolio: string): InstallResult {
  const command = hookCommand({ cliPath: CLI_PATH, portfolio, workspace });
  return editSettings(settingsPath(harness, { project: workspace }), (s) => withFire(s, command));
}

/** `fire hook uninstall --harness H --project WORKSPACE`. */
export function uninstallHook(workspace: string, harness: Harness): InstallResult {
  return editSettings(settingsPath(harness, { project: workspace }), withoutFire);
}

/** `fire export --portfolio NAME --format failproofai` into exports/failproofai/NAME/. */
export async function exportPortfolio(workspace: string, p: PortfolioEntry): Promise<string> {
  const r = await exportFailproofai(p.dir, join(workspace, "exports", "failproofai", p.name));
  return r.module;
}
