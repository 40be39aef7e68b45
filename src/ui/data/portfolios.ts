import { join } from "node:path";
import { exportFailproofai } from "../../core/export/failproofai.js";
import type { PortfolioEntry } from "../../core/freeze/list.js";

/** Portfolio listing and verification live in core (src/core/freeze/list.ts). */
export { listPortfolios, type PortfolioEntry } from "../../core/freeze/list.js";

/** `fire export --portfolio NAME --format failproofai` into exports/failproofai/NAME/. */
export async function exportPortfolio(workspace: string, p: PortfolioEntry): Promise<string> {
  const r = await exportFailproofai(p.dir, join(workspace, "exports", "failproofai", p.name));
  return r.module;
}
