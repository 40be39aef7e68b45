import type { Command } from "commander";
import { cachedTriage, cachedTriageText } from "../../core/app/cached-reads.js";
import { print, printKept } from "../util/out.js";
import { openCurrent, openHead, printJson, withWorkspace } from "../util/workspace.js";

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
    // the last answer while nothing it reads changed, from the index's head alone; else
    // fault checks, the last mining run's labels and the user's decisions, as the workbench
    // (computing triage loads only then)
    const head = await openHead(opts);
    if (opts.json) {
      const cached = head && (await cachedTriage(head));
      if (cached) printJson(cached);
      else
        printJson(
          await (await import("../../core/app/triage.js")).currentTriage(await openCurrent(opts)),
        );
      return;
    }
    const kept = head && (await cachedTriageText(head));
    if (kept !== undefined)
      await printKept({ stdout: kept, stderr: "" }); // stored printable
    else
      print(await (await import("../../core/app/triage.js")).triageText(await openCurrent(opts)));
  });
}
