import { readFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type { Command } from "commander";
import { InputError, UsageError } from "../../core/errors.js";
import { loadPolicies } from "../../core/policy/load.js";
import { checkScreenName } from "../../core/screen/paths.js";
import { buildPlan } from "../../core/screen/plan/build.js";
import { writePlan } from "../../core/screen/plan/plan-file.js";
import { ARM_NAMES, type ArmName } from "../../core/screen/plan/schema.js";
import { selectPlanTasks } from "../../core/screen/plan/select-tasks.js";
import { type ListedTask, parseTaskList } from "../../core/screen/plan/task-list.js";
import { loadWorkspace } from "../../core/workspace/load.js";
import { withWorkspace, workspaceDir } from "../util/workspace.js";

interface PlanOpts {
  portfolio?: string;
  candidate?: string;
  tasks?: string;
  cohort?: string;
  arms: string;
  attempts: string;
  seed: string;
  name?: string;
  workspace?: string;
}

const list = (s: string): string[] =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

async function readTaskList(file: string): Promise<ListedTask[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new InputError(file, undefined, `cannot read the task list: ${(err as Error).message}`);
  }
  const parsed = parseTaskList(text, file);
  if (parsed.errors.length) throw parsed.errors[0];
  return parsed.tasks;
}

/** `fire screen plan`: fixes tasks, arms, attempts and a seeded schedule, hashed. */
export function registerScreenPlan(screen: Command): void {
  withWorkspace(
    screen
      .command("plan")
      .description(
        "plan a screen: tasks by cohort, arms, attempts and a seeded schedule, all hashed",
      )
      .option("--portfolio <path>", "the policy arm: a portfolio (folder of candidates)")
      .option("--candidate <file>", "the policy arm: one candidate file")
      .option("--tasks <file>", "task list: one `task` or `task,cohort` a line")
      .option(
        "--cohort <list>",
        "cohorts from the workspace's tasks: eligible,silent by eligibility, or positive (the candidate's lineage tasks),nearby-negative (other eligible tasks),silent",
      )
      .option("--arms <list>", "arms", ARM_NAMES.join(","))
      .option("--attempts <n>", "attempts (replicates) per task and arm", "2")
      .option("--seed <seed>", "seed of the schedule and of the statistics", "1")
      .option("--name <name>", "screen name (default: the policy's file name)"),
  ).action(async (opts: PlanOpts) => {
    const sourceArg = opts.portfolio ?? opts.candidate;
    if (!sourceArg || (opts.portfolio && opts.candidate)) {
      throw new UsageError("give exactly one of --portfolio P or --candidate C");
    }
    if (!opts.tasks && !opts.cohort)
      throw new UsageError("give --tasks FILE or --cohort eligible,silent");
    if (!/^[1-9]\d*$/.test(opts.attempts))
      throw new UsageError("--attempts must be a positive whole number");
    const arms = list(opts.arms);
    const badArm = arms.find((a) => !(ARM_NAMES as readonly string[]).includes(a));
    if (badArm || arms.length === 0 || new Set(arms).size !== arms.length) {
      throw new UsageError(
        `--arms takes distinct names from ${ARM_NAMES.join(", ")}${badArm ? ` (not ${badArm})` : ""}`,
      );
    }
    const workspace = workspaceDir(opts);
    const src = resolve(sourceArg);
    const loaded = loadPolicies([src]);
    if (loaded.errors.length) throw loaded.errors[0];
    if (loaded.policies.length === 0) throw new UsageError(`no candidate policies in ${sourceArg}`);

    const listed = opts.tasks ? await readTaskList(opts.tasks) : undefined;
    const tasks = await selectPlanTasks({
      policies: loaded.policies,
      ...(listed ? { listed } : {}),
      cohorts: list(opts.cohort ?? ""),
      attempts: async () => (await loadWorkspace(workspace)).attempts,
    });
    if (tasks.length === 0)
      throw new UsageError(
        "no tasks selected (check --tasks / --cohort and the workspace's traces)",
      );

    const seed = /^-?\d+$/.test(opts.seed) ? Number(opts.seed) : opts.seed;
    const name = checkScreenName(
      opts.name ??
        (loaded.policies.length === 1 ? (loaded.policies[0]?.id ?? "screen") : "portfolio"),
    );
    const rel = relative(workspace, src);
    const built = buildPlan({
      name,
      seed,
      attempts: Number(opts.attempts),
      arms: arms as ArmName[],
      source: {
        kind: opts.portfolio ? "portfolio" : "candidate",
        path: rel.startsWith("..") || isAbsolute(rel) ? src : rel,
      },
      candidates: loaded.policies.map((p) => p.candidate),
      tasks,
      createdAt: new Date().toISOString(),
    });
    const file = await writePlan(workspace, built);
    const byCohort = new Map<string, number>();
    for (const t of built.plan.tasks) byCohort.set(t.cohort, (byCohort.get(t.cohort) ?? 0) + 1);
    process.stdout.write(
      `planned screen ${name}: ${built.plan.tasks.length} task(s) (${[...byCohort].map(([c, n]) => `${c} ${n}`).join(", ")}), arms ${arms.join(", ")}, ${built.plan.attempts} attempt(s), ${built.plan.schedule.length} cell(s), seed ${seed}\nwrote ${file}\n`,
    );
  });
}
