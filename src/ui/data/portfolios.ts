import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { exportFailproofai } from "../../core/export/failproofai.js";
import type { PortfolioEntry } from "../../core/freeze/list.js";
import {
  editSettings,
  type Harness,
  hookCommand,
  type InstallResult,
  settingsPath,
  withFire,
  withoutFire,
} from "../../runtime/install.js";

/** Portfolio listing and verification live in core (src/core/freeze/list.ts). */
export { listPortfolios, type PortfolioEntry } from "../../core/freeze/list.js";

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
