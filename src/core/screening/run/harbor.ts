import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { SANDBOX_LOG_NAME } from "../../deploy/payload-launcher.js";
import type { InputError } from "../../errors.js";
import { DomainError, InvalidFieldError, NotFoundError } from "../../errors.js";
import type { ArmName } from "../../model/arm.js";
import type { Attempt } from "../../model/attempt.js";
import { shellQuote } from "../../shell-quote.js";
import { screenPaths } from "../paths.js";
import { readIntactPlan } from "../plan/plan-file.js";
import { planMarkers } from "../results/plan-markers.js";
import { ResultsWriter } from "../results/results-file.js";
import type { ScreenRow } from "../results/row.js";
import {
  ADAPTER_FILE,
  type AdapterInfo,
  adapterFlags,
  adapterPythonPath,
  checkAdapter,
  checkEnvironment,
  DELIVERY_RECORD,
  type Delivery,
  deliveryFor,
  packNodeRuntimes,
  verifyPayload,
} from "./adapter.js";
import { isProviderFailure, type JobContext, resumableJob, runHarborJob } from "./harbor-job.js";
import { harborProgressText } from "./harbor-progress.js";
import type { ArmHook } from "./hook.js";
import {
  type ArmPayload,
  CONTAINER_LOG,
  ensureStandaloneHook,
  harborHookFlags,
  type PayloadHarness,
  type RebuildHook,
  writeArmPayload,
} from "./payload.js";
import { preflightPayload } from "./payload-preflight.js";
import { startSummary } from "./progress.js";
import { readRunState, StateWriter } from "./state.js";
import { fillTemplate } from "./template.js";
import type { RunCommon, RunSummary } from "./types.js";

/**
 * Default Harbor command: one job per (replicate, arm), one attempt per task, `-y` so that
 * Harbor's prompts (host environment access for a task whose env uses `${VAR}`, "Proceed?")
 * never wait on the runner's closed stdin. `{agentFlags!}` names the agent: `-a {agent}` when
 * the payload is mounted (local Docker), else fire's adapter (`--agent-import-path
 * fire_harbor_agent:FireClaudeCode|FireCodex`, adapter.ts). `{hookFlags!}` delivers the arm's
 * hook payload: `--mounts '<json>'` (payload.ts) or the adapter's `--ak fire_payload=…`
 * kwargs; empty for baseline. `{env}` is `--env` (default docker); `{dataset}`, `{agent}`
 * and `{model}` come from `--var`. Also available: `{mounts}` (the JSON alone),
 * `{payloadDir}`, `{hookCommand}`.
 */
export const DEFAULT_HARBOR_TEMPLATE =
  "{harbor!} run -d {dataset} {agentFlags!} -m {model} --env {env} -k 1 --n-concurrent {concurrency} " +
  "-o {jobsDir} --job-name {jobName} -y {taskFlags!} --ae FIRE_ARM={arm} {hookFlags!}";

export const HARBOR_INSTALL_HINT =
  "Harbor is not installed (or not on PATH). Install it with `uv tool install harbor` (or `pip install harbor`); see https://harborframework.com";

export interface HarborRunOptions extends RunCommon {
  template?: string;
  /** The Harbor executable, run through the shell (default `harbor`). */
  harborBin?: string;
  /** Which agent's settings the payload targets (default claude). */
  harness?: PayloadHarness;
  /** The standalone hook bundle to deliver (default dist/runtime/hook.standalone.mjs). */
  hookFile?: string;
  /** Rebuilds a missing or stale standalone hook (the CLI passes the build's bundler). */
  rebuildHook?: RebuildHook;
  /** Loads the attempts of a finished job folder (the workspace loader). */
  loadAttempts: (dir: string) => Promise<{ attempts: Attempt[]; errors: InputError[] }>;
  /** Harbor's `--env` (default: `{env}` from the vars, else docker). */
  env?: string;
  /** How the payload gets in (default: mounts on docker, the adapter elsewhere). */
  delivery?: Delivery;
  /** The Harbor agent adapter (default: the one shipped with fire). */
  adapterFile?: string;
}

const isDirectory = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Throws a NotFoundError about the `harborBin` field, with install instructions, when Harbor
 * cannot be started.
 */
export function checkHarbor(bin: string): string {
  // Through the shell, so a bin such as `uvx harbor` or `node standin.mjs` works too.
  const r = spawnSync("sh", ["-c", `${bin} --version`], { encoding: "utf8", timeout: 30_000 });
  if (r.error || r.status !== 0) throw new NotFoundError(HARBOR_INSTALL_HINT, "harborBin");
  return r.stdout.trim();
}

