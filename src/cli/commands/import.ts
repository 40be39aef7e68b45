import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import { updateConfig } from "../../core/workspace/config.js";
import { storedDigest } from "../../core/workspace/index-file.js";
import { loadWorkspace } from "../../core/workspace/load.js";
import { coveredBy, sourceEntry } from "../../core/workspace/sources.js";
import { print } from "../util/out.js";
import { openWorkspace, printJson, withWorkspace, workspaceDir } from "../util/workspace.js";

interface ImportOptions {
  workspace?: string;
  json?: boolean;
  strict?: boolean;
}

/** `fire import <path…>`: adds the paths to `sources` and indexes them. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("import")
      .description("add trace files or folders to the workspace sources and index them")
      .argument("<paths...>", "files, folders or job/run directories of agent traces")
      .option("--json", 'print one JSON object {"attempts", "byFormat", "errors"}')
      .option("--strict", "exit 1 when any input error was found"),
  ).action(async (paths: string[], opts: ImportOptions) => {
    const dir = workspaceDir(opts);
    const absPaths = paths.map((p) => resolve(p));
    absPaths.forEach((abs, i) => {
      try {
        lstatSync(abs);
      } catch {
        throw new UsageError(`no such file or directory: ${paths[i]}`);
      }
    });
    const entries = absPaths.map((abs) => sourceEntry(dir, abs));
    const ws = await openWorkspace(opts, entries);
    await updateConfig(dir, (raw) => {
      const sources = [...(raw.sources ?? ["traces/"])];
      absPaths.forEach((abs, i) => {
        if (!coveredBy(dir, sources, abs)) sources.push(entries[i]!);
      });
      return { ...raw, sources };
    });
    // Keep the workspace index (the workbench's warm open) fresh: a read of all sources,
    // from the parse cache but for what was just imported, rewrites it.
    if (storedDigest(dir)) await loadWorkspace(dir);
    if (opts.json) {
      printJson({
        attempts: ws.attempts.length,
        byFormat: ws.byFormat,
        errors: ws.errors.map((e) => e.toJSON()),
      });
    } else {
      for (const e of ws.errors) process.stderr.write(`${e.format()}\n`);
      const formats = Object.entries(ws.byFormat)
        .map(([f, n]) => `${f} ${n}`)
        .join(", ");
      print(
        `imported ${ws.attempts.length} attempts${formats ? ` (${formats})` : ""} from ${paths.length} path${paths.length === 1 ? "" : "s"}; ${ws.errors.length} error${ws.errors.length === 1 ? "" : "s"}\n`,
      );
    }
    if (opts.strict && ws.errors.length > 0) process.exitCode = 1;
  });
}
