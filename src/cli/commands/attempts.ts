import type { Command } from "commander";
import { attemptRow, isFailed } from "../util/attempt-row.js";
import { print, printErr } from "../util/out.js";
import { clip, renderTable } from "../util/table.js";
import { openCurrent, printJson, withWorkspace } from "../util/workspace.js";

interface AttemptsOptions {
  workspace?: string;
  failed?: boolean;
  task?: string;
  json?: boolean;
}

/** `fire attempts`: the attempts of the workspace, as a table or JSON rows. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("attempts")
      .description("list the attempts of the workspace")
      .option("--failed", "only attempts that failed, errored or timed out")
      .option("--task <taskId>", "only attempts of this task")
      .option(
        "--json",
        "print a JSON array of {id, taskId, outcome, reward, agent, model, format, nEvents}",
      ),
  ).action(async (opts: AttemptsOptions) => {
    const ws = await openCurrent(opts);
    const rows = ws.attempts
      .filter((a) => !opts.failed || isFailed(a))
      .filter((a) => opts.task === undefined || a.taskId === opts.task)
      .map((a) => attemptRow(ws, a));
    if (ws.errors.length > 0) {
      printErr(`${ws.errors.length} input errors (run \`fire\` to see them)\n`);
    }
    if (opts.json) {
      printJson(rows);
      return;
    }
    const table = renderTable(
      ["id", "task", "outcome", "reward", "events", "agent", "model", "format"],
      rows.map((r) => [
        clip(r.id, 48),
        clip(r.taskId, 40),
        r.outcome,
        r.reward === null ? "-" : String(r.reward),
        r.nEvents,
        clip(r.agent ?? "-", 16),
        clip(r.model ?? "-", 24),
        r.format,
      ]),
    );
    print(`${table}\n${rows.length} of ${ws.attempts.length} attempts\n`);
  });
}