/** What a Harbor run decided before any trial: the checks passed, the per-arm flags. */
interface HarborPrepared {
  plan: Awaited<ReturnType<typeof readIntactPlan>>;
  paths: ReturnType<typeof screenPaths>;
  ctx: JobContext;
  env: string;
  delivery: Delivery;
  adapter?: AdapterInfo;
  /** The arm's payload, hook and template variables (payload re-verified on each call). */
  armSetup: (arm: ArmName) => { hook: ArmHook; vars: Record<string, string> };
}

/**
 * Every check that can refuse a run before a trial is paid for: Harbor starts, the
 * environment is one Harbor knows, the standalone hook is current, a node runtime exists
 * for the images, and — with the adapter — the adapter file is there and the command
 * template uses it. Each hooked arm's payload is written and its hashes verified here.
 */
async function prepareHarborRun(opts: HarborRunOptions): Promise<HarborPrepared> {
  const plan = await readIntactPlan(opts.workspace, opts.name);
  const vars = { ...(opts.vars ?? {}) };
  if (opts.env && vars.env && vars.env !== opts.env)
    throw new InvalidFieldError(
      "env",
      `Harbor environment ${opts.env}`,
      `disagrees with the template variable env=${vars.env}`,
    );
  const env = opts.env ?? vars.env ?? "docker";
  vars.env = env;
  checkEnvironment(env);
  const delivery = deliveryFor(env, opts.delivery);
  const adapter =
    delivery === "adapter" ? checkAdapter(opts.adapterFile ?? ADAPTER_FILE) : undefined;
  const bin = opts.harborBin ?? "harbor";
  checkHarbor(bin);
  try {
    await ensureStandaloneHook(opts.hookFile, opts.rebuildHook);
  } catch (err) {
    throw new DomainError(
      "invalid",
      `cannot deliver the hook into Harbor's containers: ${(err as Error).message}`,
    );
  }
  // Refuse before any trial when the payload could not start in the containers.
  const dataset = vars.dataset ?? vars.path;
  const { runtimes } = preflightPayload({
    plan,
    ...(dataset && isDirectory(resolve(opts.workspace, dataset))
      ? { datasetDir: resolve(opts.workspace, dataset) }
      : {}),
  });
  const paths = screenPaths(opts.workspace, opts.name);
  const harness = opts.harness ?? "claude";
  const payloads = new Map<string, { payload: ArmPayload; pin: string }>();
  for (const arm of plan.arms) {
    if (arm.files.length === 0) continue;
    let payload: ArmPayload | undefined;
    try {
      payload = writeArmPayload({
        screenDir: paths.dir,
        plan,
        arm: arm.name,
        harness,
        ...(opts.hookFile ? { hookFile: opts.hookFile } : {}),
        // mounted beside the hook; the adapter uploads a packed copy only where needed
        runtimes: delivery === "mounts" ? runtimes : {},
      });
    } catch (err) {
      throw new DomainError("invalid", `hook payload: ${(err as Error).message}`);
    }
    if (payload) payloads.set(arm.name, { payload, pin: verifyPayload(payload.dir) });
  }
  const nodeDir = join(paths.dir, "payload", "node");
  if (adapter && payloads.size > 0) await packNodeRuntimes(nodeDir, runtimes);
  if (delivery === "mounts" && !vars.agent && !opts.template)
    throw new InvalidFieldError(
      "vars",
      "the Harbor agent",
      "agent=NAME is needed: the Harbor agent to run (e.g. claude-code or codex)",
    );
  const ctx: JobContext = {
    plan,
    jobsDir: paths.jobs,
    workspace: opts.workspace,
    bin,
    template: opts.template ?? DEFAULT_HARBOR_TEMPLATE,
    vars,
    concurrency: opts.concurrency ?? 4,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    markers: planMarkers(opts.workspace, plan),
    loadAttempts: opts.loadAttempts,
    ...(adapter ? { env: { PYTHONPATH: adapterPythonPath(adapter) } } : {}),
  };
  const armSetup = (arm: ArmName): { hook: ArmHook; vars: Record<string, string> } => {
    const entry = payloads.get(arm);
    // a payload changed since it was written and checked is refused, not delivered
    if (entry) verifyPayload(entry.payload.dir);
    const payload = entry?.payload;
    const hook: ArmHook = {
      arm,
      logFile: CONTAINER_LOG,
      command: payload?.command ?? "",
      ...(payload ? { portfolio: payload.dir } : {}),
    };
    const flags = adapter
      ? adapterFlags({
          adapter,
          harness,
          payload,
          payloadSha256: entry?.pin,
          nodeDir: payloads.size > 0 ? nodeDir : undefined,
        })
      : {
          agentFlags: vars.agent ? `-a ${shellQuote(vars.agent)}` : "",
          hookFlags: harborHookFlags(payload),
        };
    return {
      hook,
      vars: {
        ...flags,
        mounts: JSON.stringify(delivery === "mounts" ? (payload?.mounts ?? []) : []),
        payloadDir: payload?.dir ?? "",
      },
    };
  };
  if (adapter) checkAdapterTemplate(ctx, adapter, plan, armSetup);
  return { plan, paths, ctx, env, delivery, ...(adapter ? { adapter } : {}), armSetup };
}

