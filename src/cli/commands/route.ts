import type { Command } from "commander";
import { renderRouteAudit } from "../../core/app/present.js";
import { routingAudit } from "../../core/app/route.js";
import { candidateSession } from "../../core/app/session.js";
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
    const { candidates, candidateErrors: errors } = candidateSession(ws.dir);
    printErrors(errors);
    const audit = routingAudit({ ws, candidates }, { includeRetired: opts.all === true });
    if (opts.json) printJson(audit);
    else print(renderRouteAudit(audit));
    if (errors.length) process.exitCode = 1;
  });
}
