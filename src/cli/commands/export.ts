import { resolve } from "node:path";
import type { Command } from "commander";
import writeFileAtomic from "write-file-atomic";
import { UsageError } from "../../core/errors.js";
import {
  CLUSTER_COLUMNS,
  EXPORT_FORMATS,
  type ExportFormat,
  LABEL_COLUMNS,
  renderTableExport,
} from "../../core/export/tables.js";
import { serializeAttempt } from "../../core/ingest/fire-jsonl.js";
import { currentClusters } from "../../core/mine/session.js";
import type { Workspace } from "../../core/workspace/load.js";
import { openWorkspace, withWorkspace, workspaceDir } from "../util/workspace.js";

const TABLES = ["attempts", "labels", "clusters"] as const;
type Table = (typeof TABLES)[number];

type Opts = { workspace?: string; out?: string; portfolio?: string; format?: string };

function tableFormat(table: Table, format: string | undefined): ExportFormat {
  const f = format ?? "jsonl";
  if (!(EXPORT_FORMATS as readonly string[]).includes(f)) {
    throw new UsageError(
      `--format ${f}: fire export ${table} writes ${EXPORT_FORMATS.join(" or ")}`,
    );
  }
  if (table === "attempts" && f !== "jsonl") {
    throw new UsageError("--format csv: attempts are exported as fire JSONL only");
  }
  return f as ExportFormat;
}

/** The text of one export table and how many rows it has. */
async function exportText(
  ws: Workspace,
  table: Table,
  format: ExportFormat,
): Promise<{ text: string; rows: number }> {
  if (table === "attempts") {
    const text = ws.attempts.map((a) => `${serializeAttempt(a)}\n`).join("");
    return { text, rows: ws.attempts.length };
  }
  const mined = await currentClusters(ws);
  if (!mined)
    throw new UsageError(`nothing mined yet: run \`fire mine\` before exporting ${table}`);
  if (table === "labels") {
    return {
      text: renderTableExport(mined.labels, LABEL_COLUMNS, format),
      rows: mined.labels.length,
    };
  }
  return {
    text: renderTableExport(mined.clusters, CLUSTER_COLUMNS, format),
    rows: mined.clusters.length,
  };
}

/** `fire export [attempts|labels|clusters]`: a table as JSONL / CSV (attempts: fire JSONL). */
export function registerExport(program: Command): void {
  withWorkspace(
    program
      .command("export")
      .description(
        "write attempts (fire JSONL), labels or clusters (JSONL or CSV) to stdout unless --out",
      )
      .argument("[table]", `what to export: ${TABLES.join(" | ")}`, "attempts")
      .option("-o, --out <file>", "write to this file (atomically) instead of stdout")
      .option("--portfolio <name>", "export a frozen portfolio instead (see --format)")
      .option("--format <format>", "jsonl | csv for tables; with --portfolio: failproofai"),
  ).action(async (table: string, opts: Opts) => {
    if (opts.portfolio !== undefined) {
      const { exportPortfolio } = await import("./portfolio-export.js");
      return exportPortfolio(workspaceDir(opts), opts.portfolio, opts.format, opts.out);
    }
    if (!(TABLES as readonly string[]).includes(table)) {
      throw new UsageError(`unknown export '${table}' (one of: ${TABLES.join(", ")})`);
    }
    const t = table as Table;
    const format = tableFormat(t, opts.format);
    const ws = await openWorkspace(opts);
    const { text, rows } = await exportText(ws, t, format);
    if (opts.out === undefined) {
      process.stdout.write(text);
      return;
    }
    const file = resolve(opts.out);
    await writeFileAtomic(file, text);
    process.stderr.write(`exported ${rows} ${t} to ${file}\n`);
  });
}