/**
 * A custom `--command` under the adapter must still hand Harbor the adapter and the payload
 * (`{agentFlags!}`, `{hookFlags!}`) and no host mounts: filled for a hooked arm, the line is
 * checked before any trial.
 */
function checkAdapterTemplate(
  ctx: JobContext,
  adapter: AdapterInfo,
  plan: HarborPrepared["plan"],
  armSetup: HarborPrepared["armSetup"],
): void {
  const hooked = plan.arms.find((a) => a.files.length > 0);
  if (!hooked) return;
  const { vars } = armSetup(hooked.name);
  let line: string;
  try {
    line = fillTemplate(ctx.template, {
      concurrency: "1",
      ...ctx.vars,
      harbor: ctx.bin,
      arm: hooked.name,
      replicate: "1",
      jobsDir: ctx.jobsDir,
      jobName: "check",
      jobDir: join(ctx.jobsDir, "check"),
      taskFlags: "",
      tasks: "",
      portfolio: "",
      hookLog: CONTAINER_LOG,
      hookCommand: "",
      ...vars,
    });
  } catch (err) {
    throw new DomainError("invalid", (err as Error).message);
  }
  if (!line.includes(`${adapter.module}:`) || !line.includes("fire_payload="))
    throw new InvalidFieldError(
      "command",
      "the command template",
      `does not hand Harbor fire's adapter and payload (use {agentFlags!} and {hookFlags!}): on ${ctx.vars.env} the hook would never run`,
    );
  if (/(^|\s)--mounts(-json)?(\s|=)/.test(line))
    throw new InvalidFieldError(
      "command",
      "the command template",
      `passes Harbor's --mounts, which a ${ctx.vars.env} sandbox does not bind from this host`,
    );
}

/**
 * The Harbor runner: for each replicate, the arms in the plan's randomised order, each as
 * one Harbor job over the plan's tasks; trials are imported tagged with arm and replicate,
 * integrity-checked and stored. Provider failures are re-run as recovery jobs (at most the
 * plan's `maxReplacements`); the first fair result replaces the failed one, with the failed
 * trials kept in its `lineage`. A unit whose job or recovery job did not finish is not
 * stored; a re-run skips finished units and has Harbor resume each unfinished job folder
 * (the arm's job and its recovery jobs), keeping the trials already paid for.
 */
