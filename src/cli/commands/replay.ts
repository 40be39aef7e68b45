import type { Command } from "commander";
import { type AttemptReplay, loadPolicies, replayAttempts } from "../../core/app/replay.js";
import { InputError, UsageError } from "../../core/errors.js";
import { print, printErr } from "../util/out.js";
import { clip, renderTable } from "../util/table.js";
import { openWorkspace, printErrors, printJson, withWorkspace } from "../util/workspace.js";

interface ReplayOptions {
  workspace?: string;
  policy?: string[];
  json?: boolean;
}

function firingText(r: AttemptReplay): string {
  if (r.firings.length === 0) return "-";
  return r.firings
    .map((f) => `${f.ruleId}@${f.eventIndex}:${f.action}${f.beforeLastAction ? "" : "(late)"}`)
    .join(" ");
}

/** `fire replay`: run policies over stored attempts with the same evaluator the hook uses. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("replay")
      .description(
        "replay candidate policies over stored attempts: eligibility, firings, behaviour markers",
      )
      .argument("[sources...]", "trace sources (default: the workspace's configured sources)")
      .requiredOption(
        "-p, --policy <file|dir>",
        "candidate file or folder (repeatable)",
        (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
      )
      .option("--json", "print {attempts, summary, errors} as JSON"),
  ).action(async (sources: string[], opts: ReplayOptions) => {
    const paths = opts.policy ?? [];
    if (paths.length === 0) throw new UsageError("--policy is required");
    const loaded = loadPolicies(paths);
    if (loaded.policies.length === 0) {
      throw loaded.errors[0] ?? new InputError(paths[0]!, undefined, "no candidate files found");
    }
    const ws = await openWorkspace(opts, sources.length > 0 ? sources : undefined);
    const result = replayAttempts(loaded.policies, ws.attempts);
    const errors = [...loaded.errors, ...ws.errors];
    if (opts.json) {
      printJson({ ...result, errors: errors.map((e) => e.toJSON()) });
      return;
    }
    printErrors(loaded.errors);
    const rows = result.attempts.map((r) => [
      clip(r.attemptId, 40),
      clip(r.taskId, 32),
      r.outcome,
      r.policies
        .filter((p) => p.eligible)
        .map((p) => p.family)
        .join(",") || "-",
      clip(firingText(r), 60),
      r.policies
        .filter((p) => p.behavior)
        .map((p) => p.family)
        .join(",") || "-",
    ]);
    print(
      `${renderTable(["attempt", "task", "outcome", "eligible", "firings", "behaviour"], rows)}\n\n`,
    );
    const summary = result.summary.map((s) => [
      `${s.policyId}@${s.version}`,
      s.family,
      s.eligible,
      s.fired,
      s.firings,
      s.behavior,
    ]);
    print(
      `${renderTable(["policy", "family", "eligible", "fired", "firings", "behaviour"], summary)}\n`,
    );
    print(
      `${result.attempts.length} attempts, ${loaded.policies.length} policies; (late) = at or after the last agent action\n`,
    );
    if (ws.errors.length > 0) {
      printErr(`${ws.errors.length} input errors (run \`fire\` to see them)\n`);
    }
  });
}
