import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../regular-file.js";
import { workspacePaths } from "../workspace/paths.js";

/**
 * The workspace's default frozen portfolio: the one under `<workspace>/portfolios/` whose
 * manifest has the latest `frozenAt` (ties: the later name). Only reads JSON (no zod): the
 * hook calls it on every event. Undefined when nothing was frozen yet.
 */
export function defaultPortfolioDir(workspace: string): string | undefined {
  const root = workspacePaths(workspace).portfolios;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return undefined;
  }
  let best: { at: string; dir: string } | undefined;
  for (const name of names.sort()) {
    if (name.startsWith(".")) continue; // a freeze's temporary folder, never a portfolio
    const dir = join(root, name);
    let at: unknown;
    try {
      at = (
        JSON.parse(readRegularFile(join(dir, "manifest.json"), "utf8")) as { frozenAt?: unknown }
      ).frozenAt;
    } catch {
      continue;
    }
    if (typeof at !== "string") continue;
    if (!best || at >= best.at) best = { at, dir };
  }
  return best?.dir;
}
