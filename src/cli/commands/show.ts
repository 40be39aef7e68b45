import type { Command } from "commander";
import { attemptRow, indexedAttempt } from "../../core/app/cached-reads.js";
import type { Attempt, Event } from "../../core/model/attempt.js";
import { print } from "../util/out.js";
import { clip } from "../util/table.js";
import { openCurrent, openHead, printJson, withWorkspace } from "../util/workspace.js";

/** Exact id first, else the one attempt whose id contains `id` anywhere (prefix or not). */
export function findAttempt(attempts: Attempt[], id: string): Attempt {
  return attempts[
    attemptRow(
      attempts.map((a) => a.id),
      id,
    )
  ]!;
}

function eventLine(e: Event): string {
  const head = `#${e.index} ${e.kind}${e.tool ? ` ${e.tool}` : ""}`;
  const body = e.command ?? e.input ?? e.hook?.text ?? "";
  const tail: string[] = [];
  if (e.exitCode !== undefined) tail.push(`exit ${e.exitCode}`);
  if (e.isError) tail.push("error");
  if (e.hook) tail.push(`hook ${e.hook.event}${e.hook.decision ? ` ${e.hook.decision}` : ""}`);
  const out = e.output ? `\n      → ${clip(e.output, 100)}` : "";
  return `  ${head}${body ? `: ${clip(body, 100)}` : ""}${tail.length ? ` [${tail.join(", ")}]` : ""}${out}`;
}

/** Readable rendering of one attempt: identity, outcome, then every event on a line. */
export function renderAttempt(a: Attempt): string {
  const lines = [
    `attempt  ${a.id}`,
    `task     ${a.taskId}`,
    `outcome  ${a.outcome}${a.reward === undefined || a.reward === null ? "" : ` (reward ${a.reward})`}`,
    `agent    ${a.agent ?? "-"} / ${a.model ?? "-"}  arm ${a.arm}`,
    `source   ${a.source.format} ${a.source.path}`,
  ];
  if (a.exception)
    lines.push(`exception ${a.exception.type}: ${clip(a.exception.message ?? "", 100)}`);
  if (a.costUsd !== undefined && a.costUsd !== null) lines.push(`cost     $${a.costUsd}`);
  lines.push("", `task text: ${clip(a.taskText, 300)}`, "", `events (${a.events.length}):`);
  lines.push(...a.events.map(eventLine));
  return `${lines.join("\n")}\n`;
}

/** `fire show <attempt-id>`: the whole normalized attempt. */
export function register(program: Command): void {
  withWorkspace(
    program
      .command("show")
      .description("show one normalized attempt in full")
      .argument("<attempt-id>", "attempt id (or any unique part of one)")
      .option("--json", "print the attempt as JSON"),
  ).action(async (id: string, opts: { workspace?: string; json?: boolean }) => {
    // from the index's row and its unit's parse-cache entry while the index matches the
    // sources; else the workspace is opened (read again, visibly, when they changed)
    const head = await openHead(opts);
    const attempt =
      (head && indexedAttempt(head, id)) ?? findAttempt((await openCurrent(opts)).attempts, id);
    if (opts.json) printJson(attempt);
    else print(renderAttempt(attempt));
  });
}