export async function runHarborScreen(opts: HarborRunOptions): Promise<RunSummary> {
  const prep = await prepareHarborRun(opts);
  const { plan, paths, armSetup } = prep;
  const state = new StateWriter(
    paths.state,
    await readRunState(paths.state, plan.hashes.plan, "harbor"),
  );
  const results = new ResultsWriter(paths.results);
  const units = [
    ...new Map(plan.schedule.map((c) => [`r${c.replicate}-${c.arm}`, c])).values(),
  ].sort((a, b) => a.replicate - b.replicate || a.order - b.order);
  const { summary, progress } = startSummary(units.length, opts.onProgress);
  // Harbor's own trial counts and cost, while each job runs
  const ctx: JobContext = {
    ...prep.ctx,
    watch: (p) => progress("trials", p.job, harborProgressText(p)),
  };
  const taskIds = plan.tasks.map((t) => t.id);

  for (const cell of units) {
    if (opts.signal?.aborted) break;
    const jobName = `r${cell.replicate}-${cell.arm}`;
    if (state.state.units[jobName]?.status === "done") {
      summary.skipped++;
      summary.done++;
      progress("skip", jobName);
      continue;
    }
    // a job folder an interrupted run left: Harbor resumes it, keeping its finished trials
    const resume = resumableJob(join(paths.jobs, jobName));
    progress("start", jobName, resume ? "resuming the Harbor job" : undefined);
    let armVars: Record<string, string>;
    let hook: ArmHook;
    try {
      ({ hook, vars: armVars } = armSetup(cell.arm));
    } catch (err) {
      const error = (err as Error).message;
      summary.failed++;
      summary.errors.push(`${jobName}: ${error}`);
      await state.mark(jobName, { status: "failed", at: new Date().toISOString(), error });
      progress("failed", jobName, error);
      continue;
    }
    await opts.installHook?.(hook, opts.signal ? { signal: opts.signal } : {});
    const first = await runHarborJob(
      ctx,
      jobName,
      cell.arm,
      cell.replicate,
      taskIds,
      hook,
      armVars,
      resume,
    );
    if (first.kind === "aborted") break;
    if (first.kind === "failed") {
      summary.failed++;
      summary.errors.push(`${jobName}: ${first.error}`);
      await state.mark(jobName, {
        status: "failed",
        at: new Date().toISOString(),
        error: first.error,
      });
      progress("failed", jobName, first.error);
      continue;
    }
    summary.errors.push(...first.errors.map((e) => e.format()));
    const byTask = new Map<string, ScreenRow>(first.rows.map((r) => [r.task, r]));
    let recoveries = 0;
    // a recovery run that did not finish: the unit is not stored, so the next run resumes it
    let unfinished: string | undefined;
    for (let rec = 1; rec <= plan.replacement.maxReplacements; rec++) {
      const pending = [...byTask.values()].filter(isProviderFailure);
      if (pending.length === 0) break;
      if (opts.signal?.aborted) {
        unfinished = "stopped";
        break;
      }
      recoveries = rec;
      const recName = `${jobName}-rec${rec}`;
      // an interrupted recovery job is resumed too: its finished trials were paid for
      const again = await runHarborJob(
        ctx,
        recName,
        cell.arm,
        cell.replicate,
        pending.map((r) => r.task),
        hook,
        armVars,
        resumableJob(join(paths.jobs, recName)),
      );
      if (again.kind !== "done") {
        unfinished =
          again.kind === "aborted" ? "stopped" : `recovery run ${recName}: ${again.error}`;
        break;
      }
      for (const r of again.rows) {
        const old = byTask.get(r.task);
        if (!old || !isProviderFailure(old)) continue;
        byTask.set(r.task, { ...r, lineage: [...(old.lineage ?? []), old.source ?? old.task] });
      }
    }
    if (unfinished === "stopped") break;
    if (unfinished) {
      summary.failed++;
      summary.errors.push(`${jobName}: ${unfinished}`);
      await state.mark(jobName, {
        status: "failed",
        at: new Date().toISOString(),
        error: unfinished,
      });
      progress("failed", jobName, unfinished);
      continue;
    }
    await results.add([...byTask.values()]);
    await state.mark(jobName, {
      status: "done",
      at: new Date().toISOString(),
      ...(recoveries ? { recoveries } : {}),
    });
    summary.done++;
    progress(
      "done",
      jobName,
      `${byTask.size} trial(s)${recoveries ? `, ${recoveries} recovery run(s)` : ""}`,
    );
  }
  summary.aborted = opts.signal?.aborted === true;
  return summary;
}

/** What a one-trial smoke run showed about the hook in the sandbox. */
export interface SmokeReport {
  ok: boolean;
  env: string;
  delivery: Delivery;
  arm: ArmName;
  task: string;
  jobDir: string;
  trialDir?: string;
  /** Hook log lines with an event (the hook evaluated that many events). */
  hookEvents: number;
  /** The sandbox id the adapter wrote inside (agent/fire-delivery.json); adapter only. */
  sandbox?: string;
  /** Launcher calls that logged that id from inside the sandbox (agent/fire-sandbox.jsonl). */
  sandboxCalls: number;
  problems: string[];
}

const jsonLines = (file: string): Record<string, unknown>[] => {
  if (!existsSync(file)) return [];
  const out: Record<string, unknown>[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === "object") out.push(v as Record<string, unknown>);
    } catch {
      // a torn line: not evidence either way
    }
  }
  return out;
};

