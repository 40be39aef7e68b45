import { resolve } from "node:path";
import type { Command } from "commander";
import writeFileAtomic from "write-file-atomic";
import { candidateSession } from "../../core/app/index.js";
import { type InputError, UsageError } from "../../core/errors.js";
import { SCREEN_ROW_COLUMNS } from "../../core/export/screen-rows.js";
import {
  CLUSTER_COLUMNS,
  EXPORT_FORMATS,
  type ExportFormat,
  LABEL_COLUMNS,
  renderTableExport,
} from "../../core/export/tables.js";
import { VERDICT_COLUMNS, verdictRows } from "../../core/export/verdicts.js";
import { serializeAttempt } from "../../core/ingest/fire-jsonl.js";
import { currentClusters } from "../../core/mine/session.js";
import { readScreenRows } from "../../core/screening/results/analysis.js";
import { openWorkspace, printErrors, withWorkspace, workspaceDir } from "../util/workspace.js";

const TABLES = ["attempts", "labels", "clusters", "verdicts", "screen"] as const;
type Table = (typeof TABLES)[number];

interface Exported {
  text: string;
  rows: number;
  /** Bad input lines skipped (the good rows around them are exported). */
  errors?: InputError[];
}

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
  opts: Opts,
  table: Table,
  name: string | undefined,
  format: ExportFormat,
): Promise<Exported> {
  if (table === "verdicts") {
    const session = candidateSession(workspaceDir(opts));
    const rows = await verdictRows(session);
    return {
      text: renderTableExport(rows, VERDICT_COLUMNS, format),
      rows: rows.length,
      errors: [...session.candidateErrors],
    };
  }
  if (table === "screen") {
    if (name === undefined) throw new UsageError("fire export screen NAME: give the screen's name");
    const { rows, errors } = await readScreenRows(workspaceDir(opts), name);
    return { text: renderTableExport(rows, SCREEN_ROW_COLUMNS, format), rows: rows.length, errors };
  }
  const ws = await openWorkspace(opts);
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

/**
 * `fire export [attempts|labels|clusters|verdicts|screen NAME]`: a table as JSONL / CSV
 * (attempts: fire JSONL).
 */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("export")
      .description(
        "write attempts (fire JSONL), labels, clusters, verdicts or a screen's results (JSONL or CSV) to stdout unless --out",
      )
      .argument("[table]", `what to export: ${TABLES.join(" | ")}`, "attempts")
      .argument("[name]", "the screen (fire export screen NAME)")
      .option("-o, --out <file>", "write to this file (atomically) instead of stdout")
      .option("--portfolio <name>", "export a frozen portfolio instead (see --format)")
      .option("--format <format>", "jsonl | csv for tables; with --portfolio: failproofai"),
  ).action(async (table: string, name: string | undefined, opts: Opts) => {
    if (opts.portfolio !== undefined) {
      const { exportPortfolio } = await import("./portfolio-export.js");
      return exportPortfolio(workspaceDir(opts), opts.portfolio, opts.format, opts.out);
    }
    if (!(TABLES as readonly string[]).includes(table)) {
      throw new UsageError(`unknown export '${table}' (one of: ${TABLES.join(", ")})`);
    }
    const t = table as Table;
    if (name !== undefined && t !== "screen") {
      throw new UsageError(`fire export ${t} takes no name (only fire export screen NAME does)`);
    }
    const format = tableFormat(t, opts.format);
    const { text, rows, errors = [] } = await exportText(opts, t, name, format);
    printErrors(errors);
    if (errors.length) process.exitCode = 1;
    if (opts.out === undefined) {
      process.stdout.write(text);
      return;
    }
    const file = resolve(opts.out);
    await writeFileAtomic(file, text);
    process.stderr.write(`exported ${rows} ${t === "screen" ? `${name} rows` : t} to ${file}\n`);
  });
}
