import { resolve } from "node:path";
import type { Command } from "commander";
import writeFileAtomic from "write-file-atomic";
import { serializeAttempt } from "../../core/ingest/fire-jsonl.js";
import { openWorkspace, withWorkspace, workspaceDir } from "../util/workspace.js";

/** `fire export`: every attempt as fire JSONL (one attempt per line). */
export function registerExport(program: Command): void {
  withWorkspace(
    program
      .command("export")
      .description("write all attempts as fire JSONL (stdout unless --out)")
      .option("-o, --out <file>", "write to this file (atomically) instead of stdout")
      .option("--portfolio <name>", "export a frozen portfolio instead (see --format)")
      .option("--format <format>", "with --portfolio: failproofai"),
  ).action(
    async (opts: { workspace?: string; out?: string; portfolio?: string; format?: string }) => {
      if (opts.portfolio !== undefined) {
        const { exportPortfolio } = await import("./portfolio-export.js");
        return exportPortfolio(workspaceDir(opts), opts.portfolio, opts.format, opts.out);
      }
      const ws = await openWorkspace(opts);
      const text = ws.attempts.map((a) => `${serializeAttempt(a)}\n`).join("");
      if (opts.out === undefined) {
        process.stdout.write(text);
        return;
      }
      const file = resolve(opts.out);
      await writeFileAtomic(file, text);
      process.stderr.write(`exported ${ws.attempts.length} attempts to ${file}\n`);
    },
  );
}
