import type { Command } from "commander";
import writeFileAtomic from "write-file-atomic";
import {
  loadScreenAnalysis,
  renderReportHtml,
  renderReportMarkdown,
  renderReportText,
  screenReportFile,
  toReportJson,
} from "../../core/app/results.js";
import { UsageError } from "../../core/errors.js";
import { print } from "../util/out.js";
import { printErrors, printJson, withWorkspace, workspaceDir } from "../util/workspace.js";

interface ReportOpts {
  json?: boolean;
  md?: boolean;
  html?: boolean | string;
  workspace?: string;
  seed?: string;
}

/** `fire report NAME [--json|--md|--html [FILE]]`: a screen's statistics. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("report")
      .description(
        "report a screen: arms, contrasts (Δ, 95% CI, p, tasks), forest plot, funnel, transitions",
      )
      .argument("<name>", "screen name (screens/<name>/)")
      .option("--json", "machine-readable JSON on stdout")
      .option("--md", "Markdown on stdout")
      .option("--html [file]", "write an HTML report (default screens/<name>/report.html)")
      .option("--seed <seed>", "override the seed of bootstrap and random flips"),
  ).action(async (name: string, opts: ReportOpts) => {
    const formats = [opts.json, opts.md, opts.html].filter(Boolean).length;
    if (formats > 1) throw new UsageError("choose one of --json, --md, --html");
    const seed =
      opts.seed === undefined
        ? undefined
        : /^-?\d+$/.test(opts.seed)
          ? Number(opts.seed)
          : opts.seed;
    const { analysis, errors, harbor } = await loadScreenAnalysis(
      workspaceDir(opts),
      name,
      seed === undefined ? {} : { seed },
    );
    printErrors(errors);
    if (opts.json) {
      printJson(toReportJson(name, analysis, harbor));
    } else if (opts.md) {
      print(renderReportMarkdown(name, analysis, harbor));
    } else if (opts.html) {
      const file =
        typeof opts.html === "string" ? opts.html : screenReportFile(workspaceDir(opts), name);
      await writeFileAtomic(file, renderReportHtml(name, analysis, harbor));
      print(`wrote ${file}\n`);
    } else {
      print(renderReportText(name, analysis, harbor));
    }
    if (errors.length) process.exitCode = 1;
  });
}
