import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { InputError } from "../errors.js";
import { type LoadResult, loadPolicies } from "../policy/load.js";
import { MANIFEST_FILE } from "./manifest.js";
import { loadFrozenPortfolio } from "./verify.js";

/** Whether a folder is a frozen portfolio (it has a manifest). */
export function isPortfolioDir(path: string): boolean {
  try {
    return statSync(path).isDirectory() && existsSync(join(path, MANIFEST_FILE));
  } catch {
    return false;
  }
}

/**
 * Where a `--portfolio` / `--candidate` argument points: the path as given (absolute, or
 * from the current folder), else from the workspace, else `portfolios/NAME`.
 */
export function resolvePolicySource(workspace: string, path: string): string {
  if (isAbsolute(path)) return path;
  for (const p of [resolve(path), resolve(workspace, path), resolve(workspace, "portfolios", path)])
    if (existsSync(p)) return p;
  return resolve(path);
}

/**
 * The policies of a screen's policy arm: a frozen portfolio's policies (verified against
 * its manifest: a changed file is an error naming it), or the candidates of a file or
 * folder of candidates.
 */
export function loadPolicySource(path: string): LoadResult {
  if (!isPortfolioDir(path)) return loadPolicies([path]);
  try {
    return { policies: loadFrozenPortfolio(path).policies, errors: [] };
  } catch (err) {
    if (err instanceof InputError) return { policies: [], errors: [err] };
    // PortfolioIntegrityError: "<file>: <why>"
    const text = err instanceof Error ? err.message : String(err);
    const m = /^(\/[^:]*): ([\s\S]*)$/.exec(text);
    const file = m?.[1] ?? join(path, MANIFEST_FILE);
    return { policies: [], errors: [new InputError(file, undefined, m?.[2] ?? text)] };
  }
}
