import type { Command } from "commander";
import { importScreen } from "../../core/app/results.js";
import { UsageError } from "../../core/errors.js";
import { ARM_NAMES, ArmName } from "../../core/model/arm.js";
import { printResult } from "../util/out.js";
import { printErrors, withWorkspace, workspaceDir } from "../util/workspace.js";
import { registerScreenPlan } from "./screen-plan.js";
import { registerScreenReplay } from "./screen-replay.js";
import { registerScreenRun } from "./screen-run.js";
import { registerScreenStatus } from "./screen-status.js";

interface ImportOpts {
  workspace?: string;
  arm?: string;
  replicate?: string;
  json?: boolean;
}

/** `fire screen …`: import results, plan and run screens. */
export function register(program: Command): void {
  const screen = program.command("screen").description("plan, run and import policy screens");
  registerScreenPlan(screen);
  registerScreenRun(screen);
  registerScreenReplay(screen);
  registerScreenStatus(screen);

  withWorkspace(
    screen
      .command("import")
      .description(
        "import results (CSV/JSONL of task,arm,attempt,pass or Harbor job dirs) into a screen",
      )
      .argument("<name>", "screen name (screens/<name>/)")
      .argument("<input>", "a CSV or JSONL file, or a directory of Harbor jobs/trials")
      .option("--arm <arm>", "tag every imported attempt with this arm")
      .option("--replicate <n>", "tag every imported attempt with this replicate")
      .option(
        "--json",
        "print {name, resultsFile, read, added, replaced, total, unscorable, errors} as JSON",
      ),
  ).action(async (name: string, input: string, opts: ImportOpts) => {
    let replicate: number | undefined;
    if (opts.replicate !== undefined) {
      if (!/^\d+$/.test(opts.replicate)) throw new UsageError("--replicate must be a whole number");
      replicate = Number(opts.replicate);
    }
    const arm = opts.arm === undefined ? undefined : ArmName.safeParse(opts.arm).data;
    if (opts.arm !== undefined && !arm)
      throw new UsageError(`--arm takes one of ${ARM_NAMES.join(", ")} (not ${opts.arm})`);
    const result = await importScreen(workspaceDir(opts), name, input, {
      ...(arm ? { arm } : {}),
      ...(replicate !== undefined ? { replicate } : {}),
    });
    if (!opts.json) printErrors(result.errors);
    printResult(
      opts.json,
      { name, ...result, errors: result.errors.map((e) => e.toJSON()) },
      () =>
        `imported ${result.read} row(s) into ${result.resultsFile}: ${result.added} new, ${result.replaced} replaced, ${result.total} stored` +
        (result.unscorable ? `; ${result.unscorable} unscorable` : "") +
        (result.errors.length ? `; ${result.errors.length} bad row(s) skipped` : "") +
        "\n",
    );
    if (result.errors.length) process.exitCode = 1;
  });
}
