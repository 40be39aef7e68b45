import type { Command } from "commander";
import { importSources } from "../../core/app/workspace.js";
import { print, printErr } from "../util/out.js";
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
    const ws = await importSources(dir, paths, (sources) => openWorkspace(opts, sources));
    if (opts.json) {
      printJson({
        attempts: ws.attempts.length,
        byFormat: ws.byFormat,
        errors: ws.errors.map((e) => e.toJSON()),
      });
    } else {
      for (const e of ws.errors) printErr(`${e.format()}\n`);
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
