import type { Command } from "commander";
import { loadDecisions, userExclusions } from "../../core/mine/decisions.js";
import { lastLabels } from "../../core/mine/label-cache.js";
import { renderTriage } from "../../core/mine/render.js";
import { triage } from "../../core/mine/triage.js";
import { openWorkspace, printJson, withWorkspace } from "../util/workspace.js";

/** `fire triage`: k/n passes per task and arm, reachable tasks first, exclusions with reasons. */
export function registerTriage(program: Command): void {
  withWorkspace(
    program
      .command("triage")
      .description(
        "group attempts by task and arm (k/n passes), reachable-but-undelivered first; list exclusions",
      )
      .option("--json", "print {tasks, exclusions, inScope} as JSON"),
  ).action(async (opts: { workspace?: string; json?: boolean }) => {
    const ws = await openWorkspace(opts);
    // After a `fire mine`, the labeller's capability_gap / no_intervention_point exclusions apply too.
    const labels = await lastLabels(ws.dir);
    const { decisions } = await loadDecisions(ws.dir);
    const t = triage(ws.attempts, {
      verifierFaultMarkers: ws.config.mining.verifierFaultMarkers,
      ...(labels ? { labels } : {}),
      userExcluded: userExclusions(decisions),
    });
    if (opts.json) printJson(t);
    else process.stdout.write(renderTriage(t));
  });
}
