import type { Attempt } from "../../core/model/attempt.js";
import type { Workspace } from "../../core/workspace/load.js";
import { clip, renderTable } from "./table.js";

/** Tasks listed one by one before the summary folds the rest into a count. */
const MAX_TASK_ROWS = 25;
const MAX_ERROR_ROWS = 3;

export interface TaskTally {
  taskId: string;
  passed: number;
  total: number;
}

/** Passing attempts k out of n attempts, per task, in task order. */
export function tallyTasks(attempts: Attempt[]): TaskTally[] {
  const byTask = new Map<string, TaskTally>();
  for (const a of attempts) {
    const t = byTask.get(a.taskId) ?? { taskId: a.taskId, passed: 0, total: 0 };
    t.total++;
    if (a.outcome === "pass") t.passed++;
    byTask.set(a.taskId, t);
  }
  return [...byTask.values()].sort((a, b) => (a.taskId < b.taskId ? -1 : 1));
}

const HOW_TO = [
  "How to use the CLI:",
  "  fire import <path…> [--json]        add traces (Harbor, ATIF, Claude Code, Codex, TB1, fire JSONL)",
  "  fire attempts [--failed] [--task T] list attempts",
  "  fire show <attempt-id>              one normalized attempt in full",
  "  fire export [--out FILE]            all attempts as fire JSONL",
  "  fire <command> --help               options of a command; every command takes --workspace DIR",
];

/** The text `fire` prints without arguments: what the workspace holds, then how to go on. */
export function renderSummary(ws: Workspace): string {
  const out: string[] = [`fire workspace ${ws.dir}`, ""];
  const formats = Object.entries(ws.byFormat)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([f, n]) => `${f} ${n}`)
    .join(", ");
  out.push(`  attempts   ${ws.attempts.length}${formats ? ` (${formats})` : ""}`);
  const outcomes = new Map<string, number>();
  for (const a of ws.attempts) outcomes.set(a.outcome, (outcomes.get(a.outcome) ?? 0) + 1);
  const order = ["pass", "fail", "error", "timeout", "unknown"];
  out.push(`  outcomes   ${order.map((o) => `${o} ${outcomes.get(o) ?? 0}`).join(", ")}`);
  const tasks = tallyTasks(ws.attempts);
  const dist = new Map<string, number>();
  for (const t of tasks)
    dist.set(`${t.passed}/${t.total}`, (dist.get(`${t.passed}/${t.total}`) ?? 0) + 1);
  const distText = [...dist.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");
  out.push(`  tasks      ${tasks.length}${distText ? ` (passed k/n → tasks: ${distText})` : ""}`);
  out.push(`  errors     ${ws.errors.length}`);
  const prefix = `${ws.dir}/`;
  for (const e of ws.errors.slice(0, MAX_ERROR_ROWS)) {
    const text = e.format();
    out.push(`    ${clip(text.startsWith(prefix) ? text.slice(prefix.length) : text, 110)}`);
  }
  if (ws.errors.length > MAX_ERROR_ROWS) {
    out.push(`    … ${ws.errors.length - MAX_ERROR_ROWS} more (fire import --json lists them all)`);
  }
  if (tasks.length > 0) {
    out.push("", "Tasks (k/n = passing attempts / attempts):");
    const rows = tasks
      .slice(0, MAX_TASK_ROWS)
      .map((t) => [clip(t.taskId, 60), `${t.passed}/${t.total}`]);
    out.push(
      ...renderTable(["task", "k/n"], rows)
        .split("\n")
        .map((l) => `  ${l}`),
    );
    if (tasks.length > MAX_TASK_ROWS) out.push(`  … ${tasks.length - MAX_TASK_ROWS} more tasks`);
  } else {
    out.push("", "No attempts yet: put traces under traces/ or run `fire import <path>`.");
  }
  out.push("", ...HOW_TO);
  return `${out.join("\n")}\n`;
}
