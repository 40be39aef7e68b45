import { join, resolve } from "node:path";
import type { InputError } from "../errors.js";
import { InvalidFieldError, NotFoundError } from "../errors.js";
import { exportFailproofai, type FailproofaiExport } from "../export/failproofai.js";
import { SCREEN_ROW_COLUMNS } from "../export/screen-rows.js";
import {
  CLUSTER_COLUMNS,
  type ExportFormat,
  LABEL_COLUMNS,
  renderTableExport,
} from "../export/tables.js";
import { VERDICT_COLUMNS, verdictRows } from "../export/verdicts.js";
import { serializeAttempt } from "../ingest/fire-jsonl.js";
import { currentClusters } from "../mine/run-mining.js";
import { readScreenRows } from "../screening/results/analysis.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import { candidateSession } from "./session.js";

export { EXPORT_FORMATS, type ExportFormat } from "../export/tables.js";
export { listPortfolios, type PortfolioEntry } from "../freeze/list.js";

/** The tables `fire export` writes. */
export const EXPORT_TABLES = ["attempts", "labels", "clusters", "verdicts", "screen"] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];

export interface ExportedTable {
  text: string;
  rows: number;
  /** Bad input lines skipped (the good rows around them are exported). */
  errors: InputError[];
}

/**
 * `fire export TABLE [NAME]`: the text of one table (attempts as fire JSONL, the others as
 * JSONL or CSV). `open` loads the workspace (attempts, labels and clusters need it).
 */
export async function exportTable(
  workspace: string,
  table: ExportTable,
  name: string | undefined,
  format: ExportFormat,
  open: () => Promise<Workspace>,
): Promise<ExportedTable> {
  if (table === "verdicts") {
    const session = candidateSession(workspace);
    const rows = await verdictRows(session);
    return {
      text: renderTableExport(rows, VERDICT_COLUMNS, format),
      rows: rows.length,
      errors: [...session.candidateErrors],
    };
  }
  if (table === "screen") {
    if (name === undefined)
      throw new InvalidFieldError("name", "a screen export", "needs the screen's name");
    const { rows, errors } = await readScreenRows(workspace, name);
    return { text: renderTableExport(rows, SCREEN_ROW_COLUMNS, format), rows: rows.length, errors };
  }
  const ws = await open();
  if (table === "attempts") {
    const text = ws.attempts.map((a) => `${serializeAttempt(a)}\n`).join("");
    return { text, rows: ws.attempts.length, errors: [] };
  }
  const mined = await currentClusters(ws);
  if (!mined)
    throw new NotFoundError(`nothing mined yet: run \`fire mine\` before exporting ${table}`);
  if (table === "labels") {
    return {
      text: renderTableExport(mined.labels, LABEL_COLUMNS, format),
      rows: mined.labels.length,
      errors: [],
    };
  }
  return {
    text: renderTableExport(mined.clusters, CLUSTER_COLUMNS, format),
    rows: mined.clusters.length,
    errors: [],
  };
}

/**
 * `fire export --portfolio NAME --format failproofai` / Portfolio `x`: the frozen portfolio as
 * failproofai policy modules, by default in `exports/failproofai/<NAME>/`.
 */
export function exportPortfolio(
  workspace: string,
  name: string,
  out?: string,
): Promise<FailproofaiExport> {
  const dir = join(workspacePaths(workspace).portfolios, name);
  const outDir = resolve(out ?? join(workspacePaths(workspace).exports, "failproofai", name));
  return exportFailproofai(dir, outDir);
}
