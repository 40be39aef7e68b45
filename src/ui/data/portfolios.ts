import { exportPortfolio as exportAction, type PortfolioEntry } from "../../core/app/export.js";

/** Portfolio listing and verification live in core (core/app `listPortfolios`). */
export { listPortfolios, type PortfolioEntry } from "../../core/app/export.js";

/** `fire export --portfolio NAME --format failproofai` into exports/failproofai/NAME/. */
export async function exportPortfolio(workspace: string, p: PortfolioEntry): Promise<string> {
  return (await exportAction(workspace, p.name)).module;
}