/** A trial's agent folders: `agent/`, or each step's in a multi-step trial. */
function agentDirs(trialDir: string): string[] {
  const steps = join(trialDir, "steps");
  const dirs = [join(trialDir, "agent")];
  if (isDirectory(steps)) for (const s of readdirSync(steps)) dirs.push(join(steps, s, "agent"));
  return dirs.filter(isDirectory);
}

/**
 * `fire screen run NAME --smoke`: the same checks as a run, then ONE trial (the first
 * planned task, the policy arm or the first hooked one) in `screens/<name>/smoke/`, outside
 * the results. It passes when the trial's downloaded agent folder holds hook log events and,
 * with the adapter, launcher lines carrying the id the adapter wrote only inside the sandbox.
 */
export async function runHarborSmoke(opts: HarborRunOptions): Promise<SmokeReport> {
  const prep = await prepareHarborRun(opts);
  const arm =
    prep.plan.arms.find((a) => a.name === "policy" && a.files.length > 0) ??
    prep.plan.arms.find((a) => a.files.length > 0);
  const task = prep.plan.tasks[0];
  if (!arm || !task)
    throw new DomainError("invalid", "the plan has no hooked arm or no task to smoke-test");
  const smokeDir = join(prep.paths.dir, "smoke");
  const jobName = `smoke-${arm.name}`;
  const { hook, vars } = prep.armSetup(arm.name);
  const job = await runHarborJob(
    { ...prep.ctx, jobsDir: smokeDir },
    jobName,
    arm.name,
    1,
    [task.id],
    hook,
    vars,
  );
  const jobDir = join(smokeDir, jobName);
  const report: SmokeReport = {
    ok: false,
    env: prep.env,
    delivery: prep.delivery,
    arm: arm.name,
    task: task.id,
    jobDir,
    hookEvents: 0,
    sandboxCalls: 0,
    problems: [],
  };
  if (job.kind === "aborted") {
    report.problems.push("stopped before the trial finished");
    return report;
  }
  if (job.kind === "failed") report.problems.push(`the Harbor job failed: ${job.error}`);
  const trials = isDirectory(jobDir)
    ? readdirSync(jobDir)
        .map((d) => join(jobDir, d))
        .filter((d) => existsSync(join(d, "result.json")))
    : [];
  const trialDir = trials[0];
  if (!trialDir) {
    report.problems.push(`no trial folder in ${jobDir}`);
    return report;
  }
  report.trialDir = trialDir;
  const dirs = agentDirs(trialDir);
  const logLines = dirs.flatMap((d) => jsonLines(join(d, basename(CONTAINER_LOG))));
  report.hookEvents = logLines.filter((l) => typeof l.event === "string" && l.event).length;
  const faults = logLines.filter((l) => typeof l.error === "string" && l.error);
  if (report.hookEvents === 0)
    report.problems.push(
      faults[0]
        ? `the hook ran but evaluated no event: ${String(faults[0].error)}`
        : "no hook log in the trial's agent folder: the hook never ran in the sandbox",
    );
  else if (faults.length > 0)
    report.problems.push(`${faults.length} hook fault(s), e.g. ${String(faults[0]?.error)}`);
  if (prep.delivery === "adapter") {
    const record = dirs.map((d) => join(d, DELIVERY_RECORD)).find((f) => existsSync(f));
    let sandbox: unknown;
    try {
      sandbox = record
        ? (JSON.parse(readFileSync(record, "utf8")) as { payload?: { sandbox?: unknown } }).payload
            ?.sandbox
        : undefined;
    } catch {
      sandbox = undefined;
    }
    if (typeof sandbox !== "string" || !sandbox) {
      report.problems.push(
        `no ${DELIVERY_RECORD} with a sandbox id in the trial's agent folder: the adapter did not deliver the payload`,
      );
    } else {
      report.sandbox = sandbox;
      const calls = dirs.flatMap((d) => jsonLines(join(d, SANDBOX_LOG_NAME)));
      report.sandboxCalls = calls.filter((c) => c.sandbox === sandbox).length;
      const other = calls.filter((c) => c.sandbox !== sandbox).length;
      if (report.sandboxCalls === 0)
        report.problems.push(
          `no hook call logged the sandbox id ${sandbox} (${SANDBOX_LOG_NAME}): the hook command did not run in that sandbox`,
        );
      if (other > 0) report.problems.push(`${other} hook call(s) logged another sandbox's id`);
    }
  }
  report.ok = report.problems.length === 0;
  return report;
}
