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
  "  fire import <path…> [--json]        add traces (Harbor, ATIF, Claude Code, Codex, TB1, mini-SWE-agent, OpenHands, AutoCodeRover, …: docs/formats.md)",
  "  fire attempts [--failed] [--task T] list attempts",
  "  fire show <attempt-id>              one normalized attempt in full",
  "  fire export [--out FILE]            all attempts as fire JSONL",
  "  fire <command> --help               options of a command; every command takes --workspace DIR",
];

export interface WorkspaceSummary {
  dir: string;
  attempts: number;
  byFormat: Record<string, number>;
  outcomes: Record<string, number>;
  tasks: TaskTally[];
  /** Tasks per "k/n" (passing attempts / attempts). */
  tasksByKn: Record<string, number>;
  errors: { file: string; line: number | null; message: string }[];
}

const OUTCOME_ORDER = ["pass", "fail", "error", "timeout", "unknown"];

/** What `fire` reports about a workspace: one computation for the text and `--json`. */
export function summaryOf(ws: Workspace): WorkspaceSummary {
  const outcomes: Record<string, number> = Object.fromEntries(OUTCOME_ORDER.map((o) => [o, 0]));
  for (const a of ws.attempts) outcomes[a.outcome] = (outcomes[a.outcome] ?? 0) + 1;
  const tasks = tallyTasks(ws.attempts);
  const tasksByKn: Record<string, number> = {};
  for (const t of [...tasks].sort((a, b) =>
    `${a.passed}/${a.total}` < `${b.passed}/${b.total}` ? -1 : 1,
  ))
    tasksByKn[`${t.passed}/${t.total}`] = (tasksByKn[`${t.passed}/${t.total}`] ?? 0) + 1;
  const byFormat = Object.fromEntries(
    Object.entries(ws.byFormat).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return {
    dir: ws.dir,
    attempts: ws.attempts.length,
    byFormat,
    outcomes,
    tasks,
    tasksByKn,
    errors: ws.errors.map((e) => ({ file: e.file, line: e.line ?? null, message: e.message })),
  };
}

/** The text `fire` prints without arguments: what the workspace holds, then how to go on. */
export function renderSummary(ws: Workspace): string {
  const s = summaryOf(ws);
  const out: string[] = [`fire workspace ${s.dir}`, ""];
  const formats = Object.entries(s.byFormat)
    .map(([f, n]) => `${f} ${n}`)
    .join(", ");
  out.push(`  attempts   ${s.attempts}${formats ? ` (${formats})` : ""}`);
  out.push(`  outcomes   ${OUTCOME_ORDER.map((o) => `${o} ${s.outcomes[o] ?? 0}`).join(", ")}`);
  const tasks = s.tasks;
  const distText = Object.entries(s.tasksByKn)
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
