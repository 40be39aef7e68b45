import { readFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import { loadPolicies } from "../../core/policy/load.js";
import { classifyTasks, focusCohorts, taskTexts } from "../../core/screen/cohorts.js";
import { checkScreenName } from "../../core/screen/paths.js";
import { buildPlan } from "../../core/screen/plan.js";
import { ARM_NAMES, type ArmName, type PlanTask } from "../../core/screen/plan-schema.js";
import { writePlan } from "../../core/screen/plan-store.js";
import { parseTaskList } from "../../core/screen/task-list.js";
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

interface WorkspaceTasks {
  texts: Array<{ id: string; text: string }>;
  taskOf: Map<string, string>;
}

async function workspaceTasks(workspace: string): Promise<WorkspaceTasks> {
  const ws = await loadWorkspace(workspace);
  return {
    texts: taskTexts(ws.attempts),
    taskOf: new Map(ws.attempts.map((a) => [a.id, a.taskId])),
  };
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

    let known: WorkspaceTasks | undefined;
    const routed = async (): Promise<Map<string, PlanTask>> => {
      known ??= await workspaceTasks(workspace);
      let tasks = classifyTasks(known.texts, loaded.policies);
      const wanted = list(opts.cohort ?? "");
      if (wanted.includes("positive") || wanted.includes("nearby-negative")) {
        const taskOf = known.taskOf;
        const positive = new Set(
          loaded.policies.flatMap((p) =>
            p.candidate.lineage.attempts.flatMap((id) => taskOf.get(id) ?? []),
          ),
        );
        tasks = focusCohorts(tasks, positive);
      }
      return new Map(tasks.map((t) => [t.id, t]));
    };
    let tasks: PlanTask[];
    if (opts.tasks) {
      const parsed = parseTaskList(await readFile(opts.tasks, "utf8"), opts.tasks);
      if (parsed.errors.length) throw parsed.errors[0];
      const needRouting = parsed.tasks.some((t) => !t.cohort);
      const route = needRouting ? await routed() : new Map<string, PlanTask>();
      tasks = parsed.tasks.map((t) =>
        t.cohort
          ? { id: t.id, cohort: t.cohort }
          : (route.get(t.id) ?? { id: t.id, cohort: "unrouted" }),
      );
    } else {
      const wanted = new Set(list(opts.cohort ?? ""));
      tasks = [...(await routed()).values()].filter((t) => wanted.has(t.cohort));
    }
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
