import type { Command } from "commander";
import { cachedRouteAudit, renderRouteAudit } from "../../core/app/cached-reads.js";
import { print } from "../util/out.js";
import { openCurrent, openHead, printErrors, printJson, withWorkspace } from "../util/workspace.js";

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
    const which = { includeRetired: opts.all === true };
    // the last audit while the attempts and candidate files are unchanged, from the index's
    // head alone; else the audit over the workspace (candidates and task texts only: no
    // labels, decisions or triage)
    const head = await openHead(opts);
    const cached = head && cachedRouteAudit(head, which);
    const { audit, errors } = cached
      ? { audit: cached, errors: [] }
      : await (await import("../../core/app/route-current.js")).currentRoutingAudit(
          await openCurrent(opts),
          which,
        );
    printErrors(errors);
    if (opts.json) printJson(audit);
    else print(renderRouteAudit(audit));
    if (errors.length) process.exitCode = 1;
  });
}
