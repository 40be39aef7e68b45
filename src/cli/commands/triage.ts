import type { Command } from "commander";
import { renderTriage } from "../../core/app/present-mine.js";
import { currentTriage } from "../../core/app/triage.js";
import { print } from "../util/out.js";
import { openCurrent, printJson, withWorkspace } from "../util/workspace.js";

/** `fire triage`: k/n passes per task and arm, reachable tasks first, exclusions with reasons. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("triage")
      .description(
        "group attempts by task and arm (k/n passes), reachable-but-undelivered first; list exclusions",
      )
      .option("--json", "print {tasks, exclusions, inScope} as JSON"),
  ).action(async (opts: { workspace?: string; json?: boolean }) => {
    const ws = await openCurrent(opts);
    // Fault checks, the last mining run's labels and the user's decisions, as the workbench
    // (the last answer while none of them changed).
    const triage = await currentTriage(ws);
    if (opts.json) printJson(triage);
    else print(renderTriage(triage));
  });
}
