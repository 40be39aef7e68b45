import type { Command } from "commander";
import { planScreen } from "../../core/app/plan.js";
import { UsageError } from "../../core/errors.js";
import { ARM_NAMES, type ArmName } from "../../core/model/arm.js";
import { COHORTS, type Cohort } from "../../core/model/cohort.js";
import { printResult } from "../util/out.js";
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
  json?: boolean;
}

const list = (s: string): string[] =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

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
      .option("--name <name>", "screen name (default: the policy's file name)")
      .option(
        "--json",
        "print {name, file, tasks, cohorts, arms, attempts, cells, seed, hashes} as JSON",
      ),
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
    const cohorts = list(opts.cohort ?? "");
    const badCohort = cohorts.find((c) => !(COHORTS as readonly string[]).includes(c));
    if (badCohort)
      throw new UsageError(`--cohort takes names from ${COHORTS.join(", ")} (not ${badCohort})`);
    const seed = /^-?\d+$/.test(opts.seed) ? Number(opts.seed) : opts.seed;
    const { file, plan, byCohort } = await planScreen({
      workspace: workspaceDir(opts),
      source: { kind: opts.portfolio ? "portfolio" : "candidate", path: sourceArg },
      ...(opts.tasks ? { tasksFile: opts.tasks } : {}),
      cohorts: cohorts as Cohort[],
      arms: arms as ArmName[],
      attempts: Number(opts.attempts),
      seed,
      ...(opts.name ? { name: opts.name } : {}),
    });
    printResult(
      opts.json,
      {
        name: plan.name,
        file,
        tasks: plan.tasks.length,
        cohorts: Object.fromEntries(byCohort),
        arms,
        attempts: plan.attempts,
        cells: plan.schedule.length,
        seed,
        hashes: plan.hashes,
      },
      () =>
        `planned screen ${plan.name}: ${plan.tasks.length} task(s) (${[...byCohort].map(([c, n]) => `${c} ${n}`).join(", ")}), arms ${arms.join(", ")}, ${plan.attempts} attempt(s), ${plan.schedule.length} cell(s), seed ${seed}\nwrote ${file}\n`,
    );
  });
}
