import { resolve } from "node:path";
import type { Command } from "commander";
import writeFileAtomic from "write-file-atomic";
import {
  EXPORT_FORMATS,
  EXPORT_TABLES,
  type ExportFormat,
  type ExportTable,
  exportTable,
} from "../../core/app/export.js";
import { UsageError } from "../../core/errors.js";
import { printErr } from "../util/out.js";
import { openWorkspace, printErrors, withWorkspace, workspaceDir } from "../util/workspace.js";

const TABLES = EXPORT_TABLES;
type Table = ExportTable;

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
    if (t === "screen" && name === undefined)
      throw new UsageError("fire export screen NAME: give the screen's name");
    const { text, rows, errors } = await exportTable(workspaceDir(opts), t, name, format, () =>
      openWorkspace(opts),
    );
    printErrors(errors);
    if (errors.length) process.exitCode = 1;
    if (opts.out === undefined) {
      process.stdout.write(text);
      return;
    }
    const file = resolve(opts.out);
    await writeFileAtomic(file, text);
    printErr(`exported ${rows} ${t === "screen" ? `${name} rows` : t} to ${file}\n`);
  });
}
