import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { ConflictError, describeZodIssues, InputError, parseJsonText } from "../../errors.js";
import { loadPolicySource } from "../../freeze/policy-source.js";
import { lineOf } from "../../policy/load.js";
import { Candidate } from "../../policy/schema.js";
import { sha256Json } from "../canonical.js";
import { screenPaths } from "../paths.js";
import { type BuiltPlan, candidatesHash, planBodyHash } from "./build.js";
import { ScreenPlan } from "./schema.js";

/** Writes the arms' candidate files and then `plan.json`, atomically; never over a plan. */
export async function writePlan(workspace: string, built: BuiltPlan): Promise<string> {
  const paths = screenPaths(workspace, built.plan.name);
  if (existsSync(paths.plan)) {
    throw new ConflictError(
      `screen "${built.plan.name}" already has a plan (${paths.plan}); a plan is fixed before running`,
      "name",
    );
  }
  for (const [rel, c] of Object.entries(built.files)) {
    const file = join(paths.dir, rel);
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, `${JSON.stringify(c, null, 2)}\n`);
  }
  await mkdir(paths.dir, { recursive: true });
  await writeFileAtomic(paths.plan, `${JSON.stringify(built.plan, null, 2)}\n`);
  return paths.plan;
}

/**
 * THE reader of `plan.json`: reads and validates it against `ScreenPlan` (no integrity
 * check; `readIntactPlan` adds one). Every consumer of a plan goes through this or
 * `readPlanIfAny`.
 */
export async function readPlan(workspace: string, name: string): Promise<ScreenPlan> {
  const file = screenPaths(workspace, name).plan;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(
      file,
      undefined,
      code === "ENOENT"
        ? `no plan for screen "${name}" (run \`fire screen plan\` first)`
        : `cannot read: ${(err as Error).message}`,
    );
  }
  const r = ScreenPlan.safeParse(parseJsonText(text, file));
  if (!r.success)
    throw new InputError(
      file,
      lineOf(text, r.error.issues[0]?.path ?? []),
      describeZodIssues(r.error.issues),
    );
  return r.data;
}

/** The screen's plan, or undefined when it has none; a plan that does not validate throws. */
export async function readPlanIfAny(
  workspace: string,
  name: string,
): Promise<ScreenPlan | undefined> {
  if (!existsSync(screenPaths(workspace, name).plan)) return undefined;
  return readPlan(workspace, name);
}

async function armHash(dir: string, files: readonly string[]): Promise<string | string[]> {
  const cs: Candidate[] = [];
  const problems: string[] = [];
  for (const rel of files) {
    try {
      const r = Candidate.safeParse(JSON.parse(await readFile(join(dir, rel), "utf8")));
      if (r.success) cs.push(r.data);
      else problems.push(`${rel}: ${describeZodIssues(r.error.issues)}`);
    } catch (err) {
      problems.push(`${rel}: ${(err as Error).message}`);
    }
  }
  return problems.length ? problems : candidatesHash(cs);
}

/**
 * Re-hashes everything the plan fixed — the plan body, the task list, the schedule, every
 * arm's candidate files and the policy source — and lists what changed since planning.
 */
export async function checkPlan(workspace: string, plan: ScreenPlan): Promise<string[]> {
  const paths = screenPaths(workspace, plan.name);
  const problems: string[] = [];
  if (planBodyHash(plan) !== plan.hashes.plan) problems.push("plan.json was edited after planning");
  if (sha256Json(plan.tasks) !== plan.hashes.tasks) problems.push("the task list changed");
  if (sha256Json(plan.schedule) !== plan.hashes.schedule) problems.push("the schedule changed");
  for (const arm of plan.arms) {
    const h = await armHash(paths.dir, arm.files);
    if (Array.isArray(h)) problems.push(...h.map((p) => `arm ${arm.name}: ${p}`));
    else if (h !== arm.sha256) problems.push(`arm ${arm.name}: its candidate files changed`);
  }
  const src = isAbsolute(plan.source.path)
    ? plan.source.path
    : resolve(workspace, plan.source.path);
  const loaded = loadPolicySource(src);
  if (loaded.errors.length) {
    problems.push(`policy source ${plan.source.path}: ${loaded.errors[0]?.format()}`);
  } else if (candidatesHash(loaded.policies.map((p) => p.candidate)) !== plan.source.sha256) {
    problems.push(`policy source ${plan.source.path} changed since planning`);
  }
  return problems;
}

/** Reads the plan and refuses (InputError) when anything it fixed has changed. */
export async function readIntactPlan(workspace: string, name: string): Promise<ScreenPlan> {
  const plan = await readPlan(workspace, name);
  const problems = await checkPlan(workspace, plan);
  if (problems.length) {
    throw new InputError(
      screenPaths(workspace, name).plan,
      undefined,
      `refusing to run: ${problems.join("; ")} (plan a new screen under another name)`,
    );
  }
  return plan;
}
