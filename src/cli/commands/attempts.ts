import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import {
  type ComputedOutput,
  codeStamp,
  keepOutput,
  keptOutput,
} from "../../core/app/cached-reads.js";
import { fmtReward } from "../../core/app/format.js";
import { printable } from "../../core/printable.js";
import type { Workspace } from "../../core/workspace/load.js";
import { jsonText, printKept } from "../util/out.js";
import { clip, renderTable } from "../util/table.js";
import { openCurrent, openHead, withWorkspace } from "../util/workspace.js";

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
    // what it printed last with these options, while the attempts and the code are unchanged
    const parts = {
      failed: opts.failed === true,
      task: opts.task ?? null,
      json: opts.json === true,
      code: codeStamp(join(dirname(fileURLToPath(import.meta.url)), "..")),
    };
    const head = await openHead(opts);
    const kept = head && keptOutput(head, "attempts", parts);
    if (kept) {
      await printKept(kept);
      return;
    }
    const ws = await openCurrent(opts);
    const out = await attemptsOutput(ws, opts);
    await printKept(out);
    await keepOutput(ws, "attempts", parts, out);
  });
}

/** What `fire attempts` prints (stdout and stderr, printable) for a workspace. */
async function attemptsOutput(ws: Workspace, opts: AttemptsOptions): Promise<ComputedOutput> {
  // the rows' helpers read the index (loaded only when the kept output cannot serve)
  const { attemptRow, isFailed } = await import("../util/attempt-row.js");
  const rows = ws.attempts
    .filter((a) => !opts.failed || isFailed(a))
    .filter((a) => opts.task === undefined || a.taskId === opts.task)
    .map((a) => attemptRow(ws, a));
  const stderr =
    ws.errors.length > 0
      ? printable(`${ws.errors.length} input errors (run \`fire\` to see them)\n`)
      : "";
  if (opts.json) return { stdout: jsonText(rows), stderr };
  const table = renderTable(
    ["id", "task", "outcome", "reward", "events", "agent", "model", "format"],
    rows.map((r) => [
      clip(r.id, 48),
      clip(r.taskId, 40),
      r.outcome,
      r.reward === null ? "-" : fmtReward(r.reward),
      r.nEvents,
      clip(r.agent ?? "-", 16),
      clip(r.model ?? "-", 24),
      r.format,
    ]),
  );
  return {
    stdout: printable(`${table}\n${rows.length} of ${ws.attempts.length} attempts\n`),
    stderr,
  };
}
