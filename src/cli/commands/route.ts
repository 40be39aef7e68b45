import type { Command } from "commander";
import { renderRouteAudit } from "../../core/app/present-route.js";
import { currentRoutingAudit } from "../../core/app/route-current.js";
import { print } from "../util/out.js";
import { openCurrent, printErrors, printJson, withWorkspace } from "../util/workspace.js";

/** `fire route [--json]`: the routing audit of every live candidate over every task text. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("route")
      .description(
        "routing audit: each candidate's eligibility on each task text (matched phrase, multi-family tasks, idle candidates, silent tasks)",
      )
      .option("--json", "print the audit as JSON")
      .option("--all", "include retired candidates"),
  ).action(async (opts: { workspace?: string; json?: boolean; all?: boolean }) => {
    // the audit reads candidates and task texts only: no labels, decisions or triage
    const ws = await openCurrent(opts);
    // the last audit while the attempts and candidate files are unchanged
    const { audit, errors } = await currentRoutingAudit(ws, { includeRetired: opts.all === true });
    printErrors(errors);
    if (opts.json) printJson(audit);
    else print(renderRouteAudit(audit));
    if (errors.length) process.exitCode = 1;
  });
}
